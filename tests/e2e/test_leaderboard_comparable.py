"""The leaderboard of a gold version in Chromium: runs and a human scored on different
texts are ranked apart with their coverage, and neighbours carry the paired test with its
mark (the data is ``tests/e2e/seed_leaderboard.py``)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser import login
from tests.e2e.conftest import run_seed

pytestmark = pytest.mark.e2e


def test_rows_on_different_texts_are_ranked_apart(web_server, page: Page, artifacts) -> None:
    seed = run_seed(web_server, "seed_leaderboard.py")
    base = web_server.url
    login(page, base, seed["admin"])
    page.goto(f"{base}/projects/{seed['project']}/leaderboard/{seed['gold']}/")
    table = page.get_by_test_id("leaderboard-table")
    expect(table).to_be_visible(timeout=30_000)

    groups = table.get_by_test_id("leaderboard-group")
    expect(groups).to_have_count(3)
    full, human, tiny = groups.nth(0), groups.nth(1), groups.nth(2)
    expect(full.locator("tr[data-name]")).to_have_count(2)
    expect(full.locator("tr[data-name]").nth(0)).to_have_attribute("data-name", "strong")
    expect(full.get_by_test_id("group-title")).to_have_count(0)  # the full-coverage group
    strong_test = full.locator('tr[data-name="strong"]').get_by_test_id("next-test")
    expect(strong_test).to_have_attribute("data-significant", "true")
    expect(strong_test).to_contain_text("* +0.50 · p")
    explained = r"^Against weak on 20 common texts: difference \+0\.50, .*: significantly different"
    expect(strong_test).to_have_attribute("title", re.compile(explained))

    expect(human.get_by_test_id("group-title")).to_contain_text(
        "Scored on 5 of 20 texts: ranked apart"
    )
    expect(human.get_by_test_id("coverage")).to_have_text("5/20")
    expect(tiny.get_by_test_id("group-title")).to_contain_text(
        "Scored on 2 of 20 texts: ranked apart"
    )
    expect(tiny.get_by_test_id("group-title")).to_contain_text(
        "tiny against strong on their 2 common texts: +1.00"
    )
    tiny_row = tiny.locator('tr[data-name="tiny"]')
    expect(tiny_row.get_by_test_id("coverage")).to_have_text("2/20")
    expect(tiny_row.locator('td.f1[data-level="2"]')).to_have_attribute("data-f1", "1")
    expect(page.get_by_test_id("significance-note")).to_contain_text("paired bootstrap")
    page.screenshot(path=str(artifacts / "leaderboard-comparable.png"), full_page=True)

    # any two rows, picked under the table: strong against tiny on their two common texts
    pair = page.get_by_test_id("compare-pair")
    pair.scroll_into_view_if_needed()
    pair.get_by_test_id("compare-a").select_option(label="strong")
    pair.get_by_test_id("compare-b").select_option(label="tiny")
    line = pair.get_by_test_id("compare-line")
    expect(line).to_contain_text("= -1.000")
    expect(line).to_contain_text("over 2 (not significant at 0.05)")
