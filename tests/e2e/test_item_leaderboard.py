"""The results page of a FLUB-like item project in Chromium: a reviewer finds the runs of
one model under three prompt variants and the human baseline in the leaderboard, the
geometric overall, the prompting deltas and the label-bias chart (see conftest.py; the data
is ``tests/e2e/seed_item_results.py``); then an admin launches a run on the project's type
question from the launch page, a real worker runs it, and it joins the results."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from tests.e2e import seed_item_results as seed
from tests.e2e.browser import api, login
from tests.e2e.conftest import ROOT, run_seed
from tests.support.processes import celery_worker

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


def assert_prompting_deltas(page: Page) -> None:
    """The two prompting comparisons and their deltas."""
    # Prompting: chain-of-thought up on the answers, few-shot down on the types.
    comparisons = page.get_by_test_id("comparison-row")
    expect(comparisons).to_have_count(2)
    cot = page.locator('[data-testid=comparison-row][data-comparison="cot-vs-direct"]')
    expect(cot.get_by_test_id("delta").first).to_contain_text("▲ +0.250")
    few = page.locator('[data-testid=comparison-row][data-comparison="few-shot-vs-zero-shot"]')
    expect(few.locator("[data-mark=down]").first).to_contain_text("▼ −0.417")


def assert_label_bias_chart(page: Page) -> None:
    """The label-bias chart: the zero-shot run's answers against the key, drawn, and the
    type task's labels."""
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
    # the board is on screen once its answer came: the server's first one computes it and
    # imports the scorers' libraries (a CI run saw that take over 5 s beside other tests)
    page.wait_for_selector("html[data-ready=results]", timeout=60_000)

    rows = page.get_by_test_id("results-row")
    expect(rows).to_have_count(4)  # three prompt variants of one model, one human
    # Best overall first among rows scored on the same items: chain-of-thought, zero-shot,
    # few-shot; the human answered three of the four items and is ranked apart, after them.
    expect(rows.nth(0)).to_have_attribute("data-row", COT)
    expect(rows.nth(1)).to_have_attribute("data-row", ZERO)
    human = rows.nth(3)
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

    assert_prompting_deltas(page)
    assert_label_bias_chart(page)
    page.screenshot(path=artifacts / "item-leaderboard.png", full_page=True)


def test_annotators_get_no_results_page(web_server, flub: dict, page: Page):
    base = web_server.url
    login(page, base, seed.OUTSIDER)
    page.goto(f"{base}/projects/{flub['project']}/")
    expect(page.get_by_test_id("tab-results")).to_have_count(0)
    page.goto(f"{base}/projects/{flub['project']}/results/")
    expect(page.get_by_test_id("results-page")).to_have_count(0)
    expect(page.get_by_test_id("not-found")).to_be_visible()


@pytest.fixture(scope="module")
def worker(web_server) -> Iterator[None]:
    env = {**web_server.env, "PYTHONPATH": os.pathsep.join([str(ROOT / "platform"), str(ROOT)])}
    with celery_worker(env):
        yield


def test_an_admin_launches_an_item_run_on_a_question_and_it_joins_the_results(
    web_server, flub: dict, worker, page: Page, artifacts
):
    base = web_server.url
    project = flub["project"]
    login(page, base, "demo-admin")  # a superuser: admin of every project
    page.goto(f"{base}/projects/{project}/runs/new/")
    expect(page.get_by_test_id("launch-form")).to_be_visible()
    expect(page.get_by_test_id("gold-select")).to_have_count(0)  # items have no gold version
    expect(page.get_by_test_id("level-select")).to_have_count(0)
    field = page.get_by_test_id("field-select")
    expect(field).to_have_value("answer")  # the form's first question a task answers
    tasks = {v["id"]: v["task"] for v in api(page, base, "GET", "/api/evaluation/variants/")}
    variants = page.get_by_test_id("variant-option")

    def offered_tasks() -> set[str]:
        ids = [int(x) for x in variants.evaluate_all("els => els.map(e => e.dataset.variantId)")]
        return {tasks[i] for i in ids}

    expect(variants.first).to_be_visible()
    assert offered_tasks() == {"multiple-choice"}
    field.select_option("type")
    expect(variants.filter(has_text="zero-shot")).to_have_count(1)
    assert offered_tasks() == {"classification"}
    expect(variants.filter(has_text="zero-shot").locator("input")).to_be_checked()

    for option in page.get_by_test_id("model-option").all():
        option.locator("input[type=checkbox]").uncheck()
    page.locator("[data-testid=model-option][data-backend=random]").locator("input").check()
    expect(page.get_by_test_id("launch-count")).to_have_text("Starts 1 run.")
    page.get_by_test_id("name-input").fill("random types")
    page.screenshot(path=artifacts / "item-launch.png", full_page=True)
    page.get_by_test_id("launch-submit").click()
    page.wait_for_url(re.compile(r"/runs/\d+/$"))
    run_page = page.get_by_test_id("run-page")
    expect(run_page).to_have_attribute("data-status", "done", timeout=180_000)

    run_id = int(run_page.get_attribute("data-run-id"))
    run = api(page, base, "GET", f"/api/evaluation/runs/{run_id}/")
    assert (run["task"], run["backend"], run["total"], run["done"]) == (
        "classification",
        "random",
        4,
        4,
    )
    page.goto(f"{base}/projects/{project}/results/")
    row = page.locator('[data-testid=results-row][data-row^="random|"]')
    expect(row).to_have_count(1)
    expect(row.locator('td[data-column="task:type"]')).to_have_text(re.compile(r"^\d\.\d{3}$"))


def test_a_reviewer_reads_the_raters_alpha_and_the_judge_correlation(
    web_server, page: Page, artifacts
):
    import krippendorff
    import numpy as np
    from scipy.stats import spearmanr

    from tests.support.ratings import QUALITY

    seeded = run_seed(web_server, "seed_ratings.py")
    base = web_server.url
    login(page, base, seeded["reviewer"])
    page.goto(f"{base}/projects/{seeded['project']}/results/")
    panel = page.get_by_test_id("ratings-panel")
    expect(panel).to_be_visible()
    quality = panel.locator("[data-testid=ratings-row][data-field=quality]")
    data = np.array([[np.nan if v is None else v for v in row] for row in QUALITY.values()])
    for level in ("interval", "ordinal"):
        alpha = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
        expect(quality.get_by_test_id(f"alpha-{level}")).to_have_text(f"{alpha:.3f}")

    panel.get_by_test_id("ratings-judge").select_option(str(seeded["judge_run"]))
    # the judge's mean score per item over its parseable repeats (tests.support.ratings.JUDGE);
    # item 4 has none
    judge = [3.0, 2.5, 2 / 3, 0.0, None, 8 / 3]
    humans = np.nanmean(data, axis=0)
    both = [i for i in range(6) if judge[i] is not None]
    rho = spearmanr([humans[i] for i in both], [judge[i] for i in both]).statistic
    rho_cell = quality.get_by_test_id("judge-rho")
    expect(rho_cell).to_contain_text(f"{rho:.3f}")
    expect(rho_cell).to_contain_text("n 5")
    page.screenshot(path=artifacts / "ratings-panel.png", full_page=True)
