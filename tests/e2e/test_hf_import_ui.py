"""A Hugging Face dataset folder through the Import tab: a gold version exported with
``export_dataset --format hf`` is zipped and uploaded; a broken row is listed naming its
Parquet file and row and nothing is imported; the good folder becomes the target project's
published gold version, its documents and spans shown (data: ``tests/e2e/seed_hf.py``)."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser import api, login
from tests.e2e.conftest import ROOT, run_seed

pytestmark = pytest.mark.e2e
TEST_FILE = "data/test-00000-of-00001.parquet"


def _zip(folder: Path, archive: Path) -> Path:
    """The folder zipped as a file manager does: its files under the folder's name."""
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as out:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                out.write(path, f"{folder.name}/{path.relative_to(folder).as_posix()}")
    return archive


def _broken_copy(folder: Path, tmp_path: Path) -> tuple[Path, int]:
    """The folder with row 2's first span ending past its text; returns it and that end."""
    broken = tmp_path / "broken" / folder.name
    broken.mkdir(parents=True)
    (broken / "data").mkdir()
    (broken / "README.md").write_bytes((folder / "README.md").read_bytes())
    table = pq.read_table(folder / TEST_FILE)
    rows = table.to_pylist()
    end = len(rows[1]["text"]) + 7
    rows[1]["spans"][0]["end"] = end
    pq.write_table(table.from_pylist(rows, schema=table.schema), broken / TEST_FILE)
    return broken, end


def test_admin_imports_an_exported_hf_folder_from_the_import_tab(
    web_server, page: Page, tmp_path: Path, artifacts: Path
) -> None:
    seeded = run_seed(web_server, "seed_hf.py")
    folder = tmp_path / "gold-hf"
    subprocess.run(
        [sys.executable, "manage.py", "export_dataset", "--project", seeded["source"]["name"]]
        + ["--format", "hf", "--out", str(folder)],
        cwd=ROOT,
        env=web_server.env,
        check=True,
        capture_output=True,
    )
    base, target = web_server.url, seeded["target"]["id"]
    login(page, base, "demo-admin")
    page.goto(f"{base}/projects/{target}/import/")
    expect(page.get_by_test_id("document-count")).to_have_attribute("data-count", "0")

    broken, end = _broken_copy(folder, tmp_path)
    page.get_by_label("File", exact=True).set_input_files(_zip(broken, tmp_path / "broken.zip"))
    expect(page.get_by_label("Format")).to_have_value("hf")  # guessed from .zip
    page.get_by_role("button", name="Import", exact=True).click()
    failed = page.get_by_test_id("import-failed")
    expect(failed).to_be_visible(timeout=30_000)
    problems = failed.get_by_test_id("import-errors").locator("li").all_inner_texts()
    assert len(problems) == 1 and problems[0].startswith(
        f"{TEST_FILE}: row 2: spans[0].end: {end} is beyond the text"
    ), problems
    expect(page.get_by_test_id("document-count")).to_have_attribute("data-count", "0")
    page.screenshot(path=str(artifacts / "hf-import-failed.png"), full_page=True)

    page.get_by_label("File", exact=True).set_input_files(_zip(folder, tmp_path / "gold-hf.zip"))
    page.get_by_role("button", name="Import", exact=True).click()
    report = page.get_by_test_id("import-report")
    expect(report).to_be_visible(timeout=30_000)
    expect(report.get_by_test_id("report-documents_created")).to_contain_text("3")
    expect(report.get_by_test_id("report-spans")).to_contain_text("4")
    expect(report.get_by_test_id("report-gold_version")).to_contain_text("1")
    expect(page.get_by_test_id("document-count")).to_have_attribute("data-count", "3")
    page.screenshot(path=str(artifacts / "hf-import.png"), full_page=True)
    documents = api(page, base, "GET", f"/api/projects/{target}/documents/?limit=10")
    assert documents["count"] == 3

    # The gold version's page lists every imported span with its alternatives.
    page.goto(f"{base}/projects/{target}/gold/1/")
    added = page.get_by_test_id("diff-added")
    expect(added).to_have_count(len(seeded["spans"]))
    shown = added.all_inner_texts()
    for text, labels in seeded["spans"]:
        assert any(text in line and all(label in line for label in labels) for line in shown), (
            text,
            labels,
            shown,
        )
    page.screenshot(path=str(artifacts / "hf-import-gold.png"), full_page=True)
