"""Project pages in Chromium: reviewing two annotators' work read-only, opening without
creating, drag selection, and the paginated, searchable document list (see conftest.py)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser import api, login, point_in, wait_saved

pytestmark = pytest.mark.e2e


def open_document(page: Page, base: str, doc: int, annotator: int | None = None) -> None:
    page.goto(f"{base}/documents/{doc}/" + (f"?annotator={annotator}" if annotator else ""))
    page.wait_for_selector("html[data-ready=annotate]")


def span_labels(page: Page) -> list[str]:
    return [t.strip() for t in page.locator(".spans .span-item .span-labels").all_inner_texts()]


@pytest.mark.parametrize("staff", ["demo-reviewer", "demo-admin"])
def test_staff_review_submitted_document_read_only(web_server, page: Page, artifacts, staff):
    base = web_server.url
    review = web_server.seed["review"]
    ann1, ann2 = review["annotators"]["review-ann1"], review["annotators"]["review-ann2"]
    doc = review["document"]
    login(page, base, staff)
    before = api(page, base, "GET", f"/api/documents/{doc}/annotations/")
    assert [a["annotator"]["username"] for a in before] == ["review-ann1", "review-ann2"]

    open_document(page, base, doc)
    switch = page.get_by_test_id("annotator-switch")
    expect(switch.locator("option")).to_have_count(2)
    expect(switch.locator("option").nth(0)).to_have_text(re.compile(r"review-ann1 · submitted"))
    expect(switch.locator("option").nth(1)).to_have_text(re.compile(r"review-ann2 · submitted"))
    expect(page.get_by_test_id("viewed-annotator")).to_have_text("review-ann1")
    assert span_labels(page) == ["ad hominem"]
    expect(page.locator("#sent-0 + .chip")).to_have_count(1)  # the span ends on sentence 1

    # Nothing can be edited: no save status, no submit, no picker, no span actions.
    expect(page.locator(".save-status")).to_have_count(0)
    expect(page.get_by_role("button", name="Submit document")).to_have_count(0)
    page.locator("#sent-2").click()
    expect(page.locator(".sent.selected")).to_have_count(1)
    expect(page.get_by_role("button", name=re.compile("Label the selection"))).to_have_count(0)
    page.keyboard.press("Enter")
    expect(page.locator(".picker")).to_have_count(0)
    page.locator(".spans .span-item").first.click()
    expect(page.locator(".editor")).to_be_visible()
    expect(page.get_by_role("button", name=re.compile("Delete span"))).to_have_count(0)
    page.locator(".doc-text").focus()
    page.keyboard.press("Delete")
    page.keyboard.press("Control+z")
    page.screenshot(path=artifacts / f"review-{staff}-ann1.png")

    # Switch to the other annotator: their spans, and the URL says whose.
    switch.select_option(str(ann2))
    expect(page).to_have_url(re.compile(rf"\?annotator={ann2}$"))
    expect(page.get_by_test_id("viewed-annotator")).to_have_text("review-ann2")
    expect(page.locator(".spans .span-item")).to_have_count(1)
    assert span_labels(page) == ["appeal to fear"]
    expect(page.locator("#sent-1 + .chip")).to_have_count(1)
    page.screenshot(path=artifacts / f"review-{staff}-ann2.png")

    # A link (or reload) with ?annotator= opens that annotator; back returns to the first.
    page.reload()
    page.wait_for_selector("html[data-ready=annotate]")
    expect(page.get_by_test_id("viewed-annotator")).to_have_text("review-ann2")
    page.go_back()
    expect(page.get_by_test_id("viewed-annotator")).to_have_text("review-ann1")
    open_document(page, base, doc, ann1)
    assert span_labels(page) == ["ad hominem"]

    assert api(page, base, "GET", f"/api/documents/{doc}/annotations/") == before


def test_opening_a_document_creates_nothing(web_server, page: Page, artifacts):
    base = web_server.url
    review = web_server.seed["review"]
    doc, project = review["untouched_document"], review["project"]
    login(page, base, "review-ann1")
    in_progress = api(page, base, "GET", f"/api/projects/{project}/progress/")["totals"]
    open_document(page, base, doc)
    expect(page.locator(".save-status")).to_have_attribute("data-save-state", "saved")
    page.locator("#sent-1").click()  # selecting is not a change
    page.keyboard.press("ArrowDown")
    page.goto(f"{base}/projects/{project}/")
    page.wait_for_selector("html[data-ready=project]")
    assert api(page, base, "GET", f"/api/documents/{doc}/annotations/") == []
    resp = page.request.get(f"{base}/api/documents/{doc}/my-annotation/")
    assert resp.status == 404
    totals = api(page, base, "GET", f"/api/projects/{project}/progress/")["totals"]
    assert totals["in_progress"] == in_progress["in_progress"]
    row = page.locator(f'tr[data-doc-id="{doc}"]')
    expect(row).to_have_attribute("data-status", "todo")

    # A document that is not assigned to this annotator: the app's 404 page.
    other = api(page, base, "GET", "/api/auth/me/")
    assert other["username"] == "review-ann1"
    page.context.clear_cookies()
    login(page, base, "review-ann2")
    page.goto(f"{base}/documents/{doc}/")
    expect(page.get_by_test_id("not-found")).to_be_visible()
    page.screenshot(path=artifacts / "document-not-found.png")


def test_drag_selects_whole_sentences(web_server, page: Page, artifacts):
    base = web_server.url
    review = web_server.seed["review"]
    doc = review["drag_document"]
    login(page, base, "review-ann1")
    sentences = api(page, base, "GET", f"/api/documents/{doc}/")["sentences"]
    assert len(sentences) >= 3
    open_document(page, base, doc)

    # From the middle of sentence 1 to the middle of sentence 2's last line.
    first, second = (point_in(page, "#sent-0", 0), point_in(page, "#sent-1", -1))
    page.mouse.move(*first)
    page.mouse.down()
    page.mouse.move(*second, steps=8)
    page.mouse.up()
    expect(page.locator(".sent.selected")).to_have_count(2)
    expect(page.locator("#sent-0")).to_have_attribute("aria-selected", "true")
    expect(page.locator("#sent-1")).to_have_attribute("aria-selected", "true")
    expect(page.locator("#sent-2")).to_have_attribute("aria-selected", "false")
    expect(page.get_by_role("heading", name="Sentences 1–2 selected")).to_be_visible()
    assert page.evaluate("window.getSelection().toString()") == ""  # no character selection
    page.screenshot(path=artifacts / "drag-selection.png")

    # Label it: the first change creates the annotation, with exactly those sentences.
    assert api(page, base, "GET", f"/api/documents/{doc}/annotations/") == []
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Label sentences 1–2")).to_be_visible()
    page.keyboard.type("ad hom")
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")
    expect(page.locator(".editor")).to_be_visible()
    page.keyboard.press("Escape")
    wait_saved(page)
    annotations = api(page, base, "GET", f"/api/documents/{doc}/annotations/")
    assert len(annotations) == 1 and annotations[0]["status"] == "in_progress"
    [span] = annotations[0]["spans"]
    assert (span["start"], span["end"]) == (sentences[0]["start"], sentences[1]["end"])
    assert span["labels"] == ["ad hominem"]


def test_project_page_paginates_searches_and_keeps_state(web_server, page: Page, artifacts):
    base = web_server.url
    review = web_server.seed["review"]
    project, total = review["project"], review["documents"]
    login(page, base, "demo-reviewer")
    page.goto(f"{base}/projects/{project}/")
    page.wait_for_selector("html[data-ready=project]")
    rows = page.get_by_test_id("doc-row")
    expect(rows).to_have_count(25)
    expect(page.get_by_test_id("documents-pager")).to_contain_text(f"1–25 of {total}")
    expect(page.get_by_test_id("progress-panel")).to_contain_text(f"of {total} documents done")
    expect(page.get_by_test_id("annotator-progress").locator("tbody tr")).to_have_count(2)
    expect(rows.first).to_contain_text("submitted 2 of 2")
    expect(rows.nth(1)).to_contain_text("submitted 0 of 2")
    page.screenshot(path=artifacts / "project-page-staff.png")

    page.get_by_test_id("documents-pager").get_by_role("button", name=re.compile("Next")).click()
    expect(rows).to_have_count(total - 25)
    expect(page).to_have_url(re.compile(r"\?page=2$"))
    page.go_back()
    expect(rows).to_have_count(25)
    page.go_forward()
    expect(rows).to_have_count(total - 25)

    page.get_by_test_id("doc-search").fill("zeppelin")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("review-17")
    expect(page).to_have_url(re.compile(r"\?q=zeppelin$"))  # a new search starts at page 1
    page.reload()
    page.wait_for_selector("html[data-ready=project]")
    expect(rows).to_have_count(1)
    expect(page.get_by_test_id("doc-search")).to_have_value("zeppelin")
    page.get_by_test_id("doc-search").fill("")
    expect(rows).to_have_count(25)

    page.get_by_test_id("page-size").select_option("50")
    expect(rows).to_have_count(total)
    page.locator('button[data-sort="position"]').click()  # position, descending
    expect(rows.first).to_contain_text(f"review-{total:02d}")
    page.get_by_test_id("status-filter").select_option("done")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("review-01")
    expect(page).to_have_url(re.compile(r"size=50.*status=done.*sort=-position"))
    page.get_by_test_id("status-filter").select_option("")
    ann2 = review["annotators"]["review-ann2"]
    page.get_by_test_id("annotator-filter").select_option(str(ann2))
    expect(rows).to_have_count(1)
    rows.first.get_by_role("link", name="View", exact=True).click()
    page.wait_for_selector("html[data-ready=annotate]")
    expect(page.get_by_test_id("viewed-annotator")).to_have_text("review-ann2")


def test_annotator_queue_tells_the_truth(web_server, page: Page, artifacts):
    base = web_server.url
    review = web_server.seed["review"]
    login(page, base, "review-ann2")  # one document, submitted
    card = page.locator(".project-card", has_text="Review: two annotators")
    expect(card).to_contain_text("All 1 of your documents are submitted")
    expect(card.get_by_role("button", name=re.compile("Start|Continue"))).to_have_count(0)
    page.goto(f"{base}/projects/{review['project']}/")
    page.wait_for_selector("html[data-ready=project]")
    expect(page.get_by_test_id("my-progress")).to_have_text(
        "All 1 of your documents are submitted. Thank you!"
    )
    expect(page.get_by_test_id("continue")).to_have_count(0)
    expect(page.get_by_test_id("doc-row")).to_have_count(1)
    expect(page.get_by_test_id("progress-panel")).to_have_count(0)
    page.screenshot(path=artifacts / "project-page-annotator-done.png")
    page.context.clear_cookies()

    login(page, base, "review-ann1")  # 30 documents, one submitted: Continue opens the next
    page.goto(f"{base}/projects/{review['project']}/")
    page.wait_for_selector("html[data-ready=project]")
    expect(page.get_by_test_id("my-progress")).to_contain_text("1 of your 30 documents submitted")
    page.get_by_test_id("continue").click()
    page.wait_for_selector("html[data-ready=annotate]")
    assert "/documents/" in page.url
