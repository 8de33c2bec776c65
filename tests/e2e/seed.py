"""Data for the browser tests and the page-load benchmark, written through the services.

Run as a script against the database the environment selects (FALLACY_DATA_DIR or
DATABASE_URL), after ``manage.py migrate``::

    python tests/e2e/seed.py            # the demo (``manage.py load_demo``) + long doc
    python tests/e2e/seed.py --bench    # only what the benchmark needs

Prints a JSON object with the ids the callers need.
"""

from __future__ import annotations

import json
import os
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [] if str(ROOT) in sys.path else [str(ROOT)]  # run as a script
from tests.e2e.seed_base import DEMO_PASSWORD, mafalda, setup_django, user  # noqa: E402

LONG_PROJECT = "Long-document benchmark"
LONG_USER = "bench-annotator"
REVIEW_PROJECT = "Review: two annotators"
REVIEW_USERS = ("review-ann1", "review-ann2")
REVIEW_DOCS = 30


def demo_guidelines() -> str:
    import yaml
    from fallacy_platform.management.commands.load_demo import DEMO_FILE

    return yaml.safe_load(DEMO_FILE.read_text())["guidelines"]


def ensure_demo() -> None:
    """The demo users and projects, exactly as ``make demo`` loads them."""
    from django.core.management import call_command

    call_command("load_demo", stdout=open(os.devnull, "w"))  # noqa: SIM115


WORDS = (
    "the council argued that every critic of the plan simply hates progress while "
    "experts from abroad insist our roads are safe because nobody has complained "
    "so far and if we allow one exception soon everyone will demand special treatment "
    "which shows that the proposal is either perfect or a disaster for the whole region"
).split()


def long_text(n_sentences: int = 50, target: int = 5000) -> tuple[str, list[tuple[int, int]]]:
    """About ``target`` characters in ``n_sentences`` sentences, paragraphs of five."""
    rng = random.Random(42)
    per = target // n_sentences
    parts: list[str] = []
    ranges: list[tuple[int, int]] = []
    pos = 0
    for i in range(n_sentences):
        words: list[str] = []
        while len(" ".join(words)) < per - 8:
            words.append(rng.choice(WORDS))
        sentence = " ".join(words).capitalize()
        sentence = (sentence + " " + rng.choice(WORDS))[: per - 1].rstrip() + "."
        sep = "" if i == 0 else ("\n\n" if i % 5 == 0 else " ")
        parts.append(sep + sentence)
        pos += len(sep)
        ranges.append((pos, pos + len(sentence)))
        pos += len(sentence)
    return "".join(parts), ranges


def _long_project(annotator: Any) -> Any:
    """The long-document project, made once: the long text assigned to ``annotator``."""
    from annotations.models import Project
    from annotations.services.documents import NewDocument, add_documents, assign_documents
    from annotations.services.projects import add_member, create_project

    project = Project.objects.filter(name=LONG_PROJECT).first()
    if project is None:
        project = create_project(
            name=LONG_PROJECT,
            taxonomy=mafalda(),
            guidelines=demo_guidelines(),
            description="One long text with many overlapping spans (page-load benchmark).",
        )
        add_member(project=project, user=annotator, role="annotator")
        text, ranges = long_text()
        add_documents(
            project=project,
            texts=[NewDocument(text=text, external_id="long-5000", sentences=ranges)],
        )
        assign_documents(project=project, annotator=annotator)
    return project


def _seed_long_spans(annotation: Any, document: Any, n_spans: int) -> None:
    """``n_spans`` random overlapping spans of one to four sentences, some with alternatives,
    slots and explanations (fixed seed)."""
    from annotations.models import TaxonomyNode
    from annotations.services.annotations import create_or_get_span

    rng = random.Random(7)
    types = list(
        TaxonomyNode.objects.filter(taxonomy=document.project.taxonomy, level=2).values_list(
            "name", "slots"
        )
    )
    sentences = list(document.sentences.order_by("index").values_list("start", "end"))
    for _ in range(n_spans):
        first = rng.randrange(len(sentences))
        last = min(len(sentences) - 1, first + rng.choice([0, 0, 1, 1, 2, 3]))
        chosen = rng.sample(types, rng.choice([1, 1, 2, 3]))
        labels = [name for name, _slots in chosen]
        details = {
            name: {
                "slots": {s: f"{s.lower()} value" for s in slots[:1]},
                "explanation": "Seeded for the benchmark.",
            }
            for name, slots in chosen[:1]
        }
        if rng.random() < 0.3:
            labels.append("no fallacy")
        create_or_get_span(
            annotation=annotation,
            start=sentences[first][0],
            end=sentences[last][1],
            labels=labels,
            details=details,
        )


def ensure_long_document(n_spans: int = 50) -> dict:
    """A ~5,000-character document with ``n_spans`` overlapping spans, for one annotator."""
    from annotations.models import Annotation, Document
    from annotations.services.annotations import start_annotation

    annotator = user(LONG_USER)
    project = _long_project(annotator)
    document = Document.objects.get(project=project, external_id="long-5000")
    annotation = start_annotation(document=document, annotator=annotator)
    if not annotation.spans.exists():
        _seed_long_spans(annotation, document, n_spans)
    annotation = Annotation.objects.get(pk=annotation.pk)
    return {
        "project": project.pk,
        "document": document.pk,
        "annotation": annotation.pk,
        "chars": len(document.text),
        "sentences": document.sentences.count(),
        "spans": annotation.spans.count(),
        "username": LONG_USER,
        "password": DEMO_PASSWORD,
    }


