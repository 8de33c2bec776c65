"""The hostile-input corpus (``tests/support/hostile.py``, built at test time) against every
import path: the Import tab's API (``POST /api/projects/<id>/imports/``), the other upload
endpoints and the command line (``import_dataset``, ``import_run``, ``import_project``). Each
file is refused with a message naming its place or the limit reached (and its setting), never
a server error; nothing is imported; archives, Parquet, XMI and harness logs are read by a
bounded child process that stays under its memory cap. Texts over the text limit and files
past the memory cap: test_hostile_text_limits.py; the Label Studio annotators read step:
test_hostile_read_step.py."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.test import override_settings
from fallacy_platform import bounded
from rest_framework.test import APIClient

from annotations.importing.formats.uima import TYPE_SYSTEM, type_system
from annotations.models import Document, Project
from tests.support import hostile
from tests.support.harness import three_text_gold
from tests.support.hostile_uploads import MIB, command_error, hostile_admin, import_counts

pytestmark = pytest.mark.django_db
HUGE = {"IMPORT_MAX_ROW_GROUP_BYTES": 1 << 40, "IMPORT_MAX_UNPACKED_BYTES": 1 << 40}
# rows of a one-character text: reading them all takes about 8 s of one core on a 2-core AMD
# EPYC (1,000,000 took 2.2 s), far past the 1 s limit on a faster machine too; memory grows
# with them, so the case allows 8 GiB (the child is stopped at 1 s, long before)
SLOW_ROWS = 4_000_000

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
    (
        "hf",
        "slow.zip",
        lambda: hostile.hf_zip(hostile.parquet_bomb(rows=SLOW_ROWS, width=1)),
        "IMPORT_SECONDS",
        {
            **HUGE,
            "IMPORT_MAX_ROWS": SLOW_ROWS,
            "IMPORT_MEMORY_BYTES": 8192 * MIB,
            "IMPORT_SECONDS": 1,
        },
    ),
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
    return hostile_admin()


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
    before = import_counts()
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
    assert import_counts() == before
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
    before = import_counts()
    data: dict[str, Any] = {k: v.format(project=project.pk) for k, v in fields.items()}
    data["file"] = SimpleUploadedFile("deep.jsonl", hostile.deep_json_line())
    response = client.post(url.format(project=project.pk), data, format="multipart")
    assert response.status_code == 400, response.content[:300]
    assert "deep.jsonl:1" in str(response.json()), response.content[:300]
    assert import_counts() == before


def test_the_command_line_refuses_a_parquet_bomb_folder(admin, tmp_path: Path) -> None:
    folder = hostile.write_hf_folder(tmp_path / "hf", hostile.parquet_bomb())
    before = import_counts()
    message = command_error("import_dataset", str(folder), "--format", "hf", "--project", "Hostile")
    assert "IMPORT_MAX_ROW_GROUP_BYTES" in message
    assert import_counts() == before


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
    before = import_counts()
    message = command_error("import_dataset", str(path), "--format", fmt, "--project", "Hostile")
    assert names in message, message[:300]
    assert import_counts() == before


def _xmi_folder(tmp_path: Path, xmi: bytes) -> Path:
    folder = tmp_path / "xmi"
    folder.mkdir(parents=True)
    (folder / TYPE_SYSTEM).write_text(type_system().to_xml(), encoding="utf-8")
    (folder / "doc.xmi").write_bytes(xmi)
    return folder / "doc.xmi"


def test_xmi_entities_are_neither_expanded_nor_fetched(admin, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("operator secret 7f3a", encoding="utf-8")
    before = import_counts()
    laughs = _xmi_folder(tmp_path / "laughs", hostile.billion_laughs_xmi())
    assert "not readable UIMA CAS XMI" in command_error(
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
    assert import_counts()[1] == before[1]


def test_import_run_refuses_an_inspect_log_bomb_under_the_memory_cap(tmp_path: Path) -> None:
    three_text_gold(tmp_path)
    log = tmp_path / "bomb.eval"
    log.write_bytes(hostile.inspect_log_bomb())
    assert log.stat().st_size < 1 * MIB
    bounded.last_peak_bytes = 0
    message = command_error(
        "import_run", str(log), "--project", "Harness", "--name", "bomb", "--gold-version", "1"
    )
    assert "IMPORT_MAX_UNPACKED_BYTES" in message, message
    assert 0 < bounded.last_peak_bytes < 512 * MIB


def test_import_project_refuses_an_archive_with_a_huge_row_under_the_cap(tmp_path: Path) -> None:
    archive = tmp_path / "backup.zip"
    archive.write_bytes(hostile.raw_zip([], bomb=("documents.jsonl", 8 * MIB)))
    bounded.last_peak_bytes = 0
    with override_settings(IMPORT_MAX_UNPACKED_BYTES=2 * MIB):
        message = command_error("import_project", str(archive))
    assert "IMPORT_MAX_UNPACKED_BYTES" in message and "documents.jsonl" in message, message
    assert 0 < bounded.last_peak_bytes < 512 * MIB
    assert not Project.objects.exists()
