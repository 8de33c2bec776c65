"""Importing a model's published outputs from an item project's Import tab: the admin picks
the form field, a bad file names its line and imports nothing, a CSV's id and output columns
are chosen, and the imported runs appear on the Results tab marked "imported" (data:
``tests/e2e/seed_run_imports.py``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.e2e.browser import api, login
from tests.e2e.conftest import run_seed

pytestmark = pytest.mark.e2e


def import_a_bad_file_then_the_ranked_outputs(
    page: Page, base: str, project: int, form: Locator, tmp_path: Path
) -> None:
    """A file with an unknown id names its line and imports nothing; the good one imports
    "gpt types"."""
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        json.dumps({"id": "s1", "output": "Ad hominem"})
        + "\n"
        + json.dumps({"id": "s9", "output": "Strawman"})
        + "\n",
        encoding="utf-8",
    )
    form.get_by_label("Run name").fill("gpt types")
    form.get_by_label("Model (optional)").fill("gpt-x")
    form.get_by_label("Outputs file").set_input_files(bad)
    form.get_by_role("button", name="Import outputs").click()
    errors = page.get_by_test_id("outputs-import-errors")
    expect(errors).to_contain_text("bad.jsonl:2: id: no item of project")
    assert api(page, base, "GET", f"/api/evaluation/runs/?project={project}")["count"] == 0

    good = tmp_path / "types.jsonl"
    good.write_text(
        "".join(
            json.dumps({"id": item_id, "output": output}) + "\n"
            for item_id, output in (("s1", "1. Ad hominem"), ("s2", "Strawman"), ("s3", "None"))
        ),
        encoding="utf-8",
    )
    form.get_by_label("Outputs file").set_input_files(good)
    form.get_by_role("button", name="Import outputs").click()
    expect(page.get_by_test_id("outputs-imported")).to_contain_text("gpt types")


def import_a_csv_choosing_its_columns(page: Page, form: Locator, tmp_path: Path) -> None:
    """A CSV of detection answers: its id and output columns guessed, "gpt detection"."""
    table = tmp_path / "detection.csv"
    table.write_text("item_id,text,answer\ns1,x,yes\ns2,y,no\ns3,z,no\n", encoding="utf-8")
    form.get_by_label("Form field").select_option("fallacious")
    form.get_by_label("Run name").fill("gpt detection")
    form.get_by_label("Model (optional)").fill("gpt-x")
    form.get_by_label("Outputs file").set_input_files(table)
    expect(form.get_by_label("Id column")).to_have_value("item_id")
    expect(form.get_by_label("Output column")).to_have_value("answer")
    form.get_by_role("button", name="Import outputs").click()
    expect(page.get_by_test_id("outputs-imported")).to_contain_text("gpt detection")


def import_whole_records_of_two_files(
    page: Page, base: str, project: int, form: Locator, tmp_path: Path
) -> None:
    """SmartyPat-shaped published outputs: whole records, the ids of two files prefixed."""
    bench, benign = tmp_path / "bench.json", tmp_path / "benign.json"
    record = {"sentence": "...", "logic_error": "yes", "logic_fallacies": ["Ad hominem"]}
    bench.write_text(json.dumps([{"id": 1, **record}, {"id": 2, **record}]), encoding="utf-8")
    benign.write_text(
        json.dumps([{"id": 3, "logic_error": "no", "logic_fallacies": []}]), encoding="utf-8"
    )
    form.get_by_label("Form field").select_option("types")
    form.get_by_label("Run name").fill("smarty records")
    form.get_by_label("Outputs file").set_input_files(bench)
    form.get_by_test_id("outputs-whole-record").check()
    form.get_by_label("Id prefix (optional)").fill("s")
    form.get_by_test_id("outputs-more-file").set_input_files(benign)
    form.get_by_label("Its id prefix").fill("s")
    form.get_by_role("button", name="Import outputs").click()
    expect(page.get_by_test_id("outputs-imported")).to_contain_text("smarty records")
    runs = api(page, base, "GET", f"/api/evaluation/runs/?project={project}")["results"]
    [smarty] = [run for run in runs if run["name"] == "smarty records"]
    outputs = api(page, base, "GET", f"/api/evaluation/runs/{smarty['id']}/requests/")
    assert outputs["count"] == 3, outputs


def test_admin_imports_model_outputs_and_sees_them_in_the_results(
    web_server, page: Page, tmp_path: Path
) -> None:
    seeded = run_seed(web_server, "seed_run_imports.py")
    base, project = web_server.url, seeded["project"]
    login(page, base, seeded["admin"])
    page.goto(f"{base}/projects/{project}/import/")
    form = page.get_by_test_id("outputs-import-form")
    expect(form).to_be_visible()
    fields = form.get_by_label("Form field").locator("option").all_inner_texts()
    assert fields == ["Fallacy types (ranked)", "Fallacious? (detection)"], fields

    import_a_bad_file_then_the_ranked_outputs(page, base, project, form, tmp_path)
    import_a_csv_choosing_its_columns(page, form, tmp_path)
    import_whole_records_of_two_files(page, base, project, form, tmp_path)

    page.goto(f"{base}/projects/{project}/results/")
    row = page.locator('[data-testid=results-row][data-row="|gpt-x|"]')
    expect(row).to_be_visible()
    expect(row.get_by_test_id("kind-badge")).to_have_text("imported")
    expect(row).to_contain_text("imported")
