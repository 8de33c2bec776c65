"""A Label Studio JSON export built here, in the shape Label Studio publishes (three tasks,
several annotators, overlapping regions, a cancelled annotation, a choices result, a
prediction), and what the Label Studio import tests read back from the database."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from annotations.models import Annotation, Document, Membership, Project, Sentence, Span
from evaluation.models import ModelRun

T1 = (
    "Vaccines are dangerous. My neighbour got sick after his shot. "
    "Everyone knows the government lies about everything. So we should ban them."
)
T2 = "You can't trust Smith on climate. He was divorced twice! His claims about the ice are false."
T3 = "If we allow same-day delivery, soon nobody will leave the house. Then all shops will close."
ALICE = {"id": 1, "first_name": "Alice", "last_name": "", "email": "alice@example.org"}


def region(text: str, quote: str, labels: list[str], region_id: str) -> dict[str, Any]:
    """A labels result on ``quote``'s first occurrence in ``text``."""
    start = text.index(quote)
    return {
        "id": region_id,
        "from_name": "label",
        "to_name": "text",
        "type": "labels",
        "origin": "manual",
        "value": {"start": start, "end": start + len(quote), "text": quote, "labels": labels},
    }


def annotation_record(number: int, completed_by: Any, result: list[dict], **extra: Any) -> dict:
    return {
        "id": number,
        "completed_by": completed_by,
        "result": result,
        "was_cancelled": False,
        "ground_truth": False,
        "created_at": "2026-03-01T10:00:00.000000Z",
        "updated_at": "2026-03-01T10:05:00.000000Z",
        "lead_time": 42.5,
        "prediction": {},
        "result_count": 0,
        "task": 0,
        "parent_prediction": None,
        "parent_annotation": None,
        **extra,
    }


def task_record(task_id: int, text: str, annotations: list[dict], predictions: list[dict]) -> dict:
    return {
        "id": task_id,
        "annotations": annotations,
        "file_upload": "d3b1f2a0-texts.json",
        "drafts": [],
        "predictions": predictions,
        "data": {"text": text},
        "meta": {},
        "created_at": "2026-03-01T09:00:00.000000Z",
        "updated_at": "2026-03-01T10:05:00.000000Z",
        "inner_id": task_id - 100,
        "total_annotations": len(annotations),
        "cancelled_annotations": 0,
        "total_predictions": len(predictions),
        "project": 7,
        "updated_by": 1,
    }


def _first_task_annotations() -> list[dict]:
    """Alice's three overlapping regions, user 2's one, and carol's cancelled annotation."""
    alice = [
        region(T1, "got sick after his shot", ["false causality"], "a1"),
        region(T1, "My neighbour got sick after his shot.", ["Hasty Generalization"], "a2"),
        region(T1, "his shot. Everyone knows", ["appeal to (false) authority"], "a3"),
    ]
    return [
        annotation_record(1, ALICE, alice),
        annotation_record(
            2, 2, [region(T1, "Everyone knows the government", ["ad populum"], "b1")]
        ),
        annotation_record(3, 3, [], was_cancelled=True, created_username="carol@example.org, 3"),
    ]


def _second_task_annotations() -> list[dict]:
    """Alice by user id, and user 2 with two labels on one region and a choices result."""
    choices = {
        "id": "c1",
        "from_name": "quality",
        "to_name": "text",
        "type": "choices",
        "value": {"choices": ["clear"]},
    }
    divorced = region(T2, "divorced twice", ["ad hominem", "nothing"], "b2")
    return [
        annotation_record(
            4,
            1,
            [region(T2, "He was divorced twice!", ["ad hominem"], "a4")],
            created_username=" alice@example.org, 1",
        ),
        annotation_record(5, 2, [divorced, choices]),
    ]


def label_studio_export() -> list[dict]:
    """Three tasks as Label Studio's "JSON" export writes them."""
    prediction = {
        "id": 11,
        "model_version": "fallacy-bert-v1",
        "score": 0.83,
        "result": [region(T1, "after his shot", ["false causality"], "p1")],
    }
    return [
        task_record(101, T1, _first_task_annotations(), [prediction]),
        task_record(102, T2, _second_task_annotations(), []),
        task_record(103, T3, [annotation_record(6, ALICE, [])], []),
    ]


def write(path: Path, tasks: list[dict]) -> Path:
    path.write_text(json.dumps(tasks, indent=2), encoding="utf-8")
    return path


def read_tasks(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))


def spans_by_annotator(project: Project) -> dict[tuple[str, str], set[tuple]]:
    """(annotator's username, document text) -> the annotation's spans with their labels."""
    found: dict[tuple[str, str], set[tuple]] = {}
    for annotation in Annotation.objects.filter(document__project=project).select_related(
        "annotator", "document"
    ):
        key = (annotation.annotator.username, annotation.document.text)
        found[key] = {(s.start, s.end, tuple(s.labels)) for s in annotation.spans.all()}
    return found


def sentence(text: str, words: str) -> tuple[int, int]:
    start = text.index(words)
    return start, start + len(words)


def row_counts() -> tuple[int, ...]:
    """Documents, sentences, annotations, spans, runs and users: what an import may write."""
    return (
        Document.objects.count(),
        Sentence.objects.count(),
        Annotation.objects.count(),
        Span.objects.count(),
        ModelRun.objects.count(),
        get_user_model().objects.count(),
    )


def post_to_import_tab(project: Project, name: str, content: bytes) -> dict[str, Any]:
    """Uploads a Label Studio file on the Import tab as a new project admin; the job."""
    admin = get_user_model().objects.create_user("admin")
    Membership.objects.create(project=project, user=admin, role="admin")
    client = APIClient()
    client.force_authenticate(admin)
    upload = SimpleUploadedFile(name, content, "application/json")
    response = client.post(
        f"/api/projects/{project.pk}/imports/",
        {"file": upload, "format": "labelstudio"},
        format="multipart",
    )
    assert response.status_code in (200, 201, 202), response.content
    return response.json()