def review_text(i: int) -> str:
    topic = "zeppelin" if i == 17 else f"topic {i}"
    return (
        f"Critics of the {topic} plan simply hate progress. "
        "Experts from abroad insist our roads are safe. "
        "If we allow one exception, everyone will demand one."
    )


def _review_project(ann1: Any, ann2: Any) -> Any:
    """The review project, made once: all documents to ann1, the first also to ann2."""
    from annotations.models import Document, Project
    from annotations.services.documents import NewDocument, add_documents, assign_documents
    from annotations.services.projects import add_member, create_project

    project = Project.objects.filter(name=REVIEW_PROJECT).first()
    if project is None:
        project = create_project(
            name=REVIEW_PROJECT,
            taxonomy=mafalda(),
            guidelines=demo_guidelines(),
            description="Two annotators' submitted work to review (browser tests).",
            annotators_per_document=2,
        )
        for name, role in (("demo-admin", "admin"), ("demo-reviewer", "reviewer")):
            add_member(project=project, user=user(name), role=role)
        for annotator in (ann1, ann2):
            add_member(project=project, user=annotator, role="annotator")
        add_documents(
            project=project,
            texts=[
                NewDocument(text=review_text(i), external_id=f"review-{i:02d}")
                for i in range(1, REVIEW_DOCS + 1)
            ],
        )
        assign_documents(project=project, annotator=ann1)
        first = Document.objects.get(project=project, external_id="review-01")
        assign_documents(project=project, annotator=ann2, documents=[first])
    return project


def ensure_review_project() -> dict:
    """30 short documents for two annotators: all to review-ann1, the first also to
    review-ann2; both submitted a span on the first one (different sentences, labels)."""
    from annotations.models import Document
    from annotations.services.annotations import (
        create_or_get_span,
        start_annotation,
        submit_annotation,
    )

    ann1, ann2 = (user(name) for name in REVIEW_USERS)
    project = _review_project(ann1, ann2)
    first = Document.objects.get(project=project, external_id="review-01")
    sentences = list(first.sentences.order_by("index").values_list("start", "end"))
    for annotator, index, label in ((ann1, 0, "ad hominem"), (ann2, 1, "appeal to fear")):
        annotation = start_annotation(document=first, annotator=annotator)
        if not annotation.spans.exists():
            create_or_get_span(
                annotation=annotation,
                start=sentences[index][0],
                end=sentences[index][1],
                labels=[label],
                details={},
            )
        submit_annotation(annotation=annotation)
    docs = dict(Document.objects.filter(project=project).values_list("external_id", "pk"))
    return {
        "project": project.pk,
        "document": first.pk,
        "annotators": {u.username: u.pk for u in (ann1, ann2)},
        "spans": {
            ann1.username: [list(sentences[0]), ["ad hominem"]],
            ann2.username: [list(sentences[1]), ["appeal to fear"]],
        },
        "drag_document": docs["review-02"],
        "untouched_document": docs["review-03"],
        "search_document": docs["review-17"],
        "documents": len(docs),
    }


ADJUDICATION_PROJECT = "Adjudication: two annotators disagree"


def ensure_adjudication_project() -> dict:
    """Two submitted annotators on three documents: on "adj-1" they gave different labels to
    the same sentence; on "adj-2" and "adj-3" only review-ann1 labelled the first sentence."""
    from annotations.models import Document, Project
    from annotations.services.annotations import (
        create_or_get_span,
        start_annotation,
        submit_annotation,
    )
    from annotations.services.documents import NewDocument, add_documents, assign_documents
    from annotations.services.projects import add_member, create_project

    ann1, ann2 = (user(name) for name in REVIEW_USERS)
    project = Project.objects.filter(name=ADJUDICATION_PROJECT).first()
    if project is None:
        project = create_project(
            name=ADJUDICATION_PROJECT,
            taxonomy=mafalda(),
            description="Disagreements to adjudicate (browser tests).",
            annotators_per_document=2,
        )
        for name, role in (("demo-admin", "admin"), ("demo-reviewer", "reviewer")):
            add_member(project=project, user=user(name), role=role)
        for annotator in (ann1, ann2):
            add_member(project=project, user=annotator, role="annotator")
        add_documents(
            project=project,
            texts=[
                NewDocument(text=review_text(100 + i), external_id=f"adj-{i}") for i in (1, 2, 3)
            ],
        )
        for annotator in (ann1, ann2):
            assign_documents(project=project, annotator=annotator)
    plan = {
        "adj-1": ((ann1, "ad hominem"), (ann2, "appeal to fear")),
        "adj-2": ((ann1, "ad hominem"), (ann2, None)),
        "adj-3": ((ann1, "ad hominem"), (ann2, None)),
    }
    ids = {}
    for external_id, work in plan.items():
        document = Document.objects.get(project=project, external_id=external_id)
        ids[external_id] = document.pk
        first = document.sentences.order_by("index").first()
        for annotator, label in work:
            annotation = start_annotation(document=document, annotator=annotator)
            if label and not annotation.spans.exists():
                create_or_get_span(
                    annotation=annotation,
                    start=first.start,
                    end=first.end,
                    labels=[label],
                    details={},
                )
            submit_annotation(annotation=annotation)
    return {"project": project.pk, "name": ADJUDICATION_PROJECT, "documents": ids}


def main(argv: list[str]) -> None:
    setup_django()
    out: dict = {}
    if "--bench" not in argv:
        ensure_demo()
        out["review"] = ensure_review_project()
        out["adjudication"] = ensure_adjudication_project()
        from tests.e2e.seed_items import ensure_item_projects  # item projects

        out["items"] = ensure_item_projects()
    out["long"] = ensure_long_document()
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1:])
