"""The generated items' review page in Chromium: a reviewer accepts one item,
edits another's sentence and rejects the third; the API shows each decision (who, the
edited text); the report page counts them (acceptance 2 of 3); the project admin publishes
the accepted items as a gold version (a new item project holding the edited sentence).
Data: ``tests/e2e/seed_generation.py``."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e import seed_generation as seed
from tests.e2e.browser import api, login
from tests.e2e.conftest import run_seed

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def seeded(web_server) -> dict:
    return run_seed(web_server, "seed_generation.py")


def test_reviewer_accepts_edits_rejects_and_admin_publishes(
    web_server, seeded: dict, page: Page, browser, artifacts
) -> None:
    base, job = web_server.url, seeded["job"]
    login(page, base, seed.REVIEWER)
    page.get_by_test_id("generation-link").click()
    page.wait_for_url(f"{base}/generation/")
    expect(page.get_by_test_id("generation-jobs")).to_contain_text(seed.PROJECT)
    page.goto(f"{base}/generation/jobs/{job}/")
    expect(page.get_by_test_id("generation-status")).to_contain_text("done")
    items = page.get_by_test_id("generation-item")
    expect(items).to_have_count(3)

    items.nth(0).get_by_test_id("item-accept").click()
    expect(items.nth(0)).to_have_attribute("data-review", "accepted")
    items.nth(1).get_by_test_id("item-edit").click()
    items.nth(1).get_by_test_id("item-edit-text").fill("Either we build roads or we ban cars.")
    items.nth(1).get_by_test_id("item-save-edit").click()
    expect(items.nth(1)).to_have_attribute("data-review", "accepted")
    expect(items.nth(1).get_by_test_id("item-text")).to_contain_text(
        "Either we build roads or we ban cars."
    )
    items.nth(2).get_by_test_id("item-reject").click()
    expect(items.nth(2)).to_have_attribute("data-review", "rejected")
    expect(page.get_by_test_id("generation-publish")).to_have_count(0)  # reviewers do not publish
    page.screenshot(path=str(artifacts / "generation-review.png"), full_page=True)

    stored = api(page, base, "GET", f"/api/evaluation/generation-jobs/{job}/items/")
    assert [i["review"] for i in stored] == ["accepted", "accepted", "rejected"]
    assert [i["reviewed_by"] for i in stored] == [seed.REVIEWER] * 3
    assert stored[1]["edited_text"] == "Either we build roads or we ban cars."
    assert stored[0]["edited_text"] == ""

    page.goto(f"{base}/generation/")
    report = page.get_by_test_id("generation-report")
    expect(report).to_contain_text("false dilemma")
    expect(report).to_contain_text("67%")  # 2 of 3 accepted
    expect(page.get_by_test_id("generation-chart").locator("canvas")).to_be_visible()

    other = browser.new_context(viewport={"width": 1440, "height": 900})
    admin = other.new_page()
    try:
        login(admin, base, seed.ADMIN)
        admin.goto(f"{base}/generation/jobs/{job}/")
        admin.get_by_test_id("generation-publish").click()
        expect(admin.get_by_test_id("generation-release")).to_contain_text("v1: 2 items")
        releases = api(
            admin, base, "GET", f"/api/evaluation/projects/{seeded['project']}/generation-releases/"
        )
        gold_project = releases[0]["gold_project"]
        texts = api(admin, base, "GET", f"/api/projects/{gold_project}/documents/?limit=10")
        assert releases[0]["items"] == 2 and gold_project != seeded["project"]
        assert texts["count"] == 2
    finally:
        other.close()
