"""The Label Studio annotators read step (``POST .../imports/label-studio/annotators/``)
against the hostile-input corpus: each file refused with a 400 on ``file`` naming why, no
account or Label Studio row made; a file past ``IMPORT_INPROCESS_MAX_BYTES`` is read only
in the bounded child, under its memory cap."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from fallacy_platform import bounded
from rest_framework.test import APIClient

from annotations.models import LabelStudioAnnotator, Project
from tests.support import hostile
from tests.support.hostile_uploads import MEMORY, MIB, NEEDS_MEMORY, hostile_admin

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin() -> tuple[Any, Project]:
    return hostile_admin()


ANNOTATORS = "/api/projects/{}/imports/label-studio/annotators/"


def _read_step(user: Any, project: Project, name: str, content: bytes) -> Any:
    client = APIClient()
    client.force_authenticate(user)
    upload = SimpleUploadedFile(name, content)
    return client.post(ANNOTATORS.format(project.pk), {"file": upload}, format="multipart")


def _ls_task(number: int) -> dict[str, Any]:
    text = f"Text number {number}, long enough to be read. " + "x" * 200
    value = {"start": 0, "end": 4, "text": "Text", "labels": ["ad hominem"]}
    region = {"from_name": "label", "to_name": "text", "type": "labels", "value": value}
    completion = {"id": number, "completed_by": number % 3 + 1, "result": [region]}
    return {"id": number, "data": {"text": text}, "annotations": [completion]}


# (file name, builder, what the 400 names, settings)
def _ls_bomb() -> bytes:
    return b'[{"data": ' + hostile.bomb_line("m")[:-1] + b"}]"


def _ls_truncated() -> bytes:
    return json.dumps([_ls_task(n) for n in range(400)]).encode()[:-9]


READ_STEP_CASES: list[tuple[str, Callable[[], bytes], str, dict[str, int]]] = [
    ("deep.json", hostile.deep_json_document, "1: JSON nested deeper than 64 levels", {}),
    ("bomb.json", _ls_bomb, f"bomb.json: {NEEDS_MEMORY}", MEMORY),
    ("zip-bomb.json", hostile.zip_bomb, "1: not UTF-8 text", {}),
    ("truncated.json", _ls_truncated, "1: invalid JSON", {}),
]


@pytest.mark.parametrize(
    ("name", "build", "names", "limits"),
    READ_STEP_CASES,
    ids=[case[0] for case in READ_STEP_CASES],
)
def test_the_label_studio_annotators_read_step_refuses_each_hostile_file_naming_why(
    admin, name: str, build: Callable[[], bytes], names: str, limits: dict[str, int]
) -> None:
    """The read step goes through the Import tab's bounded child and limits: a 400 on
    ``file`` naming why, no account or Label Studio row made, the child under its cap."""
    user, project = admin
    content = build()
    assert 64 * 1024 < len(content) < MIB
    users, rows = get_user_model().objects.count(), LabelStudioAnnotator.objects.count()
    bounded.last_peak_bytes = 0
    with override_settings(**limits):
        response = _read_step(user, project, name, content)
    assert response.status_code == 400, response.content[:300]
    assert names in " ".join(response.json()["file"]), response.content[:500]
    assert get_user_model().objects.count() == users
    assert LabelStudioAnnotator.objects.count() == rows
    assert bounded.last_peak_bytes < limits.get("IMPORT_MEMORY_BYTES", 2048 * MIB)


def test_the_read_step_reads_a_larger_file_only_in_the_child(admin, monkeypatch) -> None:
    """Past ``IMPORT_INPROCESS_MAX_BYTES`` the web process never parses the file: the child
    hands back its counts and annotators; a small file is read in process."""
    user, project = admin
    small = json.dumps([_ls_task(n) for n in range(3)]).encode()
    large = json.dumps([_ls_task(n) for n in range(400)]).encode()
    assert len(small) < 64 * 1024 < len(large)

    bounded.last_peak_bytes = 0
    response = _read_step(user, project, "small.json", small)
    assert response.status_code == 200 and response.json()["tasks"] == 3
    assert bounded.last_peak_bytes == 0

    def in_process(*_: Any) -> None:
        raise AssertionError("the web process parsed a large file")

    monkeypatch.setattr("annotations.api.label_studio_views.summarize", in_process)
    response = _read_step(user, project, "large.json", large)
    assert response.status_code == 200, response.content[:300]
    body = response.json()
    assert body["tasks"] == 400
    assert [(a["key"], a["annotations"]) for a in body["annotators"]] == [
        ("1", 134),
        ("2", 133),
        ("3", 133),
    ]
    assert bounded.last_peak_bytes > 0
    assert not LabelStudioAnnotator.objects.exists()
