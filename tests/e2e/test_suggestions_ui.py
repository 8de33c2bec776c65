"""Suggestions on the annotation page in Chromium: in an assisted project an
annotator sees the models' suggestions apart from their spans, accepts one and rejects
another from the keyboard (and accepts a whole sentence), the accepted ones become their own
editable spans without a reload and without autosave making them twice, and the API shows
the decisions; in an unassisted project neither the page nor the API shows any.

Data: ``tests/e2e/seed_suggestions.py`` (see its table), on the servers of conftest.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e import seed_suggestions as seed
from tests.e2e.browser import api, login, wait_saved
from tests.e2e.conftest import run_seed

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def projects(web_server) -> dict:
    return run_seed(web_server, "seed_suggestions.py")


def open_document(page: Page, base: str, doc: int, suggestions: str) -> None:
    page.goto(f"{base}/documents/{doc}/")
    page.wait_for_selector("html[data-ready]")
    # the page has the suggestions' answer (count shown, or 0 for none)
    expect(page.locator(".annotate")).to_have_attribute("data-suggestions", suggestions)


def item(page: Page, sentence: int):
    return page.locator(f'[data-testid=suggestion][data-sentence="{sentence}"]')


def suggestions_are_shown_apart(page: Page, artifacts: Path) -> None:
    """Shown apart from the (no) spans, each with the run and model named."""
    panel = page.get_by_test_id("suggestions-panel")
    expect(panel).to_be_visible()
    expect(page.get_by_test_id("suggestion")).to_have_count(3)
    expect(item(page, 0)).to_contain_text("ad hominem")
    expect(item(page, 0).get_by_test_id("suggestion-model")).to_have_text("run-one · model-one")
    expect(item(page, 1)).to_contain_text("false dilemma")
    expect(item(page, 1).get_by_test_id("suggestion-model")).to_have_text("run-two · model-two")
    expect(item(page, 2)).to_contain_text("slippery slope")
    expect(page.locator(".sent.suggested")).to_have_count(3)
    expect(page.get_by_role("heading", name="Spans (0)")).to_be_visible()
    expect(page.locator(".chip")).to_have_count(0)  # suggestions are not spans
    expect(page.locator(".shortcuts")).to_contain_text("Accept the focused suggestion")
    page.screenshot(path=artifacts / "suggestions.png")


def accept_and_reject_from_the_keyboard(page: Page) -> None:
    """Keyboard: accept sentence 1's, reject sentence 2's."""
    page.keyboard.press("ArrowDown")  # sentence 1
    expect(item(page, 0)).to_have_attribute("aria-current", "true")
    page.keyboard.press("y")
    expect(item(page, 0)).to_have_attribute("data-decision", "accept")
    expect(page.get_by_role("heading", name="Spans (1)")).to_be_visible()
    expect(page.locator(".chip")).to_have_count(1)
    expect(page.locator(".chip").first).to_have_text("ad hominem")
    page.keyboard.press("ArrowDown")  # sentence 2
    page.keyboard.press("n")
    expect(item(page, 1)).to_have_attribute("data-decision", "reject")
    expect(page.get_by_role("heading", name="Spans (1)")).to_be_visible()


def skip_and_accept_all(page: Page) -> None:
    """S goes to the next undecided one, Shift+Y accepts all on its sentence."""
    page.keyboard.press("s")
    expect(page.locator("#sent-2.focus")).to_have_count(1)
    page.keyboard.press("Shift+Y")
    expect(item(page, 2)).to_have_attribute("data-decision", "accept")
    expect(page.get_by_role("heading", name="Spans (2)")).to_be_visible()
    expect(page.locator(".sent.suggested")).to_have_count(0)


def edit_an_accepted_span(page: Page, artifacts: Path) -> None:
    """The accepted span is mine and editable like any span (saved in place)."""
    page.keyboard.press("e")
    box = page.locator('.editor textarea[data-explanation="slippery slope"]')
    expect(box).to_have_value("")  # an empty template
    box.click()
    page.keyboard.type("One step does not make the collapse follow.")
    page.keyboard.press("Escape")
    wait_saved(page)
    page.screenshot(path=artifacts / "suggestions-decided.png")


def api_sees_own_spans_and_the_rejection(
    page: Page, base: str, doc: int, sentences: list[dict]
) -> None:
    """The API: accepted = my own spans (once each), the rejection recorded."""
    mine = api(page, base, "GET", f"/api/documents/{doc}/my-annotation/")
    spans = sorted(mine["spans"], key=lambda s: s["start"])
    assert [(s["start"], s["end"], s["labels"]) for s in spans] == [
        (sentences[0]["start"], sentences[0]["end"], ["ad hominem"]),
        (sentences[2]["start"], sentences[2]["end"], ["slippery slope"]),
    ]
    assert spans[0]["details"] == {}  # accepted with an empty template
    assert spans[1]["details"]["slippery slope"]["explanation"] == (
        "One step does not make the collapse follow."
    )
    listed = api(page, base, "GET", f"/api/evaluation/documents/{doc}/suggestions/")
    assert listed["assisted"] is True
    decided = {s["unit_index"]: (s["decision"], s["span"]) for s in listed["suggestions"]}
    assert decided == {
        0: ("accept", spans[0]["id"]),
        1: ("reject", None),
        2: ("accept", spans[1]["id"]),
    }


def reload_shows_the_same(page: Page, base: str, doc: int) -> None:
    """A reload shows the same: two spans, nothing left to decide."""
    open_document(page, base, doc, "3")
    expect(page.get_by_role("heading", name="Spans (2)")).to_be_visible()
    expect(page.locator('[data-testid=suggestion][data-decision="pending"]')).to_have_count(0)
    expect(page.locator(".sent.suggested")).to_have_count(0)
    assert len(api(page, base, "GET", f"/api/documents/{doc}/my-annotation/")["spans"]) == 2


def test_annotator_accepts_and_rejects_suggestions_from_the_keyboard(
    web_server, projects: dict, page: Page, artifacts
) -> None:
    base = web_server.url
    doc = projects["assisted"]["document"]
    login(page, base, seed.ANNOTATOR)
    open_document(page, base, doc, "3")
    sentences = api(page, base, "GET", f"/api/documents/{doc}/")["sentences"]
    assert len(sentences) == 3

    suggestions_are_shown_apart(page, artifacts)
    accept_and_reject_from_the_keyboard(page)
    skip_and_accept_all(page)
    edit_an_accepted_span(page, artifacts)
    api_sees_own_spans_and_the_rejection(page, base, doc, sentences)
    reload_shows_the_same(page, base, doc)


def test_unassisted_project_shows_no_suggestion(web_server, projects: dict, page: Page) -> None:
    base = web_server.url
    doc = projects["unassisted"]["document"]
    assert projects["unassisted"]["suggestions"]  # the runs made some: they are not shown
    login(page, base, seed.ANNOTATOR)
    open_document(page, base, doc, "0")
    expect(page.get_by_test_id("suggestions-panel")).to_have_count(0)
    expect(page.get_by_test_id("suggestion")).to_have_count(0)
    expect(page.locator(".sent.suggested")).to_have_count(0)
    page.keyboard.press("ArrowDown")
    page.keyboard.press("y")  # nothing to accept: no span appears
    expect(page.get_by_role("heading", name="Spans (0)")).to_be_visible()

    listed = api(page, base, "GET", f"/api/evaluation/documents/{doc}/suggestions/")
    assert listed == {"assisted": False, "suggestions": []}
    token = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    hidden = projects["unassisted"]["suggestions"][0]
    resp = page.request.post(
        f"{base}/api/evaluation/suggestions/{hidden}/decision/",
        headers={"X-CSRFToken": token, "Content-Type": "application/json"},
        data=json.dumps({"decision": "accept"}),
    )
    assert resp.status == 404
    listing = f"/api/projects/{projects['unassisted']['project']}/documents/"
    rows = api(page, base, "GET", listing)["results"]
    assert [r["status"] for r in rows] == ["todo"]  # the refused accept started nothing
