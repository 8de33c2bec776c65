"""Offsets count code points end to end: what the page shows and selects is what the server
stores, in a text with emoji, a ZWJ family, a flag, combining marks, right-to-left scripts
and mathematical letters (tests/e2e/seed_unicode.py)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser import api, login, my_annotation, select_text, wait_saved
from tests.e2e.conftest import LiveServer, run_seed
from tests.e2e.seed_unicode import SENTENCES, TEXT

pytestmark = pytest.mark.e2e

SELECTED_TEXT = """() => {
    const sel = [...document.querySelectorAll(".doc-text .sent.selected")];
    const range = document.createRange();
    range.setStartBefore(sel[0]);
    range.setEndAfter(sel[sel.length - 1]);
    return range.toString();
}"""


@pytest.fixture(scope="module")
def seed(web_server: LiveServer) -> dict:
    return run_seed(web_server, "seed_unicode.py")


def test_sentences_and_spans_match_the_stored_offsets(
    page: Page, web_server: LiveServer, seed: dict, artifacts
) -> None:
    base, doc = web_server.url, seed["spans"]["document"]
    login(page, base, seed["username"])
    page.goto(f"{base}/documents/{doc}/")
    page.wait_for_selector("html[data-ready]")
    served = api(page, base, "GET", f"/api/documents/{doc}/")
    text, sentences = served["text"], served["sentences"]
    assert text == TEXT and len(sentences) == len(SENTENCES)

    # every sentence is shown exactly: the server's slice of the text, no unit shifted
    expect(page.locator("#sent-0")).to_have_text("😀😀😀😀 Emoji first sentence here.")
    for i, s in enumerate(sentences):
        assert page.locator(f"#sent-{i}").text_content() == text[s["start"] : s["end"]]
        assert text[s["start"] : s["end"]] == SENTENCES[i]
    assert page.locator(".doc-text").text_content() == text
    page.screenshot(path=str(artifacts / "unicode-sentences.png"))

    # a span with the keyboard: sentences 1-3 (emoji, ZWJ family, flag, combining marks)
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Shift+ArrowDown")
    page.keyboard.press("Shift+ArrowDown")
    expect(page.locator(".sent.selected")).to_have_count(3)
    first_selected = page.evaluate(SELECTED_TEXT)
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Label sentences 1–3")).to_be_visible()
    page.keyboard.type("ad hom")
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")  # create the span
    expect(page.locator(".editor .excerpt")).to_have_text(first_selected)
    page.keyboard.press("Escape")
    wait_saved(page)

    # a span with the mouse: sentences 4-6 (Arabic, Hebrew, mathematical letters)
    page.locator("#sent-3").click()
    page.locator("#sent-5").click(modifiers=["Shift"])
    expect(page.locator(".sent.selected")).to_have_count(3)
    second_selected = page.evaluate(SELECTED_TEXT)
    page.get_by_role("button", name="Label the selection").click()
    page.locator(".picker .opt", has_text="appeal to fear").click()
    page.get_by_role("button", name="Create span").click()
    expect(page.locator(".editor .excerpt")).to_have_text(second_selected)
    page.keyboard.press("Escape")
    wait_saved(page)

    stored = sorted(my_annotation(page, base, doc)["spans"], key=lambda s: s["start"])
    assert [(s["start"], s["end"]) for s in stored] == [
        (sentences[0]["start"], sentences[2]["end"]),
        (sentences[3]["start"], sentences[5]["end"]),
    ]
    assert text[stored[0]["start"] : stored[0]["end"]] == first_selected == " ".join(SENTENCES[:3])
    assert text[stored[1]["start"] : stored[1]["end"]] == second_selected == " ".join(SENTENCES[3:])
    page.screenshot(path=str(artifacts / "unicode-spans.png"))


def test_item_segments_store_the_selected_characters(
    page: Page, web_server: LiveServer, seed: dict
) -> None:
    base, doc = web_server.url, seed["items"]["document"]
    login(page, base, seed["username"])
    page.goto(f"{base}/documents/{doc}/")
    page.wait_for_selector("html[data-ready]")
    box = "segmentation-segments-text"
    expect(page.get_by_test_id(box)).to_have_text(TEXT)

    wanted = [("👩‍👩‍👧 and the flag 🇫🇷", "claim"), ("𝐀𝐁𝐂 letters", "premise")]
    for passage, label in wanted:
        # the page's own (UTF-16) position of the passage, selected as a drag would
        at = page.get_by_test_id(box).evaluate("(el, p) => el.textContent.indexOf(p)", passage)
        select_text(page, box, at, at + len(passage.encode("utf-16-le")) // 2)
        expect(page.get_by_test_id("segmentation-segments-selection")).to_have_text(
            f"Selected: “{passage}”"
        )
        page.get_by_test_id("segmentation-segments-label").select_option(label)
        page.get_by_test_id("segmentation-segments-add").click()
    items = page.get_by_test_id("segmentation-segments-list").locator("li")
    expect(items).to_have_count(2)
    expect(items.nth(0)).to_contain_text("claim: “👩‍👩‍👧 and the flag 🇫🇷”")
    expect(items.nth(1)).to_contain_text("premise: “𝐀𝐁𝐂 letters”")
    wait_saved(page)

    saved = api(page, base, "GET", f"/api/documents/{doc}/response/")["annotation"]
    segments = saved["response"]["segments"]
    assert [(TEXT[s:e], label) for s, e, label in segments] == wanted
    assert [(s, e) for s, e, _ in segments] == [
        (TEXT.index(p), TEXT.index(p) + len(p)) for p, _ in wanted
    ]
