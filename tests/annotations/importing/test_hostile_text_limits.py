"""Texts over ``IMPORT_MAX_TEXT_CHARS`` and files that decode past ``IMPORT_MEMORY_BYTES``,
through the Import tab, ``/api/datasets/import/``, the run-imports API and the command line:
each refused naming its line or the limit (and its setting), nothing imported; a small file
is parsed in the web process, a larger one in the bounded child."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from fallacy_platform import bounded
from rest_framework.test import APIClient

from annotations.form_presets import form_preset
from annotations.models import Document, Project
from annotations.services.projects import create_project
from annotations.services.taxonomy import install_preset
from tests.support import hostile
from tests.support.harness import three_text_gold
from tests.support.hostile_uploads import (
    MEMORY,
    MIB,
    NEEDS_MEMORY,
    command_error,
    hostile_admin,
    import_counts,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin() -> tuple[Any, Project]:
    return hostile_admin()


LONG = "a" * 1001
TEXT_LIMIT = {"IMPORT_MAX_TEXT_CHARS": 1000}


def _lines(*records: Any) -> bytes:
    return "".join(json.dumps(record) + "\n" for record in records).encode()


def _flub(text: str, item_id: str) -> dict[str, Any]:
    options = {"A": "a", "B": "b"}
    return {
        **{"text": text, "is_question": False, "type": None, "explanation": ""},
        **{"id": item_id, "options": options, "answer": "A"},
    }


# (format, file name, content with a long text, its line)
SPAN_LONG = [
    ("text", "long.txt", b"good\n\n" + LONG.encode() + b"\n", 3),
    ("text", "long.jsonl", _lines({"text": "good"}, {"text": LONG}), 2),
    ("csv", "long.csv", b"text\ngood\n" + LONG.encode() + b"\n", 3),
    (
        "mafalda",
        "long.jsonl",
        _lines({"text": "good", "labels": []}, {"text": LONG, "labels": []}),
        2,
    ),
    ("mafalda", "texts.jsonl", _lines({"text": "good"}, {"text": LONG}), 2),
    (
        "doccano",
        "long.jsonl",
        _lines({"text": "good", "label": []}, {"text": LONG, "label": []}),
        2,
    ),
    (
        "labelstudio",
        "long.json",
        b'[{"data": {"text": "good"}},\n' + json.dumps({"data": {"text": LONG}}).encode() + b"]",
        2,
    ),
]
ITEM_LONG = [
    ("flub", "long.jsonl", _lines(_flub("good", "f1"), _flub(LONG, "f2")), 2),
    ("smartypat", "long.csv", b"id,original post\n1,good\n2," + LONG.encode() + b"\n", 3),
    ("items", "long.csv", b"post\ngood\n" + LONG.encode() + b"\n", 3),
]
COLUMNS = '{"text": "post"}'
LIMIT_TEXT = "more than the limit (IMPORT_MAX_TEXT_CHARS = 1,000)"


@pytest.fixture
def items_admin(admin) -> tuple[Any, Project]:
    user, _ = admin
    project = create_project(
        name="Hostile items",
        taxonomy=install_preset(name="flub"),
        kind="items",
        form=form_preset("flub"),
        created_by=user,
    )
    return user, project


def _tab(user: Any, project: Project, fmt: str, name: str, content: bytes) -> str:
    """The Import tab's upload; the errors' text (the job failed, or a 400)."""
    client = APIClient()
    client.force_authenticate(user)
    fields: dict[str, Any] = {"file": SimpleUploadedFile(name, content), "format": fmt}
    if fmt == "doccano":
        fields["annotator"] = user.username
    if fmt == "items":
        fields["columns"] = COLUMNS
    response = client.post(f"/api/projects/{project.pk}/imports/", fields, format="multipart")
    assert response.status_code in (201, 400), response.content[:300]
    body = response.json()
    if response.status_code == 400:
        return str(body)
    assert body["status"] == "failed", body
    return " ".join(error["text"] for error in body["errors"])


def _cli(project: Project, fmt: str, path: Path) -> str:
    args = ["import_dataset", str(path), "--format", fmt, "--project", project.name]
    if fmt == "doccano":
        args += ["--annotator", "hostile-admin"]
    if fmt == "items":
        args += ["--columns", COLUMNS]
    return command_error(*args)


@pytest.mark.parametrize(
    ("fmt", "name", "content", "line"),
    SPAN_LONG + ITEM_LONG,
    ids=[f"{case[0]}-{case[1]}" for case in SPAN_LONG + ITEM_LONG],
)
def test_a_text_over_the_limit_is_refused_naming_its_line_by_the_tab_and_the_command_line(
    admin, items_admin, tmp_path: Path, fmt: str, name: str, content: bytes, line: int
) -> None:
    user, project = items_admin if (fmt, name, content, line) in ITEM_LONG else admin
    before = import_counts()
    path = tmp_path / name
    path.write_bytes(content)
    with override_settings(**TEXT_LIMIT):
        shown = _tab(user, project, fmt, name, content)
        # the command line reads no CSV of texts, and MAFALDA there is a gold standard only
        message = "" if name in ("long.csv", "texts.jsonl") else _cli(project, fmt, path)
    assert f"{line}: " in shown and LIMIT_TEXT in shown, shown[:500]
    if message:
        assert f"{name}:{line}:" in message and LIMIT_TEXT in message, message[:500]
    assert import_counts() == before


@pytest.mark.parametrize("fmt", ["text", "mafalda", "doccano"])
def test_datasets_import_refuses_a_text_over_the_limit_naming_its_line(admin, fmt: str) -> None:
    user, project = admin
    client = APIClient()
    client.force_authenticate(user)
    key = {"doccano": "label", "mafalda": "labels", "text": "source"}[fmt]
    content = _lines({"text": "good", key: []}, {"text": LONG, key: []})
    if fmt == "text":
        content = _lines({"text": "good"}, {"text": LONG})
    data: dict[str, Any] = {
        "format": fmt,
        "project": project.pk,
        "file": SimpleUploadedFile("long.jsonl", content),
    }
    if fmt == "doccano":
        data["annotator"] = user.pk
    with override_settings(**TEXT_LIMIT):
        response = client.post("/api/datasets/import/", data, format="multipart")
    assert response.status_code == 400, response.content[:300]
    assert "long.jsonl:2: text: the text has 1,001 characters" in response.json()["detail"]
    assert import_counts() == (0, 0)


@pytest.mark.parametrize(
    ("fmt", "name", "build"),
    [
        ("text", "bomb.jsonl", lambda: hostile.bomb_line()),
        ("mafalda", "bomb.jsonl", lambda: hostile.bomb_line("labels")),
        ("doccano", "bomb.jsonl", lambda: hostile.bomb_line("label")),
        ("labelstudio", "bomb.json", lambda: b'[{"data": ' + hostile.bomb_line("m")[:-1] + b"}]"),
        ("flub", "bomb.jsonl", lambda: hostile.bomb_line("options")),
        ("items", "bomb.jsonl", lambda: hostile.bomb_line("post")),
    ],
)
def test_a_file_that_decodes_past_the_memory_cap_is_refused_by_the_tab_and_the_command_line(
    admin, items_admin, tmp_path: Path, fmt: str, name: str, build: Callable[[], bytes]
) -> None:
    """Under 1 MiB (imported inside the request), about 70 MiB once decoded: parsed by the
    bounded child, refused at its cap, nothing imported."""
    user, project = items_admin if fmt in ("flub", "items") else admin
    content = build()
    assert 64 * 1024 < len(content) < MIB
    before = import_counts()
    path = tmp_path / name
    path.write_bytes(content)
    with override_settings(**MEMORY):
        assert NEEDS_MEMORY in _tab(user, project, fmt, name, content)
        assert NEEDS_MEMORY in _cli(project, fmt, path)
    assert import_counts() == before


def test_datasets_import_and_run_imports_refuse_a_file_past_the_memory_cap(admin) -> None:
    user, project = admin
    client = APIClient()
    client.force_authenticate(user)
    for url, data in (
        ("/api/datasets/import/", {"format": "text", "project": project.pk}),
        (f"/api/evaluation/projects/{project.pk}/run-imports/", {"name": "bomb"}),
    ):
        data["file"] = SimpleUploadedFile("bomb.jsonl", hostile.bomb_line("prediction"))
        with override_settings(**MEMORY):
            response = client.post(url, data, format="multipart")
        assert response.status_code == 400, response.content[:300]
        assert f"bomb.jsonl: {NEEDS_MEMORY}" in str(response.json()), response.content[:300]
    assert import_counts() == (0, 0)


def test_run_imports_of_item_outputs_refuse_a_file_past_the_memory_cap(items_admin) -> None:
    user, project = items_admin
    client = APIClient()
    client.force_authenticate(user)
    data = {
        "name": "bomb",
        "field": "type",
        "file": SimpleUploadedFile("bomb.jsonl", hostile.bomb_line("output")),
    }
    with override_settings(**MEMORY):
        response = client.post(
            f"/api/evaluation/projects/{project.pk}/run-imports/", data, format="multipart"
        )
    assert response.status_code == 400, response.content[:300]
    assert f"bomb.jsonl: {NEEDS_MEMORY}" in str(response.json()), response.content[:300]


LM_EVAL_SAMPLES = "samples_fallacies_2025-01-01T00-00-00.jsonl"  # an lm-eval samples log


@pytest.mark.parametrize(
    ("name", "build", "names", "limits"),
    [
        ("bomb.jsonl", lambda: hostile.bomb_line("prediction"), NEEDS_MEMORY, MEMORY),
        (LM_EVAL_SAMPLES, lambda: hostile.bomb_line("doc"), f"{LM_EVAL_SAMPLES}:1: sample", {}),
        (LM_EVAL_SAMPLES, hostile.deep_json_line, f"{LM_EVAL_SAMPLES}:1: JSON nested", {}),
    ],
    ids=["raw-results-bomb", "lm-eval-bomb", "lm-eval-deep"],
)
def test_import_run_refuses_raw_results_and_lm_eval_logs_past_the_limits(
    tmp_path: Path, name: str, build: Callable[[], bytes], names: str, limits: dict[str, int]
) -> None:
    three_text_gold(tmp_path)
    path = tmp_path / name
    path.write_bytes(build())
    bounded.last_peak_bytes = 0
    with override_settings(**limits):
        message = command_error("import_run", str(path), "--project", "Harness", "--name", "bomb")
    assert names in message, message
    assert bounded.last_peak_bytes < limits.get("IMPORT_MEMORY_BYTES", 2048 * MIB)


def test_a_small_file_is_parsed_in_process_and_a_larger_one_in_the_child(admin) -> None:
    """The rule of ``IMPORT_INPROCESS_MAX_BYTES``: a child's start-up costs more than
    parsing a small file; a larger one is parsed in the child (its peak memory is recorded)."""
    user, project = admin
    small = b"".join(b"text %d\n\n" % number for number in range(1000))
    large = b"".join(b"text %d %s\n\n" % (number, b"x" * 80) for number in range(1000))
    assert len(small) < 64 * 1024 < len(large)
    client = APIClient()
    client.force_authenticate(user)
    for content, in_child in ((small, False), (large, True)):
        Document.objects.all().delete()
        bounded.last_peak_bytes = 0
        fields = {"file": SimpleUploadedFile("texts.txt", content), "format": "text"}
        response = client.post(f"/api/projects/{project.pk}/imports/", fields, format="multipart")
        assert response.json()["status"] == "succeeded", response.content[:300]
        assert Document.objects.count() == 1000
        assert (bounded.last_peak_bytes > 0) is in_child
