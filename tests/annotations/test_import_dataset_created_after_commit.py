"""``import_dataset`` says what it made ("Created project ...") only once the import's
transaction has committed: a failed import into a project it would have created prints
no such line, and the project is not there; a good one prints it before the summary."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotations.models import Document, Project

pytestmark = pytest.mark.django_db


def run(path: Path, **options: object) -> str:
    out = io.StringIO()
    try:
        call_command("import_dataset", str(path), stdout=out, **options)
    except CommandError as error:
        raise CommandError(f"{error}\n--- printed:\n{out.getvalue()}") from error
    return out.getvalue()


def failing(path: Path, **options: object) -> tuple[str, str]:
    out = io.StringIO()
    with pytest.raises(CommandError) as refused:
        call_command("import_dataset", str(path), stdout=out, **options)
    return str(refused.value), out.getvalue()


def test_a_failed_text_import_prints_no_created_project(tmp_path: Path) -> None:
    bad = tmp_path / "texts.jsonl"
    bad.write_text(json.dumps({"text": "One."}) + "\n" + '{"text": 3}\n', encoding="utf-8")
    message, printed = failing(bad, format="text", project="Fresh")
    assert "texts.jsonl:2" in message
    assert "Created project" not in printed
    assert not Project.objects.filter(name="Fresh").exists()

    good = tmp_path / "good.jsonl"
    good.write_text(json.dumps({"text": "One."}) + "\n", encoding="utf-8")
    printed = run(good, format="text", project="Fresh")
    lines = printed.splitlines()
    assert lines[0].startswith("Created project 'Fresh' (")
    assert "Created project" not in "\n".join(lines[1:])
    assert Document.objects.filter(project__name="Fresh").count() == 1


def test_a_failed_item_import_prints_no_created_item_project(tmp_path: Path) -> None:
    bad = tmp_path / "bench.csv"
    bad.write_text("1,A post?,False Cause,A rewrite.\n2,Another post?,False Cause\n", "utf-8")
    message, printed = failing(bad, format="smartypat", project="Items")
    assert "bench.csv:2" in message
    assert "Created item project" not in printed and printed == ""
    assert not Project.objects.filter(name="Items").exists()

    bad.write_text("1,A post?,False Cause,A rewrite.\n", "utf-8")
    printed = run(bad, format="smartypat", project="Items", form_preset="smartypat")
    assert printed.splitlines()[0].startswith("Created item project 'Items' (")
    assert Project.objects.get(name="Items").kind == "items"


def test_a_failed_xmi_import_prints_no_created_project(tmp_path: Path) -> None:
    bad = tmp_path / "doc.xmi"
    bad.write_text("<not xmi/>", encoding="utf-8")
    (tmp_path / "TypeSystem.xml").write_text("<nothing/>", encoding="utf-8")
    _, printed = failing(bad, format="xmi", project="Spans")
    assert "Created project" not in printed
    assert not Project.objects.filter(name="Spans").exists()
