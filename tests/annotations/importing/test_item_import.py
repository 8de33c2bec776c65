"""Item datasets in and out: FLUB, SmartyPat and column-mapped files into item projects.

FLUB tests read the real file (../shared/datasets/flub/FLUB.jsonl) and skip without it.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from annotations.form_presets import FLUB_LABELS, available_form_presets, form_preset
from annotations.importing.formats import DatasetFormatError
from annotations.importing.items import import_items
from annotations.items import check_value, parse_form
from annotations.models import Document, ImportJob, Project
from annotations.services.item_exports import export_items, export_smartypat
from annotations.services.projects import create_project, update_project
from annotations.services.taxonomy import install_preset
from tests.conftest import SHARED_DATASETS
from tests.support.processes import celery_worker, embedded_env

FLUB_FILE = SHARED_DATASETS / "flub" / "FLUB.jsonl"
PASSWORD = "pw-for-tests-123"


@pytest.fixture(scope="session")
def flub_path() -> Path:
    if not FLUB_FILE.exists():
        pytest.skip(f"shared FLUB data not found at {FLUB_FILE} (../shared/datasets)")
    return FLUB_FILE


def _same(a: object, b: object) -> bool:
    """JSON equality where NaN equals NaN."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def test_every_form_preset_is_a_valid_form():
    for name in available_form_presets():
        form = parse_form(form_preset(name))
        assert form.fields, name
    flub = parse_form(form_preset("flub"))
    assert flub.aggregate == "geometric"
    assert flub.get("type").labels == FLUB_LABELS and len(FLUB_LABELS) == 8
    assert {f.name: f.skill for f in flub.fields} == {
        "answer": "selection",
        "type": "classification",
        "explanation": "explanation",
    }
    argbench = parse_form(form_preset("argbench"))
    assert len(argbench.get("quality").options["examples"]) == 2


@pytest.mark.django_db
def test_the_flub_rating_preset_rates_candidate_explanations_1_to_5(tmp_path):
    form = parse_form(form_preset("flub-rating"))
    [rating] = form.fields
    assert (rating.name, rating.kind, rating.low, rating.high) == ("rating", "rubric", 1, 5)
    assert rating.rating  # a rating field: agreement between raters, Spearman against judges
    assert sorted(rating.options["criteria"]) == ["1", "2", "3", "4", "5"]
    assert all(text.strip() for text in rating.options["criteria"].values())
    examples = rating.options["examples"]
    assert 2 <= len(examples) <= 3
    assert [e["score"] for e in examples] == [5, 3, 1]
    assert all(e["text"].strip() and e["why"].strip() for e in examples)

    rows = [
        ["id", "text", "model explanation"],
        ["r1", "一吨铁和一吨棉花哪个重？", "一样重，都是一吨。"],
        ["r2", "人体70%是水，所以十个人里有七个是水？", "是的，大约七个。"],
    ]
    path = tmp_path / "ratings.csv"
    path.write_text(_csv(rows), encoding="utf-8")
    columns = json.dumps({"text": "text", "id": "id", "candidate": "model explanation"})
    out = io.StringIO()
    call_command(
        "import_dataset",
        str(path),
        format="items",
        project="Ratings",
        form_preset="flub-rating",
        columns=columns,
        stdout=out,
    )
    assert "form flub-rating" in out.getvalue()
    project = Project.objects.get(name="Ratings")
    assert project.taxonomy.name == "flub" and project.form == form_preset("flub-rating")
    candidates = dict(
        Document.objects.filter(project=project).values_list("external_id", "metadata__candidate")
    )
    assert candidates == {"r1": "一样重，都是一吨。", "r2": "是的，大约七个。"}
    assert check_value(rating, 4, text="", options={}, labels=[]) == []
    assert check_value(rating, 6, text="", options={}, labels=[]) == ["must be from 1 to 5, not 6"]
    assert check_value(rating, 0, text="", options={}, labels=[])


# --- FLUB -----------------------------------------------------------------------------------


