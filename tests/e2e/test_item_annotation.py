"""Answering items in Chromium: one item of each benchmark family (tests/e2e/seed_items.py).

Each test answers every widget of its form, sees the response saved, submits, reloads and
sees the answers again; annotators never receive the answer key (gold, record).
"""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser import api, login, select_text, wait_saved
from tests.e2e.conftest import LiveServer

pytestmark = pytest.mark.e2e


def open_item(page: Page, base: str, doc: int) -> None:
    page.goto(f"{base}/documents/{doc}/")
    page.wait_for_selector("html[data-ready]")
    expect(page.get_by_test_id("item-text")).to_be_visible()


def submit_and_reload(page: Page) -> None:
    wait_saved(page)
    page.get_by_test_id("item-submit").click()
    expect(page.get_by_test_id("item-submit-dialog")).to_contain_text("Submit this item?")
    page.get_by_test_id("item-submit-dialog-confirm").click()
    expect(page.get_by_test_id("view-banner")).to_contain_text("Submitted")
    page.reload()
    page.wait_for_selector("html[data-ready]")
    expect(page.get_by_test_id("view-banner")).to_contain_text("Submitted")
    expect(page.get_by_test_id("item-submit")).to_have_count(0)


def assert_no_gold(page: Page, base: str, doc: int) -> None:
    expect(page.locator("[data-testid^=gold-]")).to_have_count(0)
    expect(page.locator("body")).not_to_contain_text("GOLD-EXPLANATION")
    body = api(page, base, "GET", f"/api/documents/{doc}/response/")
    assert "gold" not in body
    raw = json.dumps(body, ensure_ascii=False)
    assert "GOLD-EXPLANATION" not in raw and "record" not in raw


def test_flub_like_item_multiple_choice_classification_free_text(
    page: Page, web_server: LiveServer, artifacts
) -> None:
    base, seed = web_server.url, web_server.seed["items"]
    doc = seed["flub"]["items"]["flub-1"]
    login(page, base, seed["username"])
    open_item(page, base, doc)
    expect(page.get_by_test_id("item-text")).to_contain_text("苹果能预防感冒")
    assert_no_gold(page, base, doc)

    # submitting too early names what is missing
    page.get_by_test_id("item-submit").click()
    expect(page.get_by_test_id("error-answer")).to_contain_text("required")

    page.get_by_role("radio", name=re.compile("把偶然的先后关系")).check()
    page.get_by_test_id("label-type-以偏概全").check()
    explanation = page.get_by_role("textbox", name="Explain the flaw")
    explanation.fill("一次经历不能证明因果关系。")
    wait_saved(page)
    saved = api(page, base, "GET", f"/api/documents/{doc}/response/")["annotation"]
    assert saved["response"] == {
        "answer": "A",
        "type": "以偏概全",
        "explanation": "一次经历不能证明因果关系。",
    }
    page.screenshot(path=str(artifacts / "item-flub.png"), full_page=True)

    submit_and_reload(page)
    expect(page.get_by_test_id("option-answer-A")).to_be_checked()
    expect(page.get_by_test_id("option-answer-A")).to_be_disabled()
    expect(page.get_by_test_id("label-type-以偏概全")).to_be_checked()
    expect(explanation).to_have_value("一次经历不能证明因果关系。")
    assert_no_gold(page, base, doc)

    # the reviewer sees the response and the gold
    page.context.clear_cookies()
    login(page, base, seed["reviewer"])
    page.goto(f"{base}/documents/{doc}/?annotator={saved['annotator']['id']}")
    page.wait_for_selector("html[data-ready]")
    expect(page.get_by_test_id("option-answer-A")).to_be_checked()
    expect(page.get_by_test_id("gold-answer")).to_contain_text('"A"')
    expect(page.get_by_test_id("gold-explanation")).to_contain_text("GOLD-EXPLANATION")


def test_smartypat_like_item_ranked_and_detection(
    page: Page, web_server: LiveServer, artifacts
) -> None:
    base, seed = web_server.url, web_server.seed["items"]
    doc = seed["smartypat"]["items"]["smartypat-1"]
    login(page, base, seed["username"])
    open_item(page, base, doc)
    assert_no_gold(page, base, doc)

    ranking = page.get_by_test_id("ranked-ranking-list")
    # "No fallacy" is an explicit answer (an empty ranking)
    page.get_by_test_id("ranked-ranking-no-fallacy").click()
    expect(page.get_by_test_id("ranked-ranking-none")).to_be_visible()
    for label in ("hasty generalization", "ad hominem", "straw man"):
        page.get_by_test_id("ranked-ranking-select").select_option(label)
        page.get_by_test_id("ranked-ranking-add").click()
    expect(ranking.locator("li")).to_have_count(3)
    expect(page.get_by_test_id("ranked-ranking-select")).to_be_disabled()  # max 3
    page.get_by_role("button", name="Remove straw man").click()
    page.get_by_role("button", name="Move ad hominem up").click()
    expect(ranking.locator("li .item-rank-label")).to_have_text(
        ["ad hominem", "hasty generalization"]
    )
    page.get_by_test_id("detection-fallacious-fallacious").check()
    wait_saved(page)
    saved = api(page, base, "GET", f"/api/documents/{doc}/response/")["annotation"]
    assert saved["response"] == {
        "ranking": ["ad hominem", "hasty generalization"],
        "fallacious": True,
    }
    page.screenshot(path=str(artifacts / "item-smartypat.png"), full_page=True)

    submit_and_reload(page)
    expect(ranking.locator("li .item-rank-label")).to_have_text(
        ["ad hominem", "hasty generalization"]
    )
    expect(page.get_by_test_id("detection-fallacious-fallacious")).to_be_checked()
    expect(page.get_by_role("button", name="Move ad hominem up")).to_have_count(0)


