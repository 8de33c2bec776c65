"""The results page of a FLUB-like item project in Chromium: a reviewer finds the runs of
one model under three prompt variants and the human baseline in the leaderboard, the
geometric overall, the prompting deltas and the label-bias chart (see conftest.py; the data
is ``tests/e2e/seed_item_results.py``)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e import seed_item_results as seed
from tests.e2e.conftest import run_seed
from tests.e2e.test_annotation_ui import login

pytestmark = pytest.mark.e2e

ZERO = f"{seed.BACKEND}|{seed.MODEL}|zero-shot"
COT = f"{seed.BACKEND}|{seed.MODEL}|chain-of-thought"
FEW = f"{seed.BACKEND}|{seed.MODEL}|few-shot"
BEST = re.compile(r"(^|\s)best(\s|$)")


@pytest.fixture(scope="module")
def flub(web_server) -> dict:
    return run_seed(web_server, "seed_item_results.py")


def cell(page: Page, row: str, column: str):
    return page.locator(f'[data-testid=results-row][data-row="{row}"] td[data-column="{column}"]')


def test_reviewer_sees_the_flub_leaderboard(web_server, flub: dict, page: Page, artifacts):
    base = web_server.url
    project = flub["project"]
    login(page, base, seed.REVIEWER)

    # The item project's tabs lead to its results.
    page.goto(f"{base}/projects/{project}/")
    page.get_by_test_id("tab-results").click()
    page.wait_for_url(f"{base}/projects/{project}/results/")
    expect(page.get_by_test_id("results-page")).to_be_visible()
    expect(page.get_by_test_id("tab-results")).to_have_attribute("aria-current", "page")

    rows = page.get_by_test_id("results-row")
    expect(rows).to_have_count(4)  # three prompt variants of one model, one human
    # Best overall first: chain-of-thought, the human, zero-shot, few-shot.
    expect(rows.nth(0)).to_have_attribute("data-row", COT)
    human = rows.nth(1)
    expect(human).to_have_attribute("data-kind", "human")
    expect(human).to_contain_text(seed.ANNOTATOR)
    expect(human.get_by_test_id("kind-badge")).to_have_text("human")
    expect(rows.filter(has_text="few-shot (k=3)")).to_have_count(1)

    # Per-task figures, the judge mean of the explanation run, the geometric overall.
    expect(cell(page, ZERO, "task:answer")).to_have_text("0.500")
    expect(cell(page, ZERO, "judge:explanation")).to_have_text("4.00")
    geometric = (0.5 * (2 / 3) * seed.BERTSCORE_F1) ** (1 / 3)
    expect(cell(page, ZERO, "overall")).to_have_text(f"{geometric:.3f}")
    expect(page.locator('th[data-column="overall"]')).to_contain_text("geometric")
    # The best of a column is bold: the human's type F1 ties chain-of-thought's 1.000.
    expect(cell(page, COT, "overall")).to_have_class(BEST)
    expect(cell(page, FEW, "task:answer")).to_have_class(BEST)
    expect(cell(page, ZERO, "task:answer")).not_to_have_class(BEST)

    # Prompting: chain-of-thought up on the answers, few-shot down on the types.
    comparisons = page.get_by_test_id("comparison-row")
    expect(comparisons).to_have_count(2)
    cot = page.locator('[data-testid=comparison-row][data-comparison="cot-vs-direct"]')
    expect(cot.get_by_test_id("delta").first).to_contain_text("▲ +0.250")
    few = page.locator('[data-testid=comparison-row][data-comparison="few-shot-vs-zero-shot"]')
    expect(few.locator("[data-mark=down]").first).to_contain_text("▼ −0.417")

    # Label bias: the zero-shot run answers A three times; the key has one of each.
    chart = page.get_by_test_id("bias-chart")
    chart.scroll_into_view_if_needed()
    expect(chart.get_by_test_id("bias-task")).to_have_value("answer")
    chart.get_by_test_id("bias-row").select_option(ZERO)
    label_a = chart.locator("[data-testid=bias-table] tr[data-label=A]")
    expect(label_a.get_by_test_id("bias-predicted")).to_have_text("3")
    expect(label_a.get_by_test_id("bias-gold")).to_have_text("1")
    page.wait_for_function(
        """() => {
            const c = document.querySelector('[data-testid=bias-canvas]');
            if (!c || !c.width) return false;
            const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
            for (let i = 3; i < data.length; i += 4) if (data[i] > 0) return true;
            return false;
        }"""
    )
    chart.get_by_test_id("bias-task").select_option("type")
    expect(chart.locator("[data-testid=bias-table] tr[data-label=歧义]")).to_be_visible()
    page.screenshot(path=artifacts / "item-leaderboard.png", full_page=True)


def test_annotators_get_no_results_page(web_server, flub: dict, page: Page):
    base = web_server.url
    login(page, base, seed.OUTSIDER)
    page.goto(f"{base}/projects/{flub['project']}/")
    expect(page.get_by_test_id("tab-results")).to_have_count(0)
    page.goto(f"{base}/projects/{flub['project']}/results/")
    expect(page.get_by_test_id("results-page")).to_have_count(0)
    expect(page.get_by_test_id("not-found")).to_be_visible()
