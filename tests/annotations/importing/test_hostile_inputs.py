"""The hostile-input corpus (``tests/support/hostile.py``, built at test time) against every
import path: the Import tab's API (``POST /api/projects/<id>/imports/``, and its Label Studio
annotators read step ``.../imports/label-studio/annotators/``) and the command line
(``import_dataset``, ``import_run``). Each file is refused with a message naming its place or
the limit reached (and its setting), never a server error; nothing is imported; archives,
Parquet, XMI and harness logs are read by a bounded child process that stays under its
memory cap."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.test import override_settings
from fallacy_platform import bounded
from rest_framework.test import APIClient

from annotations.form_presets import form_preset
from annotations.importing.formats.uima import TYPE_SYSTEM, type_system
from annotations.models import Document, GoldStandard, LabelStudioAnnotator, Project
from annotations.services.projects import create_project
from annotations.services.taxonomy import install_preset
from tests.support import hostile
from tests.support.harness import three_text_gold

pytestmark = pytest.mark.django_db
MIB = 1024 * 1024
HUGE = {"IMPORT_MAX_ROW_GROUP_BYTES": 1 << 40, "IMPORT_MAX_UNPACKED_BYTES": 1 << 40}

# (format, file name, builder, what the error names, settings)
WEB_CASES: list[tuple[str, str, Callable[[], bytes], str, dict[str, int]]] = [
    ("hf", "parquet-bomb.zip", hostile.parquet_bomb_zip, "IMPORT_MAX_ROW_GROUP_BYTES", {}),
    ("hf", "zip-bomb.zip", hostile.zip_bomb, "IMPORT_MAX_UNPACKED_BYTES", {}),
    ("hf", "many-members.zip", hostile.many_members, "IMPORT_MAX_ZIP_MEMBERS", {}),
    ("hf", "truncated.zip", hostile.truncated_zip, "not a .zip archive", {}),
    ("hf", "not-parquet.zip", hostile.not_parquet_zip, "not a readable Parquet file", {}),
    (
        "hf",
        "many-rows.zip",
        lambda: hostile.hf_zip(hostile.many_rows_parquet(5000)),
        "IMPORT_MAX_ROWS",
        {"IMPORT_MAX_ROWS": 1000},
    ),
    (
        "hf",
        "huge-row-group.zip",
        lambda: hostile.hf_zip(hostile.many_rows_parquet(5000)),
        "IMPORT_MAX_ROW_GROUP_BYTES",
        {"IMPORT_MAX_ROW_GROUP_BYTES": 4096},
    ),
    (
        "hf",
        "memory.zip",
        lambda: hostile.hf_zip(hostile.parquet_bomb(rows=1_000_000)),
        "IMPORT_MEMORY_BYTES",
        {**HUGE, "IMPORT_MEMORY_BYTES": 1024 * MIB},
    ),
    ("hf", "slow.zip", hostile.parquet_bomb_zip, "IMPORT_SECONDS", {**HUGE, "IMPORT_SECONDS": 1}),
    (
        "hf",
        "big-member.zip",
        lambda: hostile.zip_bomb(4 * MIB),
        "IMPORT_TEMP_BYTES",
        {"IMPORT_TEMP_BYTES": MIB},
    ),
    ("text", "deep.jsonl", hostile.deep_json_line, "1: ", {}),
    ("mafalda", "deep.jsonl", hostile.deep_json_line, "1: ", {}),
    ("doccano", "deep.jsonl", hostile.deep_json_line, "1: ", {}),
    ("labelstudio", "deep.json", hostile.deep_json_document, "nested", {}),
]


@pytest.fixture
def admin() -> tuple[Any, Project]:
    user = get_user_model().objects.create_user("hostile-admin")
    project = create_project(
        name="Hostile", taxonomy=install_preset(name="mafalda"), created_by=user
    )
    return user, project


def _counts() -> tuple[int, int]:
    return Document.objects.count(), GoldStandard.objects.count()


@pytest.mark.parametrize(
    ("fmt", "name", "build", "names", "limits"),
    WEB_CASES,
    ids=[f"{case[0]}-{case[1]}" for case in WEB_CASES],
)
def test_the_import_tab_refuses_each_hostile_file_naming_why(
    admin, fmt: str, name: str, build: Callable[[], bytes], names: str, limits: dict[str, int]
) -> None:
    user, project = admin
    content = build()
    assert len(content) < 1 * MIB  # imported inside the request
    client = APIClient()
    client.force_authenticate(user)
    before = _counts()
    bounded.last_peak_bytes = 0
    fields: dict[str, Any] = {"file": SimpleUploadedFile(name, content), "format": fmt}
    if fmt == "doccano":
        fields["annotator"] = user.username
    with override_settings(**limits):
        response = client.post(f"/api/projects/{project.pk}/imports/", fields, format="multipart")

    assert response.status_code in (201, 400), response.content[:500]
    body = response.json()
    if response.status_code == 201:
        assert body["status"] == "failed"
        text = " ".join(error["text"] for error in body["errors"])
    else:
        text = str(body)
    assert names in text, text[:500]
    assert _counts() == before
    cap = limits.get("IMPORT_MEMORY_BYTES", 2048 * MIB)
    assert bounded.last_peak_bytes < cap


def test_a_huge_field_or_line_under_the_upload_limit_is_refused_at_the_text_limit(admin) -> None:
    user, project = admin
    client = APIClient()
    client.force_authenticate(user)
    for fmt, name, build in (
        ("csv", "huge-field.csv", hostile.huge_csv_field),
        ("text", "huge.jsonl", hostile.huge_line),
    ):
        fields = {"file": SimpleUploadedFile(name, build()), "format": fmt}
        response = client.post(f"/api/projects/{project.pk}/imports/", fields, format="multipart")
        body = response.json()
        assert response.status_code == 201 and body["status"] == "failed", body
        line = 2 if fmt == "csv" else 1
        assert body["errors"][0]["line"] == line, body["errors"]
        assert "IMPORT_MAX_TEXT_CHARS = 100,000" in body["errors"][0]["text"]
    assert not Document.objects.exists()


@pytest.mark.parametrize(
    ("url", "fields"),
    [
        ("/api/datasets/import/", {"format": "text", "project": "{project}"}),
        ("/api/evaluation/projects/{project}/run-imports/", {"name": "deep"}),
    ],
    ids=["datasets-import", "run-imports"],
)
def test_the_other_upload_endpoints_refuse_a_deep_document_naming_its_line(
    admin, url: str, fields: dict[str, str]
) -> None:
    user, project = admin
    client = APIClient()
    client.force_authenticate(user)
    before = _counts()
    data: dict[str, Any] = {k: v.format(project=project.pk) for k, v in fields.items()}
    data["file"] = SimpleUploadedFile("deep.jsonl", hostile.deep_json_line())
    response = client.post(url.format(project=project.pk), data, format="multipart")
    assert response.status_code == 400, response.content[:300]
    assert "deep.jsonl:1" in str(response.json()), response.content[:300]
    assert _counts() == before


def _command(*args: str) -> str:
    with pytest.raises(CommandError) as refused:
        call_command(*args, stdout=io.StringIO(), stderr=io.StringIO())
    return str(refused.value)


def test_the_command_line_refuses_a_parquet_bomb_folder(admin, tmp_path: Path) -> None:
    folder = hostile.write_hf_folder(tmp_path / "hf", hostile.parquet_bomb())
    before = _counts()
    message = _command("import_dataset", str(folder), "--format", "hf", "--project", "Hostile")
    assert "IMPORT_MAX_ROW_GROUP_BYTES" in message
    assert _counts() == before


@pytest.mark.parametrize(
    ("fmt", "build", "names"),
    [
        ("text", hostile.deep_json_line, ":1:"),
        ("mafalda", hostile.deep_json_line, ":1:"),
        ("labelstudio", hostile.deep_json_document, "nested"),
    ],
)
def test_the_command_line_refuses_deep_documents(
    admin, tmp_path: Path, fmt: str, build: Callable[[], bytes], names: str
) -> None:
    path = tmp_path / ("deep.json" if fmt == "labelstudio" else "deep.jsonl")
    path.write_bytes(build())
    before = _counts()
    message = _command("import_dataset", str(path), "--format", fmt, "--project", "Hostile")
    assert names in message, message[:300]
    assert _counts() == before


def _xmi_folder(tmp_path: Path, xmi: bytes) -> Path:
    folder = tmp_path / "xmi"
    folder.mkdir(parents=True)
    (folder / TYPE_SYSTEM).write_text(type_system().to_xml(), encoding="utf-8")
    (folder / "doc.xmi").write_bytes(xmi)
    return folder / "doc.xmi"


def test_xmi_entities_are_neither_expanded_nor_fetched(admin, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("operator secret 7f3a", encoding="utf-8")
    before = _counts()
    laughs = _xmi_folder(tmp_path / "laughs", hostile.billion_laughs_xmi())
    assert "not readable UIMA CAS XMI" in _command(
        "import_dataset", str(laughs), "--format", "xmi", "--project", "Hostile"
    )
    external = _xmi_folder(tmp_path / "external", hostile.external_entity_xmi(secret))
    try:
        call_command(
            "import_dataset",
            str(external),
            "--format",
            "xmi",
            "--project",
            "Hostile",
            stdout=io.StringIO(),
        )
    except CommandError as error:
        assert "7f3a" not in str(error)
    assert not Document.objects.filter(text__contains="7f3a").exists()
    assert _counts()[1] == before[1]


def test_import_run_refuses_an_inspect_log_bomb_under_the_memory_cap(tmp_path: Path) -> None:
    three_text_gold(tmp_path)
    log = tmp_path / "bomb.eval"
    log.write_bytes(hostile.inspect_log_bomb())
    assert log.stat().st_size < 1 * MIB
    bounded.last_peak_bytes = 0
    message = _command(
        "import_run", str(log), "--project", "Harness", "--name", "bomb", "--gold-version", "1"
    )
    assert "IMPORT_MAX_UNPACKED_BYTES" in message, message
    assert 0 < bounded.last_peak_bytes < 512 * MIB


def test_import_project_refuses_an_archive_with_a_huge_row_under_the_cap(tmp_path: Path) -> None:
    archive = tmp_path / "backup.zip"
    archive.write_bytes(hostile.raw_zip([], bomb=("documents.jsonl", 8 * MIB)))
    bounded.last_peak_bytes = 0
    with override_settings(IMPORT_MAX_UNPACKED_BYTES=2 * MIB):
        message = _command("import_project", str(archive))
    assert "IMPORT_MAX_UNPACKED_BYTES" in message and "documents.jsonl" in message, message
    assert 0 < bounded.last_peak_bytes < 512 * MIB
    assert not Project.objects.exists()


# --- texts over IMPORT_MAX_TEXT_CHARS, and files parsed in the bounded child ---------------

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
    return _command(*args)


@pytest.mark.parametrize(
    ("fmt", "name", "content", "line"),
    SPAN_LONG + ITEM_LONG,
    ids=[f"{case[0]}-{case[1]}" for case in SPAN_LONG + ITEM_LONG],
)
def test_a_text_over_the_limit_is_refused_naming_its_line_by_the_tab_and_the_command_line(
    admin, items_admin, tmp_path: Path, fmt: str, name: str, content: bytes, line: int
) -> None:
    user, project = items_admin if (fmt, name, content, line) in ITEM_LONG else admin
    before = _counts()
    path = tmp_path / name
    path.write_bytes(content)
    with override_settings(**TEXT_LIMIT):
        shown = _tab(user, project, fmt, name, content)
        # the command line reads no CSV of texts, and MAFALDA there is a gold standard only
        message = "" if name in ("long.csv", "texts.jsonl") else _cli(project, fmt, path)
    assert f"{line}: " in shown and LIMIT_TEXT in shown, shown[:500]
    if message:
        assert f"{name}:{line}:" in message and LIMIT_TEXT in message, message[:500]
    assert _counts() == before


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
    assert _counts() == (0, 0)


MEMORY = {"IMPORT_MEMORY_BYTES": 64 * MIB}
NEEDS_MEMORY = "reading the file needs too much memory (limit IMPORT_MEMORY_BYTES = 64 MiB)"


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
    before = _counts()
    path = tmp_path / name
    path.write_bytes(content)
    with override_settings(**MEMORY):
        assert NEEDS_MEMORY in _tab(user, project, fmt, name, content)
        assert NEEDS_MEMORY in _cli(project, fmt, path)
    assert _counts() == before


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
    assert _counts() == (0, 0)


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
        message = _command("import_run", str(path), "--project", "Harness", "--name", "bomb")
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


# --- the Label Studio annotators read step (POST .../imports/label-studio/annotators/) ------

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
