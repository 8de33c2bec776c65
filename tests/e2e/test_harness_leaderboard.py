"""Runs imported from harness logs on the leaderboard of their gold version in Chromium: beside
the platform's own run, marked imported, with the harness and its version, and the F1 the
harness reported (the data is ``tests/e2e/seed_harness.py``)."""

from __future__ import annotations

from importlib.metadata import version

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser import login
from tests.e2e.conftest import run_seed

pytestmark = pytest.mark.e2e


def test_imported_harness_runs_stand_beside_a_platform_run(
    web_server, page: Page, artifacts
) -> None:
    seed = run_seed(web_server, "seed_harness.py")
    base = web_server.url
    login(page, base, seed["admin"])
    page.goto(f"{base}/projects/{seed['project']}/leaderboard/{seed['gold']}/")
    table = page.get_by_test_id("leaderboard-table")
    expect(table).to_be_visible(timeout=30_000)
    expect(table.locator("tr[data-kind=run]")).to_have_count(3)

    platform = table.locator('tr[data-name="platform run"]')
    expect(platform.get_by_test_id("imported-badge")).to_have_count(0)
    inspect_row = table.locator('tr[data-name="inspect mock"]')
    expect(inspect_row.get_by_test_id("imported-badge")).to_have_text("imported")
    expect(inspect_row).to_contain_text(f"mockllm/model · inspect_ai {version('inspect_ai')}")
    f1 = inspect_row.locator('td.f1[data-level="2"]')
    assert float(f1.get_attribute("data-f1")) == pytest.approx(seed["inspect_f1"], abs=1e-12)
    lm_eval_row = table.locator('tr[data-name="lm-eval log"]')
    expect(lm_eval_row.get_by_test_id("imported-badge")).to_be_visible()
    expect(lm_eval_row).to_contain_text(f"lm-evaluation-harness {version('lm_eval')}")
    page.screenshot(path=str(artifacts / "leaderboard-harness-runs.png"), full_page=True)