@pytest.mark.django_db
def test_flub_imports_all_834_items_and_exports_them_back_equal(flub_path, tmp_path):
    out = io.StringIO()
    call_command("import_dataset", str(flub_path), format="flub", project="FLUB", stdout=out)
    assert "Imported 834 items" in out.getvalue()

    project = Project.objects.get(name="FLUB")
    assert project.kind == "items" and project.taxonomy.name == "flub"
    assert parse_form(project.form).get("answer").kind == "multiple-choice"
    documents = list(Document.objects.filter(project=project).order_by("position"))
    assert len(documents) == 834
    originals = [json.loads(line) for line in flub_path.read_text(encoding="utf-8").splitlines()]

    first, doc = originals[0], documents[0]
    assert doc.text == first["text"] and doc.external_id == first["id"]
    assert doc.metadata["format"] == "flub"
    assert doc.metadata["options"] == first["options"]
    assert doc.metadata["gold"]["answer"] == first["answer"]
    assert doc.metadata["gold"]["explanation"] == first["explanation"]
    # eleven raw types merge into eight; items without a type have no type gold
    merged = {d.metadata["gold"].get("type") for d in documents} - {None}
    assert merged <= set(FLUB_LABELS) and "字音错误" in merged and "事实常识错误" in merged
    by_id = {d.external_id: d for d in documents}
    for record in originals:
        gold = by_id[record["id"]].metadata["gold"]
        if isinstance(record["type"], float):  # NaN in the file
            assert "type" not in gold
            assert by_id[record["id"]].metadata["record"]["type"] is None
        elif record["type"] == "谐音":
            assert gold["type"] == "字音错误"
        elif record["type"] == "偷换词义/字义":
            assert gold["type"] == "歧义"

    target = tmp_path / "flub.jsonl"
    call_command(
        "export_dataset", project="FLUB", format="flub", out=str(target), stdout=io.StringIO()
    )
    exported = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
    assert len(exported) == 834
    assert all(_same(a, b) for a, b in zip(originals, exported, strict=True))
    assert sum(isinstance(r["type"], float) for r in exported) == 14  # NaN back

    with pytest.raises(CommandError, match="re-importing items is refused"):
        call_command("import_dataset", str(flub_path), format="flub", project="FLUB")
    assert Document.objects.filter(project=project).count() == 834


@pytest.mark.django_db
def test_a_broken_flub_line_fails_naming_file_line_and_field_and_imports_nothing(
    flub_path, tmp_path
):
    lines = flub_path.read_text(encoding="utf-8").splitlines()[:6]
    bad = json.loads(lines[4])
    bad["options"] = {"A": "only one", "B": 2}
    lines[4] = json.dumps(bad, ensure_ascii=False)
    broken = tmp_path / "broken.jsonl"
    broken.write_text("\n".join(lines) + "\n", encoding="utf-8")

    with pytest.raises(CommandError, match=r"^broken\.jsonl:5: options\.B: expected a string"):
        call_command("import_dataset", str(broken), format="flub", project="Broken")
    assert not Project.objects.filter(name="Broken").exists()
    assert not Document.objects.exists()


@pytest.mark.django_db
def test_an_unknown_flub_type_is_an_error_naming_line_and_field(flub_path, tmp_path):
    lines = flub_path.read_text(encoding="utf-8").splitlines()[:3]
    bad = json.loads(lines[1])
    bad["type"] = "不存在的类型"
    lines[1] = json.dumps(bad, ensure_ascii=False)
    path = tmp_path / "types.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    project = create_project(
        name="F", taxonomy=install_preset(name="flub"), kind="items", form=form_preset("flub")
    )
    with pytest.raises(DatasetFormatError) as caught:
        import_items(path=path, project=project, format="flub")
    assert str(caught.value).startswith("types.jsonl:2: type: unknown label '不存在的类型'")
    assert not Document.objects.filter(project=project).exists()


# --- SmartyPat and column mappings ----------------------------------------------------------

SMARTYPAT_ROWS = [
    ["id", "original post", "fallacy types", "declarative rewrite"],
    ["p1", "Everyone I know loves it, so it must be good.", "Accident Fallacy", "It is good."],
    ["p2", "Either you are with us or against us.", "false dilemma, equivocation", ""],
    ["p3", "Water boils at 100 °C at sea level.", "", "Water boils at 100 °C."],
]


