"""Who and what the pages name, in Chromium (tests/e2e/seed_identity.py): a run is named by
its model and its path shows in the configuration panel only (run page, runs list,
leaderboard); the document list says who is assigned; adding a member suggests usernames."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser import login
from tests.e2e.conftest import LiveServer, run_seed

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def seed(web_server: LiveServer) -> dict:
    return run_seed(web_server, "seed_identity.py")


def test_runs_show_the_model_name_and_keep_the_path_in_the_configuration(
    web_server, page: Page, artifacts, seed
):
    base, label, path = web_server.url, seed["label"], seed["model_path"]
    login(page, base, "id-admin")
    page.goto(f"{base}/runs/{seed['run']}/")
    expect(page.get_by_test_id("run-name")).to_have_text(f"{label} · zero-shot v1 · L2")
    expect(page.get_by_test_id("run-model")).to_have_text(label)
    config = page.get_by_test_id("run-config")
    config.locator("summary").click()
    expect(config).to_contain_text(path)
    page.screenshot(path=artifacts / "identity-run.png")
    config.locator("summary").click()  # closed again: the path is nowhere else on the page
    assert path not in page.locator("body").inner_text()

    page.goto(f"{base}/projects/{seed['project']}/runs/")
    row = page.locator(f"tr[data-run-id='{seed['run']}']")
    expect(row).to_contain_text(label)
    assert path not in page.locator("body").inner_text()

    page.goto(f"{base}/projects/{seed['project']}/leaderboard/{seed['gold']}/")
    expect(page.locator("body")).to_contain_text(label)
    assert path not in page.locator("body").inner_text()
    page.screenshot(path=artifacts / "identity-leaderboard.png")


def test_document_list_names_who_is_assigned(web_server, page: Page, artifacts, seed):
    base = web_server.url
    login(page, base, "id-admin")
    page.goto(f"{base}/projects/{seed['project']}/")
    cells = page.get_by_test_id("doc-annotators")
    expect(cells).to_have_count(2)
    first = cells.first.locator("a.who")
    expect(first).to_have_text([re.compile("id-ann1"), re.compile("id-ann2")])
    expect(first.first).to_have_class(re.compile("submitted"))
    expect(first.nth(1)).to_have_class(re.compile("todo"))
    page.screenshot(path=artifacts / "identity-document-list.png")
    first.first.click()  # opens that annotator's annotation
    page.wait_for_selector("html[data-ready=annotate]")
    expect(page.get_by_test_id("viewed-annotator")).to_have_text("id-ann1")


def test_adding_a_member_suggests_usernames_the_admin_already_sees(
    web_server, page: Page, artifacts, seed
):
    base = web_server.url
    login(page, base, "id-admin")
    page.goto(f"{base}/projects/{seed['project']}/members/")
    field = page.get_by_test_id("member-user")
    field.fill("id-a")
    suggestions = page.get_by_test_id("member-suggestions")
    # id-annabel shares a project with the admin; id-anna does not; members are not offered
    expect(suggestions.get_by_role("option")).to_have_text(["id-annabel"])
    page.screenshot(path=artifacts / "identity-member-suggestions.png")
    field.press("ArrowDown")
    expect(field).to_have_attribute("aria-activedescendant", "member-suggestion-0")
    suggestions.get_by_role("option", name="id-annabel").click()
    expect(field).to_have_value("id-annabel")
    expect(suggestions).to_have_count(0)
    page.get_by_test_id("add-member").click()
    expect(page.get_by_test_id("member-added")).to_contain_text("Added id-annabel")
