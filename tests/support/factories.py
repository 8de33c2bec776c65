"""Shared test data built through the models: a small taxonomy, documents of four sentences,
and the two-project ``World`` of every role that many test files start from."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import User

from annotations.models import (
    Annotation,
    Assignment,
    Document,
    GoldStandard,
    Membership,
    Project,
    Sentence,
    Taxonomy,
    TaxonomyNode,
)

SENTENCES = [
    "Politicians lie all the time.",
    "So you should never trust what Smith says about taxes.",
    "If we allow this, chaos will follow.",
    "Everyone knows it is true.",
]
TEXT = " ".join(SENTENCES)
PASSWORD = "pw-for-tests-123"


def sentence_bounds(sentences: list[str]) -> list[tuple[int, int]]:
    """[start, end) of each sentence of ``" ".join(sentences)``."""
    bounds, pos = [], 0
    for s in sentences:
        bounds.append((pos, pos + len(s)))
        pos += len(s) + 1
    return bounds


BOUNDS = sentence_bounds(SENTENCES)


def make_taxonomy(name: str = "mafalda", version: str = "1.0") -> Taxonomy:
    """A small two-category taxonomy with MAFALDA-like types and slots."""
    taxonomy = Taxonomy.objects.create(name=name, version=version, title="Test taxonomy")
    root = TaxonomyNode.objects.create(taxonomy=taxonomy, level=0, name="fallacy")
    credibility = TaxonomyNode.objects.create(
        taxonomy=taxonomy, parent=root, level=1, name="fallacy of credibility", position=0
    )
    logic = TaxonomyNode.objects.create(
        taxonomy=taxonomy, parent=root, level=1, name="fallacy of logic", position=1
    )
    TaxonomyNode.objects.create(
        taxonomy=taxonomy,
        parent=credibility,
        level=2,
        name="ad hominem",
        aliases=["personal attack"],
        slots=["E", "P", "A"],
        template="E claims P. E's character is questionable (A). Therefore, P is false.",
    )
    TaxonomyNode.objects.create(
        taxonomy=taxonomy, parent=logic, level=2, name="slippery slope", slots=["A", "B"]
    )
    TaxonomyNode.objects.create(
        taxonomy=taxonomy, parent=logic, level=2, name="hasty generalization", slots=["S", "P"]
    )
    return taxonomy


def make_document(project: Project, position: int, external_id: str) -> Document:
    document = Document.objects.create(
        project=project, text=TEXT, position=position, external_id=external_id
    )
    Sentence.objects.bulk_create(
        Sentence(document=document, index=i, start=s, end=e) for i, (s, e) in enumerate(BOUNDS)
    )
    return document


@dataclass
class World:
    taxonomy: Taxonomy
    p1: Project
    p2: Project
    ann1: User
    ann2: User
    reviewer: User
    admin: User
    outsider: User  # annotator of p2 only
    d1: Document
    d2: Document
    d3: Document  # p1, assigned to nobody
    d4: Document  # p2
    a1: Annotation  # ann1 on d1
    a2: Annotation  # ann2 on d1
    a4: Annotation  # outsider on d4
    g1: GoldStandard
    g2: GoldStandard


def make_world() -> World:
    taxonomy = make_taxonomy()
    p1 = Project.objects.create(name="P1", taxonomy=taxonomy, guidelines="# Be careful")
    p2 = Project.objects.create(name="P2", taxonomy=taxonomy)
    users = {
        name: User.objects.create_user(name, password=PASSWORD)
        for name in ("ann1", "ann2", "reviewer", "admin", "outsider")
    }
    for name, role in [
        ("ann1", "annotator"),
        ("ann2", "annotator"),
        ("reviewer", "reviewer"),
        ("admin", "admin"),
    ]:
        Membership.objects.create(project=p1, user=users[name], role=role)
    Membership.objects.create(project=p2, user=users["outsider"], role="annotator")
    d1, d2, d3 = (make_document(p1, i, f"doc-{i}") for i in range(3))
    d4 = make_document(p2, 0, "p2-doc")
    for doc, user in [(d1, "ann1"), (d2, "ann1"), (d1, "ann2"), (d4, "outsider")]:
        Assignment.objects.create(document=doc, annotator=users[user])
    a1 = Annotation.objects.create(document=d1, annotator=users["ann1"])
    a2 = Annotation.objects.create(document=d1, annotator=users["ann2"])
    a4 = Annotation.objects.create(document=d4, annotator=users["outsider"])
    g1 = GoldStandard.objects.create(project=p1, version=1)
    g2 = GoldStandard.objects.create(project=p2, version=1)
    return World(taxonomy, p1, p2, *users.values(), d1, d2, d3, d4, a1, a2, a4, g1, g2)