def _csv(rows: list[list[str]]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()


@pytest.mark.django_db
def test_smartypat_csv_imports_ranked_and_detection_gold_and_exports_back(tmp_path):
    path = tmp_path / "smartypat.csv"
    path.write_text(_csv(SMARTYPAT_ROWS), encoding="utf-8")
    call_command(
        "import_dataset", str(path), format="smartypat", project="SP", stdout=io.StringIO()
    )
    project = Project.objects.get(name="SP")
    assert project.taxonomy.name == "smartypat"
    gold = {d.external_id: d.metadata["gold"] for d in Document.objects.filter(project=project)}
    assert gold["p1"] == {"types": ["accident fallacy"], "fallacious": True}
    assert gold["p2"] == {"types": ["false dilemma", "equivocation"], "fallacious": True}
    assert gold["p3"] == {"types": [], "fallacious": False}

    out = io.StringIO()
    export_smartypat(project=project, out=out)
    assert list(csv.reader(io.StringIO(out.getvalue()))) == SMARTYPAT_ROWS

    unknown = tmp_path / "unknown.csv"
    unknown.write_text(_csv([*SMARTYPAT_ROWS[:1], ["q1", "A text.", "ad nauseam", ""]]))
    with pytest.raises(CommandError, match="unknown.csv:2: fallacy types: unknown label"):
        call_command("import_dataset", str(unknown), format="smartypat", project="SP")


@pytest.mark.django_db
def test_a_column_mapping_reads_option_columns_and_labels_into_gold(tmp_path):
    rows = [
        ["qid", "question", "A", "B", "C", "gold", "kind", "why"],
        ["1", "Is this a trick?", "yes", "no", "maybe", "A", "冷笑话", "It is a pun."],
        ["2", "Another text.", "x", "y", "z", "C", "", ""],
    ]
    path = tmp_path / "items.csv"
    path.write_text(_csv(rows), encoding="utf-8")
    project = create_project(
        name="Mapped", taxonomy=install_preset(name="flub"), kind="items", form=form_preset("flub")
    )
    columns = {
        "text": "question",
        "id": "qid",
        "options": ["A", "B", "C"],
        "answer": "gold",
        "label": {"column": "kind", "field": "type"},
        "reference": "why",
    }
    report = import_items(path=path, project=project, format="items", columns=columns)
    assert report.items == 2 and report.gold == {"answer": 2, "type": 1, "explanation": 1}
    first = Document.objects.get(project=project, external_id="1")
    assert first.metadata["options"] == {"A": "yes", "B": "no", "C": "maybe"}
    assert first.metadata["gold"] == {
        "answer": "A",
        "type": "冷笑话",
        "explanation": "It is a pun.",
    }

    out = io.StringIO()
    export_items(project=project, out=out)
    exported = [json.loads(line) for line in out.getvalue().splitlines()]
    assert exported[1] == {
        "id": "2",
        "text": "Another text.",
        "options": {"A": "x", "B": "y", "C": "z"},
        "gold": {"answer": "C"},
    }

    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"q": "Text", "opts": {"A": "a"}, "g": "B"}) + "\n")
    with pytest.raises(DatasetFormatError, match=r"bad.jsonl:1: g: 'B' is not an option key"):
        import_items(
            path=bad,
            project=project,
            format="items",
            columns={"text": "q", "options": "opts", "answer": "g"},
        )


# --- projects and the API -------------------------------------------------------------------


@pytest.mark.django_db
def test_create_project_checks_the_form_naming_the_bad_place():
    taxonomy = install_preset(name="flub")
    bad = {"fields": [{"name": "a", "kind": "free-text"}, {"name": "b", "kind": "essay"}]}
    with pytest.raises(ValidationError) as caught:
        create_project(name="Bad", taxonomy=taxonomy, kind="items", form=bad)
    assert "form.fields[1].kind" in caught.value.message_dict

    project = create_project(name="Ok", taxonomy=taxonomy, kind="items", form=form_preset("flub"))
    Document.objects.create(project=project, text="t")
    with pytest.raises(ValidationError, match="kind can no longer change"):
        update_project(project=project, kind="spans")


