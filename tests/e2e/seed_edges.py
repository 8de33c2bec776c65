"""Data of ``tests/e2e/test_edges.py``: a project whose two annotators agree fully on some
documents and differ on others (the adjudication queue's order, the history page), and a
queued run (its cancel confirmation). Prints a JSON object with the ids the test needs."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [] if str(ROOT) in sys.path else [str(ROOT)]  # run as a script
from tests.e2e.seed_base import mafalda, setup_django, user  # noqa: E402

ORDER_PROJECT = "Edges: adjudication order"
RUN_PROJECT = "Edges: a queued run"
ANNOTATORS = ("edges-ann1", "edges-ann2")
SENTENCES = (
    "The senator is a crook, so his budget is wrong.",
    "Everyone knows the plan will fail.",
    "If we allow one exception, everyone will demand one.",
)
# per document (in project order): each annotator's labels per sentence (None: no span)
PLAN: dict[str, tuple[list[str | None], list[str | None]]] = {
    "same-everywhere": (["ad hominem"] * 3, ["ad hominem"] * 3),
    "one-of-three-differs": (
        ["ad hominem", None, "slippery slope"],
        ["ad hominem", None, None],
    ),
    "nothing-said": ([None, None, None], [None, None, None]),
    "all-differ": (
        ["ad hominem", "ad populum", "slippery slope"],
        ["appeal to fear", None, "ad populum"],
    ),
}


def text_of(name: str) -> str:
    return " ".join(f"{sentence[:-1]} ({name} {i})." for i, sentence in enumerate(SENTENCES))


def order_project() -> dict:
    from annotations.models import Document, Project
    from annotations.services.annotations import (
        create_or_get_span,
        start_annotation,
        submit_annotation,
    )
    from annotations.services.documents import NewDocument, add_documents, assign_documents
    from annotations.services.projects import add_member, create_project

    ann1, ann2 = (user(name) for name in ANNOTATORS)
    project = Project.objects.filter(name=ORDER_PROJECT).first()
    if project is None:
        project = create_project(name=ORDER_PROJECT, taxonomy=mafalda(), annotators_per_document=2)
        for name, role in (("demo-admin", "admin"), ("demo-reviewer", "reviewer")):
            add_member(project=project, user=user(name), role=role)
        for annotator in (ann1, ann2):
            add_member(project=project, user=annotator, role="annotator")
        add_documents(
            project=project,
            texts=[NewDocument(text=text_of(name), external_id=name) for name in PLAN],
        )
        for annotator in (ann1, ann2):
            assign_documents(project=project, annotator=annotator)
    ids = {}
    for name, work in PLAN.items():
        document = Document.objects.get(project=project, external_id=name)
        ids[name] = document.pk
        sentences = list(document.sentences.order_by("index"))
        for annotator, labels in zip((ann1, ann2), work, strict=True):
            annotation = start_annotation(document=document, annotator=annotator)
            if not annotation.spans.exists():
                for sentence, label in zip(sentences, labels, strict=True):
                    if label:
                        create_or_get_span(
                            annotation=annotation,
                            start=sentence.start,
                            end=sentence.end,
                            labels=[label],
                            details={},
                        )
            submit_annotation(annotation=annotation)
    return {
        "project": project.pk,
        "documents": ids,
        "annotators": {u.username: u.pk for u in (ann1, ann2)},
    }


def queued_run() -> dict:
    """A run launched without a worker: it stays queued, so it can be cancelled."""
    from annotations.importing.datasets import import_mafalda_gold
    from annotations.models import Project
    from annotations.services.projects import add_member, create_project
    from evaluation.backends import ModelSpec
    from evaluation.models import ModelRun, PromptVariant
    from evaluation.runs.launch import launch_runs

    project = Project.objects.filter(name=RUN_PROJECT).first()
    if project is None:
        project = create_project(name=RUN_PROJECT, taxonomy=mafalda())
        add_member(project=project, user=user("demo-admin"), role="admin")
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "gold.jsonl"
            text = SENTENCES[0]
            record = {"text": text, "labels": [[0, len(text), "ad hominem"]], "comments": []}
            path.write_text(json.dumps(record) + "\n", encoding="utf-8")
            import_mafalda_gold(path=path, project=project)
    run = ModelRun.objects.filter(project=project, status=ModelRun.Status.QUEUED).first()
    if run is None:
        [run] = launch_runs(
            project=project,
            gold_standard=project.gold_standards.get(),
            models=[ModelSpec("random", "")],
            variants=[PromptVariant.objects.get(task="mafalda", version=1, name="zero-shot")],
            created_by=user("demo-admin"),
            enqueue=False,
        )
    return {"project": project.pk, "run": run.pk}


if __name__ == "__main__":
    setup_django()
    print(json.dumps({"order": order_project(), "run": queued_run()}))
