"""Small edges in Chromium (see conftest.py): anonymous page loads without console errors,
the app's own 404 page, the favicon, confirming before cancelling a run; the history page as
a readable diff with usernames; the adjudication queue ordered by disagreement, and its save
button saying "Save" until the draft holds the document."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.browser import api, login
from tests.e2e.conftest import run_seed

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def edges(web_server) -> dict:
    return run_seed(web_server, "seed_edges.py")


def anonymous_visit(browser: Browser, base: str, artifacts) -> None:
    """No console error and no refused request while an anonymous visitor lands on the
    home page (sent to sign in) and the sign-in page."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = context.new_page()
        console: list[str] = []
        refused: list[str] = []
        page.on("console", lambda m: console.append(m.text) if m.type == "error" else None)
        page.on(
            "response", lambda r: refused.append(f"{r.status} {r.url}") if r.status >= 400 else None
        )
        page.goto(base + "/")
        page.wait_for_url(re.compile(r"/login/"))
        expect(page.get_by_label("Username")).to_be_visible()
        page.goto(base + "/documents/1/")  # a document page prefetches its data when signed in
        page.wait_for_url(re.compile(r"/login/\?next="))
        expect(page.get_by_label("Username")).to_be_visible()
        assert console == [] and refused == []

        # the app's own 404 page for a path that is nowhere, with a way to sign in
        response = page.goto(base + "/no/such/page/")
        assert response is not None and response.status == 404
        expect(page.get_by_test_id("not-found")).to_contain_text("Page not found")
        expect(page.get_by_role("link", name="Sign in")).to_be_visible()
        page.screenshot(path=str(artifacts / "edges-404-anonymous.png"))
        missing = page.request.get(base + "/api/no/such/thing/")
        assert missing.status == 404 and missing.json() == {"detail": "Not found."}

        # the favicon the page links to, and /favicon.ico for pages without a link
        href = page.locator("link[rel=icon]").get_attribute("href")
        icon = page.request.get(base + href)
        assert icon.ok and icon.headers["content-type"].startswith("image/svg+xml")
        ico = page.request.get(base + "/favicon.ico")
        assert ico.ok and ico.headers["content-type"] in (
            "image/x-icon",
            "image/vnd.microsoft.icon",
        )
        assert ico.body()[:4] == b"\x00\x00\x01\x00"  # an ICO file
    finally:
        context.close()


def test_anonymous_loads_404_favicon_and_a_confirmed_cancel(
    web_server, browser: Browser, page: Page, edges, artifacts
):
    base = web_server.url
    anonymous_visit(browser, base, artifacts)

    login(page, base, "demo-admin")
    response = page.goto(base + "/projects/nowhere/")
    assert response is not None and response.status == 404
    expect(page.get_by_test_id("not-found")).to_be_visible()
    expect(page.locator(".topbar")).to_be_visible()  # signed in: the app's bar and links
    expect(page.get_by_role("link", name="Back to your projects")).to_be_visible()
    page.screenshot(path=str(artifacts / "edges-404-signed-in.png"))

    run = edges["run"]["run"]
    page.goto(f"{base}/runs/{run}/")
    expect(page.get_by_test_id("run-status")).to_contain_text(re.compile("queued", re.I))
    page.get_by_test_id("run-cancel").click()
    dialog = page.get_by_test_id("cancel-dialog")
    expect(dialog).to_contain_text("Cancel this run?")
    page.screenshot(path=str(artifacts / "edges-cancel-confirm.png"))
    page.get_by_test_id("cancel-dialog-cancel").click()  # "Keep it running"
    expect(dialog).not_to_be_visible()
    assert api(page, base, "GET", f"/api/evaluation/runs/{run}/")["status"] == "queued"
    page.get_by_test_id("run-cancel").click()
    page.get_by_test_id("cancel-dialog-confirm").click()
    expect(page.get_by_test_id("run-status")).to_contain_text(re.compile("cancelled", re.I))
    assert api(page, base, "GET", f"/api/evaluation/runs/{run}/")["status"] == "cancelled"


def queue_names(page: Page) -> list[str]:
    return [
        t.strip() for t in page.locator("[data-testid=queue-row] td:first-child").all_inner_texts()
    ]


