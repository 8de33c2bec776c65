"""Item projects from the browser: create one from the FLUB form preset, import FLUB items
(a broken file lists its bad lines and imports nothing), then a CSV through the column
mapping step, and export the items back from the Import tab."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser import api, login
from tests.e2e.conftest import ROOT

pytestmark = pytest.mark.e2e

FLUB = ROOT.parent / "shared/datasets/flub/FLUB.jsonl"


def create_flub_project(page: Page, base: str) -> int:
    """Creates an item project from the FLUB form preset; its id."""
    page.goto(base + "/projects/new/")
    page.get_by_label("Items (form)").check()
    page.get_by_label("Form", exact=True).select_option("flub")
    page.get_by_label("Name", exact=True).fill("FLUB from the browser")
    page.get_by_role("button", name="Create project").click()
    page.wait_for_url(re.compile(r"/projects/\d+/import/$"))
    project_id = int(re.search(r"/projects/(\d+)/import/", page.url).group(1))
    project = api(page, base, "GET", f"/api/projects/{project_id}/")
    assert project["kind"] == "items"
    assert [f["name"] for f in project["form"]["fields"]] == ["answer", "type", "explanation"]
    return project_id


def import_a_broken_then_the_good_flub_file(page: Page, tmp_path: Path, lines: list[str]) -> None:
    """A FLUB file with a bad answer on line 3 is refused naming that line; the good one
    imports its ten items."""
    broken_lines = list(lines)
    record = json.loads(broken_lines[2])
    record["answer"] = "Z"
    broken_lines[2] = json.dumps(record, ensure_ascii=False)
    broken = tmp_path / "broken.jsonl"
    broken.write_text("\n".join(broken_lines) + "\n", encoding="utf-8")
    page.get_by_label("Format").select_option("flub")
    page.get_by_label("File", exact=True).set_input_files(broken)
    page.get_by_role("button", name="Import", exact=True).click()
    failed = page.get_by_test_id("import-failed")
    expect(failed).to_be_visible(timeout=30_000)
    problems = failed.get_by_test_id("import-errors").locator("li").all_inner_texts()
    assert problems and problems[0].startswith("3: answer: "), problems

    good = tmp_path / "flub.jsonl"
    good.write_text("\n".join(lines) + "\n", encoding="utf-8")
    page.get_by_label("File", exact=True).set_input_files(good)
    page.get_by_role("button", name="Import", exact=True).click()
    report = page.get_by_test_id("import-report")
    expect(report).to_be_visible(timeout=30_000)
    expect(page.get_by_test_id("document-count")).to_have_attribute("data-count", "10")


def import_a_csv_through_the_column_mapping(
    page: Page, base: str, tmp_path: Path, project_id: int
) -> None:
    """A CSV of three items: the mapping step guesses its columns; 13 items in all."""
    rows = ["qid,question,A,B,gold"] + [f"q{i},Question number {i}?,yes,no,A" for i in range(3)]
    items = tmp_path / "items.csv"
    items.write_text("\n".join(rows) + "\n", encoding="utf-8")
    page.get_by_label("Format").select_option("items")
    page.get_by_label("File", exact=True).set_input_files(items)
    mapping = page.get_by_test_id("item-columns")
    expect(mapping).to_be_visible()
    expect(page.get_by_test_id("item-column-text")).to_have_value("question")
    expect(page.get_by_test_id("item-column-answer")).to_have_value("gold")
    expect(page.get_by_test_id("options-mode-columns")).to_be_checked()
    page.get_by_role("button", name="Import", exact=True).click()
    expect(page.get_by_test_id("import-report")).to_be_visible(timeout=30_000)
    expect(page.get_by_test_id("document-count")).to_have_attribute("data-count", "13")
    documents = api(page, base, "GET", f"/api/projects/{project_id}/documents/?limit=20")
    assert documents["count"] == 13


def test_admin_creates_a_flub_project_and_imports_items(web_server, page: Page, tmp_path: Path):
    if not FLUB.exists():
        pytest.skip(f"the FLUB file is absent ({FLUB})")
    base = web_server.url
    login(page, base, "demo-admin")
    project_id = create_flub_project(page, base)
    lines = FLUB.read_text(encoding="utf-8").splitlines()[:10]
    import_a_broken_then_the_good_flub_file(page, tmp_path, lines)
    import_a_csv_through_the_column_mapping(page, base, tmp_path, project_id)

    # Export: the FLUB records come back as they were read, the CSV's items after them.
    exports = page.get_by_test_id("item-exports")
    expect(exports).to_be_visible()
    with page.expect_download() as download:
        exports.get_by_test_id("export-flub").click()
    exported = Path(download.value.path()).read_text(encoding="utf-8").splitlines()
    assert len(exported) == 13
    assert [json.loads(x) for x in exported[:10]] == [json.loads(x) for x in lines]
    assert json.loads(exported[10])["answer"] == "A"
