"""Previous / next document in Chromium (tests/e2e/seed_queue.py): an annotator walks their
queue with the buttons and the [ and ] keys, from a submitted document too, and the keys do
nothing while typing; a reviewer walks the project's documents read-only, and one
annotator's documents keeping the ?annotator= filter; at 1,024 px the breadcrumbs stay and
the save badge covers no button."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser import login
from tests.e2e.conftest import LiveServer, run_seed

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def seed(web_server: LiveServer) -> dict:
    return run_seed(web_server, "seed_queue.py")


def open_document(page: Page, base: str, doc: int) -> None:
    page.goto(f"{base}/documents/{doc}/")
    page.wait_for_selector("html[data-ready=annotate]")


def on_document(page: Page, base: str, doc: int, position: str) -> None:
    expect(page).to_have_url(f"{base}/documents/{doc}/")
    page.wait_for_selector("html[data-ready=annotate]")
    expect(page.get_by_test_id("doc-position")).to_have_text(position)


def test_annotator_walks_the_queue_with_buttons_and_keys(web_server, page: Page, artifacts, seed):
    base = web_server.url
    d1, d2, d3, d4 = seed["documents"]
    login(page, base, "queue-ann")
    open_document(page, base, d1)  # submitted: the buttons are there all the same
    expect(page.get_by_test_id("view-banner")).to_contain_text("Submitted")
    on_document(page, base, d1, "1 / 3")
    expect(page.get_by_test_id("doc-prev")).to_have_attribute("aria-disabled", "true")
    page.screenshot(path=artifacts / "doc-nav-submitted.png")

    page.get_by_test_id("doc-next").click()
    on_document(page, base, d2, "2 / 3")
    page.keyboard.press("]")
    on_document(page, base, d3, "3 / 3")
    expect(page.get_by_test_id("doc-next")).to_have_attribute("aria-disabled", "true")
    page.keyboard.press("]")  # the end of the queue: stays (d4 is not assigned to me)
    on_document(page, base, d3, "3 / 3")
    page.keyboard.press("[")
    on_document(page, base, d2, "2 / 3")
    page.go_back()
    on_document(page, base, d3, "3 / 3")

    # Typing "]" or "[" in a field types it: the label picker's search box keeps it.
    page.locator("#sent-0").click()
    page.keyboard.press("Enter")
    search = page.get_by_role("heading", name=re.compile("Label sentence"))
    expect(search).to_be_visible()
    page.keyboard.type("ad [hom]")
    expect(page.get_by_label("Filter labels")).to_have_value("ad [hom]")
    expect(page).to_have_url(f"{base}/documents/{d3}/")
    page.screenshot(path=artifacts / "doc-nav-typing.png")
    page.keyboard.press("Escape")
    assert d4 not in (d1, d2, d3)


def test_reviewer_walks_the_project_read_only(web_server, page: Page, artifacts, seed):
    base = web_server.url
    d1, d2, d3, d4 = seed["documents"]
    login(page, base, "queue-rev")
    open_document(page, base, d3)
    on_document(page, base, d3, "3 / 4")
    expect(page.get_by_test_id("doc-next")).to_have_attribute("title", re.compile("queue-4"))
    page.keyboard.press("]")
    on_document(page, base, d4, "4 / 4")  # unassigned documents are in the reviewer's walk
    expect(page.get_by_test_id("view-banner")).to_contain_text("nobody has annotated")
    page.get_by_test_id("doc-prev").click()
    on_document(page, base, d3, "3 / 4")
    page.keyboard.press("[")
    on_document(page, base, d2, "2 / 4")
    page.keyboard.press("[")
    on_document(page, base, d1, "1 / 4")
    expect(page.get_by_test_id("viewed-annotator")).to_have_text("queue-ann")
    page.screenshot(path=artifacts / "doc-nav-reviewer.png")


def test_reviewer_reading_one_annotator_keeps_the_filter(web_server, page: Page, artifacts, seed):
    base = web_server.url
    d1, d2, d3, d4 = seed["documents"]
    who = seed["annotators"]["queue-ann2"]
    login(page, base, "queue-rev")
    page.set_viewport_size({"width": 1024, "height": 768})
    page.goto(f"{base}/documents/{d3}/?annotator={who}")
    page.wait_for_selector("html[data-ready=annotate]")
    # queue-ann2 has started d1 and d3 only: their walk is those two, in project order
    expect(page.get_by_test_id("doc-position")).to_have_text("2 / 2")
    expect(page.get_by_test_id("viewed-annotator")).to_have_text("queue-ann2")
    expect(page.get_by_test_id("doc-prev")).to_have_attribute(
        "href", f"/documents/{d1}/?annotator={who}"
    )
    page.keyboard.press("[")
    expect(page).to_have_url(f"{base}/documents/{d1}/?annotator={who}")
    expect(page.get_by_test_id("doc-position")).to_have_text("1 / 2")
    # d1 has a submitted annotation by queue-ann too: the filter still shows queue-ann2's
    expect(page.get_by_test_id("viewed-annotator")).to_have_text("queue-ann2")
    page.keyboard.press("]")
    expect(page).to_have_url(f"{base}/documents/{d3}/?annotator={who}")
    expect(page.get_by_test_id("viewed-annotator")).to_have_text("queue-ann2")
    # the breadcrumbs stay at 1,024 px: the project's link and the document's name
    expect(page.locator("nav.crumbs")).to_be_visible()
    expect(page.locator("nav.crumbs a:visible").first).to_have_text("Queue navigation")
    expect(page.locator("nav.crumbs .doc-title")).to_be_visible()
    page.screenshot(path=artifacts / "doc-nav-reviewer-filter-1024.png")
    assert d2 not in (d1, d3) and d4 not in (d1, d3)


def overlap(a: dict, b: dict) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


def test_at_1024_px_the_save_badge_covers_no_button(web_server, page: Page, artifacts, seed):
    base = web_server.url
    d1, d2, _, _ = seed["documents"]
    login(page, base, "queue-ann")
    page.set_viewport_size({"width": 1024, "height": 768})
    open_document(page, base, d2)
    badge = page.locator(".save-status")
    expect(badge).to_be_visible()
    guide = page.get_by_role("button", name=re.compile("Guidelines"))
    expect(guide).to_be_visible()
    buttons = [guide, page.get_by_test_id("doc-next"), page.get_by_test_id("doc-prev")]
    for button in buttons:
        assert not overlap(badge.bounding_box(), button.bounding_box())
    # nothing of the top bar runs past the window
    for item in page.locator(".topbar a:visible, .topbar button:visible").all():
        b = item.bounding_box()
        assert b["x"] >= 0 and b["x"] + b["width"] <= 1024 + 0.5, item.inner_text()
    expect(page.locator("nav.crumbs a:visible").first).to_have_text("Queue navigation")
    page.screenshot(path=artifacts / "doc-nav-1024-topbar.png")
    assert d1 != d2