def test_the_queue_orders_by_disagreement_and_save_reads_save_until_stored(
    web_server, page: Page, edges, artifacts
):
    from tests.support.processes import celery_worker

    base = web_server.url
    project = edges["order"]["project"]
    login(page, base, "demo-reviewer")
    with celery_worker(dict(web_server.env), queues="default"):
        page.goto(f"{base}/projects/{project}/adjudication/")
        expect(page.get_by_test_id("queue-row")).to_have_count(4)
        expect(page.get_by_test_id("queue-computing")).to_have_count(0, timeout=90_000)
    expect(page.get_by_test_id("queue-measure")).to_contain_text(
        "share of a document's sentences where the annotators gave different fallacy types"
    )
    # most disagreement first; full agreement (same labels, or none at all) last
    assert queue_names(page) == [
        "all-differ",
        "one-of-three-differs",
        "same-everywhere",
        "nothing-said",
    ]
    shares = page.get_by_test_id("queue-disagreement").all_inner_texts()
    assert [s.strip() for s in shares] == ["100%", "33%", "none (0%)", "none (0%)"]
    page.screenshot(path=str(artifacts / "edges-adjudication-queue.png"))

    page.get_by_role("link", name="one-of-three-differs").click()
    expect(page.get_by_test_id("side-by-side")).to_be_visible()
    expect(page.get_by_test_id("adjudicate-page")).to_contain_text("No draft yet")
    save = page.get_by_test_id("save-gold")
    expect(save).to_contain_text("Save")
    expect(save).not_to_contain_text("Saved")
    page.screenshot(path=str(artifacts / "edges-adjudicate-no-draft.png"))
    page.get_by_test_id("accept-proposal-0").click()
    save.click()
    expect(page.get_by_test_id("save-message")).to_contain_text("Saved.")
    expect(page.get_by_test_id("adjudicate-page")).to_contain_text("Gold draft v1")
    expect(save).to_contain_text("Saved")


def test_history_reads_as_a_diff_with_usernames(
    web_server, browser: Browser, page: Page, edges, artifacts
):
    base = web_server.url
    document = edges["order"]["documents"]["all-differ"]
    url = f"/api/documents/{document}/adjudication/"
    login(page, base, "demo-reviewer")
    data = api(page, base, "GET", url)
    first = data["proposals"][0]
    span = {k: first[k] for k in ("start", "end", "labels", "proposed_by")}
    api(page, base, "PUT", url, {"revision": 0, "spans": [span]})
    admin = browser.new_context(viewport={"width": 1440, "height": 900})
    try:
        other = admin.new_page()
        login(other, base, "demo-admin")
        changed = {**span, "labels": ["ad hominem", "slippery slope"]}
        api(other, base, "PUT", url, {"revision": 1, "spans": [changed], "comments": ["checked"]})
    finally:
        admin.close()

    page.goto(f"{base}/documents/{document}/history/")
    table = page.get_by_test_id("history-table")
    expect(table).to_be_visible()
    saved_by = page.get_by_test_id("hist-line").filter(has_text="saved by").first
    expect(saved_by).to_contain_text("demo-reviewer")
    expect(saved_by).to_contain_text("demo-admin")
    proposed = page.get_by_test_id("hist-line").filter(has_text="proposed by").first
    expect(proposed).to_contain_text("edges-ann1")
    expect(proposed).to_contain_text("edges-ann2")
    expect(page.locator(".hist-added").filter(has_text="slippery slope").first).to_be_visible()
    expect(page.get_by_test_id("hist-line").filter(has_text="notes").first).to_contain_text(
        "checked"
    )
    expect(page.get_by_test_id("hist-excerpt").first).to_contain_text("The senator is a crook")
    # no raw JSON and no user ids in the changes column
    for cell in page.locator("[data-testid=history-row] td:last-child").all_inner_texts():
        assert not re.search(r"[{}\[\]\"]", cell), cell
        assert not re.search(r"(saved by|annotator)\s+\d", cell), cell
    page.screenshot(path=str(artifacts / "edges-history.png"), full_page=True)
