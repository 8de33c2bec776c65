"""Bringing someone new in from the browser: a project admin who is no superuser creates an
invitation on the Members tab, the invited person opens the link in a fresh browser,
chooses a username and password and lands in the project; the link then works no more.
Adding an account the admin shares no project with is refused as for a missing one."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.browser import login
from tests.e2e.conftest import LiveServer, run_seed

pytestmark = pytest.mark.e2e
NEWCOMER = ("inv-newcomer", "Invited-e2e-Pass-2026")


@pytest.fixture(scope="module")
def seed(web_server: LiveServer) -> dict:
    return run_seed(web_server, "seed_invitations.py")


def open_link(browser: Browser, link: str) -> Page:
    """The link in a browser context of its own: no session, no cookies."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(10_000)
    page = context.new_page()
    page.goto(link)
    return page


def test_an_invited_person_joins_from_the_link_and_sees_the_project(
    web_server, browser, page: Page, artifacts, seed
):
    base = web_server.url
    login(page, base, "inv-admin")
    page.goto(f"{base}/projects/{seed['project']}/members/")
    page.get_by_test_id("member-user").fill("inv-stranger")
    page.get_by_test_id("add-member").click()
    expect(page.get_by_text(re.compile("no user you share a project with"))).to_be_visible()

    panel = page.get_by_test_id("invite-panel")
    panel.get_by_label("Role when joining").select_option("reviewer")
    panel.get_by_test_id("invite-submit").click()
    link = page.get_by_test_id("invite-link").input_value()
    assert re.fullmatch(rf"{re.escape(base)}/invite/[A-Za-z0-9_-]{{40,}}/", link), link
    expect(panel.get_by_test_id("invitation-row")).to_have_count(1)
    page.screenshot(path=artifacts / "invitations-created.png")

    invited = open_link(browser, link)
    expect(invited.get_by_test_id("invite-offer")).to_contain_text(seed["name"])
    expect(invited.get_by_test_id("invite-offer")).to_contain_text("reviewer")
    username, password = NEWCOMER
    invited.get_by_label("Username").fill(username)
    invited.get_by_label("Password", exact=True).fill(password)
    invited.get_by_label("Password again").fill(password)
    invited.screenshot(path=artifacts / "invitations-accept.png")
    invited.get_by_test_id("invite-join").click()
    invited.wait_for_url(f"{base}/projects/{seed['project']}/")
    expect(invited.get_by_test_id("project-page")).to_contain_text(seed["name"])
    invited.screenshot(path=artifacts / "invitations-joined.png")
    invited.context.close()

    page.reload()
    row = page.locator(f'[data-testid="member-row"][data-username="{username}"]')
    expect(row.get_by_label(f"Role of {username}")).to_have_value("reviewer")
    expect(page.get_by_test_id("invitations-empty")).to_be_visible()

    again = open_link(browser, link)  # single use
    expect(again.get_by_test_id("invite-refused")).to_contain_text("already used")
    again.context.close()

    fresh = open_link(browser, f"{base}/login/")  # the new account signs in as anyone does
    fresh.get_by_label("Username").fill(username)
    fresh.get_by_label("Password").fill(password)
    fresh.keyboard.press("Enter")
    fresh.wait_for_url(base + "/")
    expect(fresh.get_by_text(seed["name"]).first).to_be_visible()
    fresh.context.close()