@pytest.fixture
def staff(db: None, settings) -> APIClient:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    user = User.objects.create_user("boss", password=PASSWORD, is_staff=True)
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_the_api_creates_an_item_project_from_a_form_preset(staff):
    presets = staff.get("/api/taxonomies/").json()["form_presets"]
    assert [p["name"] for p in presets] == ["flub", "flub-rating", "smartypat", "argbench"]

    response = staff.post(
        "/api/projects/", {"name": "SmartyPat", "form_preset": "smartypat"}, format="json"
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["kind"] == "items"
    assert [f["name"] for f in body["form"]["fields"]] == ["types", "fallacious"]
    assert Project.objects.get(pk=body["id"]).taxonomy.name == "smartypat"

    bad_form = {"fields": [{"name": "x", "kind": "nope"}]}
    taxonomy = body["taxonomy"]["id"]
    response = staff.post(
        "/api/projects/",
        {"name": "Bad", "taxonomy": taxonomy, "kind": "items", "form": bad_form},
        format="json",
    )
    assert response.status_code == 400
    assert "form.fields[0].kind" in response.json()

    response = staff.patch(
        f"/api/projects/{body['id']}/", {"form_preset": "argbench"}, format="json"
    )
    assert response.status_code == 200, response.content
    assert response.json()["form"]["fields"][0]["name"] == "stance"
    Document.objects.create(project_id=body["id"], text="An item.")
    response = staff.patch(f"/api/projects/{body['id']}/", {"kind": "spans"}, format="json")
    assert response.status_code == 400 and "kind" in response.json()


def _post_file(client: APIClient, project: Project, name: str, content: bytes, **fields):
    upload = SimpleUploadedFile(name, content, "application/octet-stream")
    return client.post(
        f"/api/projects/{project.pk}/imports/", {"file": upload, **fields}, format="multipart"
    )


def test_a_browser_import_of_a_broken_flub_file_lists_every_bad_line(staff, flub_path):
    project = staff.post("/api/projects/", {"name": "F", "form_preset": "flub"}, format="json")
    project = Project.objects.get(pk=project.json()["id"])
    lines = flub_path.read_text(encoding="utf-8").splitlines()[:5]
    lines[1] = lines[1].replace('"answer": "', '"answer": "X')
    lines[3] = "{not json"
    lines[4] = lines[0]  # the same id again
    content = ("\n".join(lines) + "\n").encode("utf-8")

    job = _post_file(staff, project, "flub.jsonl", content, format="flub").json()

    assert job["status"] == "failed"
    texts = [error["text"] for error in job["errors"]]
    assert texts[0].startswith("2: answer: expected one of the option keys")
    assert texts[1].startswith("4: invalid JSON")
    assert texts[2].startswith("5: id: same id")
    assert not Document.objects.filter(project=project).exists()

    ok = _post_file(staff, project, "flub.jsonl", "\n".join(lines[:3]).encode(), format="flub")
    assert ok.json()["status"] == "failed"  # line 2 is still broken
    good = ("\n".join([lines[0], lines[2]]) + "\n").encode("utf-8")
    job = _post_file(staff, project, "flub.jsonl", good, format="flub").json()
    assert job["status"] == "succeeded", job["errors"]
    assert job["report"]["items"] == 2
    again = _post_file(staff, project, "flub.jsonl", good, format="flub").json()
    assert again["status"] == "failed"
    assert "re-importing items is refused" in again["errors"][0]["text"]


def test_a_browser_import_of_items_needs_a_column_mapping(staff):
    project = staff.post("/api/projects/", {"name": "G", "form_preset": "smartypat"}, format="json")
    pk = project.json()["id"]
    project = Project.objects.get(pk=pk)
    content = _csv([["post", "labels"], ["A sound text.", ""], ["Bad text.", "false dilemma"]])
    response = _post_file(staff, project, "g.csv", content.encode(), format="items")
    assert response.status_code == 400 and "columns" in response.json()

    inspected = staff.post(
        f"/api/projects/{pk}/imports/inspect/",
        {"file": SimpleUploadedFile("g.csv", content.encode())},
        format="multipart",
    ).json()
    assert inspected["columns"] == ["post", "labels"]
    mapping = json.dumps({"text": "post", "labels": "labels"})
    job = _post_file(staff, project, "g.csv", content.encode(), format="items", columns=mapping)
    assert job.json()["status"] == "succeeded", job.json()
    gold = [d.metadata["gold"] for d in Document.objects.filter(project=project)]
    assert gold == [
        {"types": [], "fallacious": False},
        {"types": ["false dilemma"], "fallacious": True},
    ]


@pytest.mark.django_db(transaction=True)
def test_the_whole_flub_file_imports_in_the_browser_through_a_celery_worker(
    flub_path, test_database_url
):
    user = User.objects.create_user("boss", password=PASSWORD, is_staff=True)
    client = APIClient()
    client.force_authenticate(user)
    created = client.post("/api/projects/", {"name": "FLUB", "form_preset": "flub"}, format="json")
    project = Project.objects.get(pk=created.json()["id"])
    content = flub_path.read_bytes()
    env = embedded_env(settings.DATA_DIR, DATABASE_URL=test_database_url)
    if os.environ.get("CELERY_BROKER_URL"):
        env["CELERY_BROKER_URL"] = os.environ["CELERY_BROKER_URL"]

    with celery_worker(env, queues="default") as worker:
        job = _post_file(client, project, "FLUB.jsonl", content, format="flub").json()
        assert job["status"] in ("queued", "running"), job  # over 1 MiB: queued
        deadline = time.monotonic() + 180
        while job["status"] in ("queued", "running") and time.monotonic() < deadline:
            assert worker.poll() is None
            time.sleep(0.5)
            job = client.get(f"/api/imports/{job['id']}/").json()

    assert job["status"] == "succeeded", job["errors"]
    assert job["report"]["items"] == 834
    assert Document.objects.filter(project=project).count() == 834
    assert ImportJob.objects.get(pk=job["id"]).content in (b"", memoryview(b""))
