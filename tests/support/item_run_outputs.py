"""The SmartyPat-like item project the item-run import tests (tests/evaluation/items/
test_item_run_imports*.py) import published outputs into: a ranked ``types`` field, a
``fallacious`` detection field and a ``clarity`` rating, six items; a model's published
answers of two fields, what the field parsers read of them, and the report scoring must
store."""

from __future__ import annotations

import io
import json
from pathlib import Path

from django.contrib.auth.models import User
from rest_framework.test import APIClient

from annotations.importing.items import import_items
from annotations.models import Project
from annotations.services.projects import create_project
from evaluation.models import ModelRun, RunOutput, RunScore
from evaluation.scoring.items import score_answers
from tests.support.factories import make_taxonomy

LABELS = ["Ad hominem", "False dilemma", "Strawman", "Slippery slope"]
FORM = {
    "fields": [
        {"name": "types", "kind": "ranked", "labels": LABELS, "max": 3},
        {"name": "fallacious", "kind": "detection"},
        {"name": "clarity", "kind": "likert"},
    ],
    "aggregate": "macro",
}
ITEMS = [  # id, gold types (best first), fallacious
    ("p1", ["Ad hominem"], True),
    ("p2", ["False dilemma", "Strawman"], True),
    ("p3", [], False),
    ("p4", ["Slippery slope"], True),
    ("p5", [], False),
    (6, ["Strawman"], True),
]
ITEM_IDS = ["p1", "p2", "p3", "p4", "p5", "6"]
RANKED = [  # published answers of the ranked field (p5 has none: missing)
    {"id": "p1", "output": "1. Ad hominem\n2. Strawman"},
    {"id": "p2", "output": "False dilemma"},
    {"id": "p3", "output": "No fallacy."},
    {"id": "p4", "output": "I cannot tell."},
    {"id": 6, "output": "strawman"},
]
RANKED_READ = {
    "p1": ["Ad hominem", "Strawman"],
    "p2": ["False dilemma"],
    "p3": [],
    "p4": None,
    "6": ["Strawman"],
}
DETECTION = [  # id, published answer, what the detection parser reads
    ("p1", "Yes, it is fallacious.", True),
    ("p2", "yes", True),
    ("p3", "No, the reasoning is sound.", False),
    ("p4", "It is sound.", False),
    ("p5", "fallacious", True),
    ("6", "Hmm.", None),
]
PART = ["p1", "p3", "p4"]  # the items a partial published file answers
API = "/api/evaluation/projects/{}/run-imports/"


def smarty_project(admin: User) -> Project:
    """``Smarty``: the form's three fields and the six ``ITEMS`` imported by column."""
    project = create_project(
        name="Smarty", taxonomy=make_taxonomy(), created_by=admin, kind="items", form=FORM
    )
    lines = "".join(
        json.dumps({"id": item_id, "text": f"Sentence {item_id}.", "types": types, "bad": bad})
        + "\n"
        for item_id, types, bad in ITEMS
    )
    import_items(
        path=io.StringIO(lines),
        project=project,
        format="items",
        name="items.jsonl",
        columns={"text": "text", "id": "id", "labels": "types", "detection": "bad"},
    )
    return project


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def jsonl(records: list[dict]) -> str:
    return "".join(json.dumps(record) + "\n" for record in records)


def detection_csv() -> str:
    rows = "".join(f'{item_id},"{answer}"\n' for item_id, answer, _ in DETECTION)
    return "post,answer\n" + rows


def stored_answers(run: ModelRun) -> dict[str, object]:
    return {
        external_id: parsed
        for external_id, parsed in RunOutput.objects.filter(run=run).values_list(
            "document__external_id", "parsed_labels"
        )
    }


def expected_report(project: Project, run: ModelRun, kind: str) -> dict:
    """``score_answers`` on the answers the run stored, items in project order; an item
    without a record is left out (an imported run is scored on the items it covers)."""
    answers = stored_answers(run)
    golds, predictions = [], []
    for document in project.documents.order_by("position", "id"):
        if document.external_id in answers:
            golds.append(document.metadata["gold"][run.field])
            predictions.append(answers[document.external_id])
    labels = LABELS if kind == "ranked" else []
    report = score_answers(kind, golds, predictions, labels=labels)
    missing = sum(item not in answers for item in ITEM_IDS)
    if kind == "ranked":  # RANKED's one piece naming no label, counted (never dropped)
        report["unreadable_labels"] = {"pieces": 1, "items": 1, "examples": ["I cannot tell."]}
    coverage = {"items": len(ITEM_IDS) - missing, "of": len(ITEM_IDS)}
    return {**report, "task": kind, "field": run.field, "missing": missing, "coverage": coverage}


def assert_nothing_written() -> None:
    assert not ModelRun.objects.exists()
    assert not RunOutput.objects.exists()
    assert not RunScore.objects.exists()


def upload(
    client: APIClient, project: Project, file_name: str, text: str, **fields: str
) -> tuple[int, dict]:
    file = io.BytesIO(text.encode("utf-8"))
    file.name = file_name
    response = client.post(API.format(project.pk), {"file": file, **fields}, format="multipart")
    return response.status_code, response.json()


def named_file(file_name: str, text: str) -> io.BytesIO:
    file = io.BytesIO(text.encode("utf-8"))
    file.name = file_name
    return file
