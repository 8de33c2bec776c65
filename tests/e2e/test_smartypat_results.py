"""The Results tab of a SmartyPat project with imported model outputs, in Chromium: both
scoring profiles side by side, every figure (per-type accuracy among them) with its table
and chart, the predicted vs gold label counts, the overall's basis and a subset (the data
is ``tests/e2e/seed_smartypat_results.py``)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e import seed_smartypat_results as seed
from tests.e2e.browser import login
from tests.e2e.conftest import run_seed

pytestmark = pytest.mark.e2e
PROFILES = ("definition", "authors-smartypat")


@pytest.fixture(scope="module")
def smartypat(web_server) -> dict:
    return run_seed(web_server, "seed_smartypat_results.py")


def test_imported_runs_under_both_profiles(web_server, smartypat: dict, page: Page, artifacts):
    base = web_server.url
    login(page, base, seed.REVIEWER)
    page.set_viewport_size({"width": 1500, "height": 1000})
    page.goto(f"{base}/projects/{smartypat['project']}/results/")
    expect(page.get_by_test_id("results-page")).to_be_visible()

    # One table per profile, side by side; both imported models in each, marked imported.
    for profile in PROFILES:
        table = page.locator(f'[data-testid=profile-results][data-profile="{profile}"]')
        expect(table).to_be_visible()
        rows = table.get_by_test_id("results-row")
        expect(rows).to_have_count(2)
        expect(rows.first.get_by_test_id("kind-badge")).to_have_text("imported")
    expect(page.get_by_test_id("overall-basis")).to_contain_text("Left out")

    # Per-type accuracy: a table with a column per model and profile, and its chart.
    per_type = page.locator('[data-testid=figure][data-figure="types:per_type_accuracy"]')
    per_type.scroll_into_view_if_needed()
    expect(per_type.get_by_test_id("figure-table")).to_be_visible()
    expect(per_type.locator("thead th")).to_have_count(5)  # label + 2 models x 2 profiles
    expect(per_type.locator('tr[data-line="false dilemma"]')).to_be_visible()
    expect(page.locator('[data-testid=figure][data-figure="types:sum_s"]')).to_be_visible()
    expect(page.locator('[data-testid=figure][data-figure="fallacious:recall"]')).to_be_visible()

    # Predicted vs gold label counts of the types question.
    chart = page.get_by_test_id("bias-chart")
    chart.scroll_into_view_if_needed()
    chart.get_by_test_id("bias-task").select_option("types")
    dilemma = chart.locator("[data-testid=bias-table] tr[data-label='false dilemma']")
    expect(dilemma.get_by_test_id("bias-gold")).to_have_text("1")
    page.screenshot(path=artifacts / "smartypat-results.png", full_page=True)

    # Top-k accuracy is a figure of its own; any two rows get the paired test on the page.
    expect(page.locator('[data-testid=figure][data-figure="types:top_k_accuracy"]')).to_be_visible()
    pair = page.get_by_test_id("compare-pair")
    pair.scroll_into_view_if_needed()
    pair.get_by_test_id("compare-a").select_option(index=1)
    pair.get_by_test_id("compare-b").select_option(index=2)
    lines = pair.get_by_test_id("compare-line")
    expect(lines.first).to_be_visible()
    expect(pair.get_by_test_id("compare-result")).to_contain_text("definition · types (mean_s)")
    expect(pair.get_by_test_id("compare-result")).to_contain_text("p = ")

    # A subset: the benign items only.
    page.get_by_test_id("subset").select_option("gold=sound")
    expect(page.get_by_test_id("subset-line")).to_contain_text("gold=sound")
