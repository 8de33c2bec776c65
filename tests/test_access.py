"""Role isolation: each access queryset holds exactly what the role may see."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.contrib.auth.models import AnonymousUser, User

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
from annotations.selectors.access import (
    annotations_for,
    documents_for,
    gold_standards_for,
    projects_for,
    role_in,
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


@pytest.fixture
def world(db: None) -> World:
    return make_world()


def ids(qs) -> set[int]:
    return set(qs.values_list("pk", flat=True))


def test_projects_and_roles(world: World) -> None:
    assert ids(projects_for(world.ann1)) == {world.p1.pk}
    assert ids(projects_for(world.outsider)) == {world.p2.pk}
    assert ids(projects_for(AnonymousUser())) == set()
    root = User.objects.create_superuser("root", password=PASSWORD)
    assert ids(projects_for(root)) == {world.p1.pk, world.p2.pk}
    assert role_in(world.ann1, world.p1) == "annotator"
    assert role_in(world.reviewer, world.p1) == "reviewer"
    assert role_in(world.ann1, world.p2) is None
    assert role_in(root, world.p2) == "admin"
    assert role_in(AnonymousUser(), world.p1) is None


def test_documents_annotator_sees_only_assigned(world: World) -> None:
    assert ids(documents_for(world.ann1)) == {world.d1.pk, world.d2.pk}
    assert ids(documents_for(world.ann2)) == {world.d1.pk}
    assert ids(documents_for(world.ann2, world.p2)) == set()
    assert ids(documents_for(world.outsider)) == {world.d4.pk}


def test_documents_annotator_without_assignments_sees_none(world: World) -> None:
    newbie = User.objects.create_user("newbie")
    Membership.objects.create(project=world.p1, user=newbie, role="annotator")
    assert ids(documents_for(newbie)) == set()


def test_documents_assignment_outside_membership_is_ignored(world: World) -> None:
    # An assignment in a project the user is not a member of grants nothing.
    Assignment.objects.create(document=world.d4, annotator=world.ann1)
    assert world.d4.pk not in ids(documents_for(world.ann1))


def test_documents_reviewer_and_admin_see_all_of_their_projects(world: World) -> None:
    p1_docs = {world.d1.pk, world.d2.pk, world.d3.pk}
    assert ids(documents_for(world.reviewer)) == p1_docs
    assert ids(documents_for(world.admin)) == p1_docs
    assert ids(documents_for(world.reviewer, world.p2)) == set()


def test_annotations_for(world: World) -> None:
    assert ids(annotations_for(world.ann1)) == {world.a1.pk}
    assert ids(annotations_for(world.ann2)) == {world.a2.pk}
    assert ids(annotations_for(world.reviewer)) == {world.a1.pk, world.a2.pk}
    assert ids(annotations_for(world.admin)) == {world.a1.pk, world.a2.pk}
    assert ids(annotations_for(world.outsider)) == {world.a4.pk}
    assert ids(annotations_for(AnonymousUser())) == set()


def test_gold_standards_only_for_reviewers_and_admins(world: World) -> None:
    assert ids(gold_standards_for(world.ann1)) == set()
    assert ids(gold_standards_for(world.outsider)) == set()
    assert ids(gold_standards_for(world.reviewer)) == {world.g1.pk}
    assert ids(gold_standards_for(world.admin)) == {world.g1.pk}
