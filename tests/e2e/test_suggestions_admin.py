"""The suggestions admin page in Chromium: a project admin makes the project
assisted, puts documents where runs disagree first, turns finished runs into suggestions
(a run the service refuses is named, nothing created), and reads the report: acceptance per
run and label and the time per document with and without suggestions, once the annotator
has decided and submitted. Data: ``tests/e2e/seed_suggestions_admin.py``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e import seed_suggestions_admin as seed
from tests.e2e.browser import api, login
from tests.e2e.conftest import run_seed

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def seeded(web_server) -> dict:
    return run_seed(web_server, "seed_suggestions_admin.py")


def report_row(page: Page, run: str, label: str):
    return page.locator(f'[data-testid=report-row][data-run="{run}"][data-label="{label}"]')


def run_option(page: Page, run: str):
    return page.locator(f'[data-testid=run-option][data-run="{run}"]').locator("input")


def turn_assistance_on(page: Page, base: str, settings_url: str) -> None:
    """Assistance on, documents where runs disagree first."""
    toggle = page.get_by_test_id("assisted-toggle")
    expect(toggle).not_to_be_checked()
    toggle.check()
    expect(page.get_by_test_id("settings-status")).to_have_text(
        "Annotators now see the suggestions."
    )
    page.get_by_test_id("ordering-select").select_option("disagreement")
    expect(page.get_by_test_id("settings-status")).to_contain_text("disagree now come first")
    assert api(page, base, "GET", settings_url) == {"assisted": True, "ordering": "disagreement"}

    # the finished runs are offered; the running one only counted
    expect(page.get_by_test_id("run-option")).to_have_count(3)
    expect(page.get_by_test_id("unfinished-runs")).to_contain_text("1 run is not finished")
    expect(page.get_by_test_id("report-empty")).to_be_visible()


def create_suggestions(page: Page, base: str, project: int) -> None:
    """A run labelling at level 1 is refused by name, and nothing is created."""
    run_option(page, "run-one").check()
    run_option(page, "run-coarse").check()
    page.get_by_test_id("create-suggestions").click()
    errors = page.get_by_test_id("suggestion-errors")
    expect(errors).to_contain_text("run 'run-coarse'")
    expect(errors).to_contain_text("level 1")
    report = api(page, base, "GET", f"/api/evaluation/projects/{project}/suggestions/report/")
    assert report["rows"] == []

    run_option(page, "run-coarse").uncheck()
    run_option(page, "run-two").check()
    page.get_by_test_id("create-suggestions").click()
    created = page.get_by_test_id("suggestions-created")
    expect(created).to_contain_text("run-one: 2 new, 1 sentence with no fallacy")
    expect(created).to_contain_text("run-two: 2 new, 1 sentence with no fallacy")
    expect(page.get_by_test_id("suggestion-errors")).to_have_count(0)
    expect(page.get_by_test_id("report-row")).to_have_count(4)
    expect(report_row(page, "run-one", "ad hominem").locator("[data-column=rate]")).to_have_text(
        "—"
    )


def annotator_decides(browser: Browser, base: str, document: int) -> None:
    """The annotator is shown the suggestions, accepts one, rejects one and submits."""
    other = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        annotator = other.new_page()
        login(annotator, base, seed.ANNOTATOR)
        shown = api(annotator, base, "GET", f"/api/evaluation/documents/{document}/suggestions/")
        by = {(s["run"]["name"], tuple(s["labels"])): s["id"] for s in shown["suggestions"]}
        accept = by[("run-one", ("ad hominem",))]
        reject = by[("run-one", ("slippery slope",))]
        api(annotator, base, "POST", f"/api/evaluation/suggestions/{accept}/decision/",
            {"decision": "accept"})  # fmt: skip
        api(annotator, base, "POST", f"/api/evaluation/suggestions/{reject}/decision/",
            {"decision": "reject"})  # fmt: skip
        mine = api(annotator, base, "POST", f"/api/documents/{document}/my-annotation/", {})
        api(annotator, base, "POST", f"/api/annotations/{mine['id']}/submit/", {})
    finally:
        other.close()


def read_the_report(page: Page, artifacts: Path) -> None:
    """The report: acceptance per run and label, time per document with and without."""
    page.get_by_test_id("report-refresh").click()
    ad_hominem = report_row(page, "run-one", "ad hominem")
    expect(ad_hominem.locator("[data-column=rate]")).to_have_text("100%")
    expect(ad_hominem.locator("[data-column=accepted]")).to_have_text("1")
    slippery = report_row(page, "run-one", "slippery slope")
    expect(slippery.locator("[data-column=rejected]")).to_have_text("1")
    expect(slippery.locator("[data-column=rate]")).to_have_text("0%")
    expect(report_row(page, "run-two", "false dilemma").locator("[data-column=rate]")).to_have_text(
        "—"
    )
    timing = page.get_by_test_id("timing-table")
    with_row = timing.locator('[data-testid=timing-row][data-group="with"]')
    expect(with_row.locator("td").first).to_have_text("1")
    expect(with_row.locator("td").nth(1)).to_have_text(re.compile(r"\d+ s|<1 s|\d+ min"))
    without = timing.locator('[data-testid=timing-row][data-group="without"]')
    expect(without.locator("td").first).to_have_text("0")
    expect(timing.locator('[data-testid=timing-row][data-group="run:run-one"]')).to_be_visible()
    expect(page.get_by_test_id("timing-measure")).to_contain_text("to its submission")
    page.screenshot(path=artifacts / "suggestions-admin.png", full_page=True)


def test_admin_turns_runs_into_suggestions_and_reads_the_report(
    web_server, seeded: dict, page: Page, browser, artifacts
) -> None:
    base, project, document = web_server.url, seeded["project"], seeded["document"]
    settings_url = f"/api/evaluation/projects/{project}/suggestions/settings/"
    login(page, base, seed.ADMIN)
    page.goto(f"{base}/projects/{project}/")
    page.get_by_test_id("tab-suggestions").click()
    page.wait_for_url(f"{base}/projects/{project}/suggestions/")
    expect(page.get_by_test_id("suggestions-admin-page")).to_be_visible()
    expect(page.get_by_test_id("tab-suggestions")).to_have_attribute("aria-current", "page")

    turn_assistance_on(page, base, settings_url)
    create_suggestions(page, base, project)
    annotator_decides(browser, base, document)
    read_the_report(page, artifacts)