def test_argbench_like_item_segmentation_likert_rubric(
    page: Page, web_server: LiveServer, artifacts
) -> None:
    base, seed = web_server.url, web_server.seed["items"]
    doc = seed["argbench"]["items"]["argbench-1"]
    login(page, base, seed["username"])
    open_item(page, base, doc)
    expect(page.get_by_test_id("item-candidate")).to_contain_text("attacks drivers' motives")
    assert_no_gold(page, base, doc)

    claim = "We should ban cars from the city centre."
    step = "Therefore anyone who drives hates clean air."
    text = api(page, base, "GET", f"/api/documents/{doc}/response/")["document"]["text"]
    select_text(page, "segmentation-segments-text", 0, len(claim) + 1)  # trailing blank trimmed
    expect(page.get_by_test_id("segmentation-segments-selection")).to_contain_text(claim)
    page.get_by_test_id("segmentation-segments-label").select_option("claim")
    page.get_by_test_id("segmentation-segments-add").click()
    start = text.index(step)
    select_text(page, "segmentation-segments-text", start, start + len(step))
    page.get_by_test_id("segmentation-segments-label").select_option("fallacious step")
    page.get_by_test_id("segmentation-segments-add").click()
    segments = page.get_by_test_id("segmentation-segments-list").locator("li")
    expect(segments).to_have_count(2)
    expect(segments.nth(0)).to_contain_text(f"claim: “{claim}”")
    expect(segments.nth(1)).to_contain_text(f"fallacious step: “{step}”")

    page.get_by_role("radio", name="4", exact=True).first.check()
    expect(page.get_by_test_id("scale-clarity-4")).to_be_checked()
    rubric = page.get_by_test_id("field-quality")
    expect(rubric).to_contain_text("Points at the step of the argument that fails.")
    rubric.get_by_text("Worked examples (2)").click()
    expect(rubric).to_contain_text("one neighbour does not stand for the street")
    page.get_by_test_id("scale-quality-5").check()
    wait_saved(page)
    saved = api(page, base, "GET", f"/api/documents/{doc}/response/")["annotation"]
    assert saved["response"] == {
        "segments": [[0, len(claim), "claim"], [start, start + len(step), "fallacious step"]],
        "clarity": 4,
        "quality": 5,
    }
    page.screenshot(path=str(artifacts / "item-argbench.png"), full_page=True)

    submit_and_reload(page)
    expect(segments).to_have_count(2)
    expect(page.get_by_test_id("scale-clarity-4")).to_be_checked()
    expect(page.get_by_test_id("scale-quality-5")).to_be_checked()
    expect(page.get_by_role("button", name=re.compile("^Remove claim"))).to_have_count(0)


def test_conflict_offers_the_current_version(page: Page, web_server: LiveServer) -> None:
    base, seed = web_server.url, web_server.seed["items"]
    doc = seed["flub"]["items"]["flub-2"]
    login(page, base, seed["username"])
    open_item(page, base, doc)
    page.get_by_test_id("option-answer-B").check()
    wait_saved(page)
    # another tab changes the answer meanwhile
    current = api(page, base, "GET", f"/api/documents/{doc}/response/")["annotation"]
    api(
        page,
        base,
        "PATCH",
        f"/api/documents/{doc}/response/",
        {"revision": current["revision"], "response": {"answer": "C"}},
    )
    page.get_by_test_id("option-answer-D").check()
    expect(page.get_by_test_id("item-conflict")).to_contain_text("changed elsewhere")
    page.get_by_test_id("item-load-current").click()
    expect(page.get_by_test_id("item-conflict")).to_have_count(0)
    expect(page.get_by_test_id("option-answer-C")).to_be_checked()
    page.get_by_test_id("label-type-歧义").check()
    wait_saved(page)
    saved = api(page, base, "GET", f"/api/documents/{doc}/response/")["annotation"]
    assert saved["response"] == {"answer": "C", "type": "歧义"}
