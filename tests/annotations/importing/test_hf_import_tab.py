"""The Import tab takes a Hugging Face dataset folder exported by the platform, as a .zip:
through the import job, every bad row listed naming its Parquet file, nothing written then."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from rest_framework.test import APIClient

from annotations.form_presets import form_preset
from annotations.models import Document, GoldStandard, ImportJob, Membership, Project
from annotations.services.projects import create_project
from annotations.services.taxonomy import install_preset
from tests.annotations.importing.test_hf_dataset import (
    ITEMS,
    TEST_FILE,
    _gold_state,
    _span_project,
)

pytestmark = pytest.mark.django_db
User = get_user_model()


def _export(project: str, folder: Path) -> Path:
    call_command(
        "export_dataset", project=project, format="hf", out=str(folder), stdout=io.StringIO()
    )
    return folder


def _zip(folder: Path, *, inside: str | None = "hf") -> bytes:
    """The folder zipped as a file manager does: its files under one folder (``inside``),
    or at the archive's top."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                relative = path.relative_to(folder).as_posix()
                archive.write(path, f"{inside}/{relative}" if inside else relative)
    return buffer.getvalue()


def _post(project: Project, name: str, content: bytes) -> dict[str, Any]:
    admin, _ = User.objects.get_or_create(username="tab-admin")
    Membership.objects.get_or_create(project=project, user=admin, defaults={"role": "admin"})
    client = APIClient()
    client.force_authenticate(admin)
    response = client.post(
        f"/api/projects/{project.pk}/imports/",
        {"file": SimpleUploadedFile(name, content, "application/zip"), "format": "hf"},
        format="multipart",
    )
    assert response.status_code == 201, response.content
    return response.json()


def _counts() -> tuple[int, int]:
    return Document.objects.count(), GoldStandard.objects.count()


def test_a_zipped_gold_version_imports_through_the_import_job(mafalda_gold_path, tmp_path):
    source, gold = _span_project(mafalda_gold_path, tmp_path)
    folder = _export("Spans", tmp_path / "hf")
    target = create_project(name="Target", taxonomy=source.taxonomy)

    job = _post(target, "spans-hf.zip", _zip(folder))

    assert job["status"] == "succeeded", job["errors"]
    report = job["report"]
    assert report["format"] == "hf" and report["kind"] == "spans"
    assert (report["texts"], report["documents_created"], report["documents_reused"]) == (5, 5, 0)
    assert report["rows"] == {"train": 2, "test": 3}
    assert report["gold_version"] == 1 and report["spans"] == gold.spans.count()
    assert (job["lines_total"], job["lines_done"]) == (5, 5)
    copy = GoldStandard.objects.get(project=target)
    assert copy.is_published and copy.source == "spans-hf.zip"
    assert _gold_state(copy) == _gold_state(gold)

    # The same folder zipped from inside (files at the archive's top) reuses the texts.
    again = _post(target, "again.zip", _zip(folder, inside=None))
    assert again["status"] == "succeeded", again["errors"]
    assert (again["report"]["documents_reused"], again["report"]["gold_version"]) == (5, 2)


def test_every_bad_row_is_listed_naming_its_file_and_nothing_is_written(
    mafalda_gold_path, tmp_path
):
    source, _ = _span_project(mafalda_gold_path, tmp_path)
    folder = _export("Spans", tmp_path / "hf")
    table = pq.read_table(folder / TEST_FILE)
    rows = table.to_pylist()
    rows[0]["spans"] = [{**rows[0]["spans"][0], "labels": ["made up"]}]
    rows[2]["spans"] = [{**rows[2]["spans"][0], "end": len(rows[2]["text"]) + 5}]
    pq.write_table(table.from_pylist(rows, schema=table.schema), folder / TEST_FILE)
    target = create_project(name="Target", taxonomy=source.taxonomy)
    before = _counts()

    job = _post(target, "bad.zip", _zip(folder))

    assert job["status"] == "failed" and job["report"] == {}
    assert [error["text"] for error in job["errors"]] == [
        f"{TEST_FILE}: row 1: spans[0].labels[0]: unknown label 'made up'",
        f"{TEST_FILE}: row 3: spans[0].end: {len(rows[2]['text']) + 5} is beyond the text "
        f"(length {len(rows[2]['text'])})",
    ]
    assert _counts() == before


def test_archives_that_are_not_a_platform_folder_are_refused(mafalda_gold_path, tmp_path):
    source, _ = _span_project(mafalda_gold_path, tmp_path)
    folder = _export("Spans", tmp_path / "hf")
    target = create_project(name="Target", taxonomy=source.taxonomy)
    items = create_project(
        name="Items", taxonomy=install_preset(name="flub"), kind="items", form=form_preset("flub")
    )
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "notes.txt").write_text("no card", encoding="utf-8")
    before = _counts()

    def refused(project: Project, name: str, content: bytes) -> str:
        job = _post(project, name, content)
        assert job["status"] == "failed"
        return "\n".join(error["text"] for error in job["errors"])

    assert refused(target, "x.zip", b"plain text") == (
        "x.zip: not a .zip archive: upload the dataset folder zipped"
    )
    assert refused(target, "x.zip", _zip(tmp_path / "empty")) == (
        "x.zip: no dataset card (README.md) in the archive"
    )
    assert refused(items, "spans.zip", _zip(folder)) == (
        "README.md: fallacy_platform.kind: the folder holds spans; project 'Items' is of kind items"
    )
    assert _counts() == before
    assert ImportJob.objects.filter(status="failed").count() == 3


def test_an_item_export_adds_its_items_to_an_item_project(tmp_path):
    import json

    from annotations.importing.items import import_items

    form = form_preset("flub")
    source = create_project(
        name="Items", taxonomy=install_preset(name="flub"), kind="items", form=form
    )
    path = tmp_path / "items.jsonl"
    path.write_text(
        "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in ITEMS), encoding="utf-8"
    )
    columns = {"text": "q", "id": "id", "options": "opts", "answer": "g", "label": "t"}
    import_items(path=path, project=source, format="items", columns=columns)
    folder = _export("Items", tmp_path / "hf")
    target = create_project(name="Copy", taxonomy=source.taxonomy, kind="items", form=form)

    job = _post(target, "items.zip", _zip(folder))

    assert job["status"] == "succeeded", job["errors"]
    assert {k: job["report"][k] for k in ("kind", "texts", "documents_created")} == {
        "kind": "items",
        "texts": 2,
        "documents_created": 2,
    }
    assert "spans" not in job["report"]
    copies = Document.objects.filter(project=target).order_by("position")
    assert [(d.external_id, d.metadata["gold"]) for d in copies] == [
        ("1", {"answer": "A", "type": "歧义"}),
        ("2", {"answer": "B"}),
    ]
    again = _post(target, "items.zip", _zip(folder))
    assert [error["text"] for error in again["errors"]] == [
        f"{TEST_FILE}: row {n}: id: id '{n}' is already an item of the project" for n in (1, 2)
    ]
