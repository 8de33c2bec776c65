"""The annotation app in Chromium against real servers (see conftest.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser import api, login, my_annotation, wait_saved

pytestmark = pytest.mark.e2e


def open_next_document(page: Page) -> int:
    page.locator(".project-card").first.get_by_role(
        "button", name=re.compile("Start|Continue")
    ).click()
    page.wait_for_url(re.compile(r"/documents/\d+/$"))
    page.wait_for_selector("html[data-ready]")
    return int(re.search(r"/documents/(\d+)/", page.url).group(1))


def fresh_document(page: Page, base: str) -> int:
    """Open a document this annotator has not started (demo data may hold started ones)."""
    doc_id = open_next_document(page)
    status = {
        d["id"]: d["status"]
        for p in api(page, base, "GET", "/api/projects/")["results"]
        for d in api(page, base, "GET", f"/api/projects/{p['id']}/documents/?limit=1000")["results"]
    }
    if (
        status.get(doc_id) == "todo"
        and len(api(page, base, "GET", f"/api/documents/{doc_id}/")["sentences"]) >= 3
    ):
        return doc_id
    for candidate, st in status.items():
        if (
            st == "todo"
            and len(api(page, base, "GET", f"/api/documents/{candidate}/")["sentences"]) >= 3
        ):
            page.goto(f"{base}/documents/{candidate}/")
            page.wait_for_selector("html[data-ready]")
            return candidate
    raise AssertionError("no untouched document with 3+ sentences for this annotator")


STATE: dict[str, int] = {}


def tab_to(page: Page, selector: str, limit: int = 20) -> None:
    """Press Tab until the element matching selector has focus (keyboard only)."""
    for _ in range(limit):
        if page.evaluate("(s) => document.activeElement?.matches(s) ?? false", selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"could not Tab to {selector}")


def keyboard_span(
    page: Page, artifacts: Path, base: str, doc_id: int, sentences: list[dict]
) -> tuple[str, str]:
    """One span with the keyboard only: sentences 1-2, two labels + "no fallacy"."""
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Shift+ArrowDown")
    expect(page.locator(".sent.selected")).to_have_count(2)
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Label sentences 1–2")).to_be_visible()
    page.keyboard.type("ad hom")
    page.keyboard.press("Enter")
    page.keyboard.type("false dil")
    page.keyboard.press("Enter")
    page.keyboard.press("0")  # "no fallacy" is also acceptable
    expect(page.locator(".chosen .tag")).to_have_count(3)
    page.screenshot(path=artifacts / "label-picker.png")
    page.keyboard.press("Enter")  # create the span; focus goes to the first template slot
    expect(page.locator(".editor")).to_be_visible()
    slot = page.evaluate("document.activeElement.dataset.slot")
    label = page.evaluate("document.activeElement.dataset.label")
    assert slot and label in ("ad hominem", "false dilemma")  # the first label's first slot
    page.keyboard.type("my opponent")
    tab_to(page, f'textarea[data-explanation="{label}"]')
    page.keyboard.type("Attacks his divorce instead of his tax plan.")
    page.screenshot(path=artifacts / "span-editor.png")
    page.keyboard.press("Escape")  # back to the text
    wait_saved(page)

    ann = my_annotation(page, base, doc_id)
    assert len(ann["spans"]) == 1
    span = ann["spans"][0]
    assert (span["start"], span["end"]) == (sentences[0]["start"], sentences[1]["end"])
    assert sorted(span["labels"]) == ["ad hominem", "false dilemma", "no fallacy"]
    assert span["details"][label]["slots"][slot] == "my opponent"
    assert span["details"][label]["explanation"].startswith("Attacks his divorce")
    return label, slot


def reload_keeps_everything(page: Page, label: str, slot: str) -> None:
    """Reload: everything is there."""
    page.reload()
    page.wait_for_selector("html[data-ready]")
    expect(page.locator(".spans .span-item")).to_have_count(1)
    expect(page.locator(".spans .span-item").first).to_contain_text(
        "false dilemma | ad hominem | no fallacy"
    )
    page.keyboard.press("ArrowDown")
    page.keyboard.press("e")  # edit the span on this sentence
    expect(page.locator(f'.editor input[data-slot="{slot}"][data-label="{label}"]')).to_have_value(
        "my opponent"
    )
    expect(page.locator(f'.editor textarea[data-explanation="{label}"]')).to_have_value(
        "Attacks his divorce instead of his tax plan."
    )


def edit_explanation_and_labels(page: Page, base: str, doc_id: int, label: str) -> None:
    """Edit: explanation and labels."""
    box = page.locator(f'.editor textarea[data-explanation="{label}"]')
    box.click()
    box.press("End")
    box.type(" Irrelevant to the argument.")
    page.keyboard.press("Escape")
    page.keyboard.press("l")  # edit labels: drop "no fallacy" (last chosen) and confirm
    expect(page.get_by_role("heading", name="Edit labels")).to_be_visible()
    page.keyboard.press("Backspace")
    page.keyboard.press("Enter")
    wait_saved(page)
    span = my_annotation(page, base, doc_id)["spans"][0]
    assert sorted(span["labels"]) == ["ad hominem", "false dilemma"]
    assert span["details"][label]["explanation"].endswith("Irrelevant to the argument.")


def mouse_and_separate_spans(
    page: Page, artifacts: Path, base: str, doc_id: int, sentences: list[dict]
) -> None:
    """A second span with the mouse, and a separate span on the same range."""
    page.locator("#sent-2").click()
    page.get_by_role("button", name=re.compile("Label the selection")).click()
    page.locator(".picker .opt", has_text="appeal to fear").click()
    page.get_by_role("button", name=re.compile("Create span")).click()
    page.keyboard.press("Escape")
    page.locator("#sent-0").click()
    page.locator("#sent-1").click(modifiers=["Shift"])
    page.keyboard.press("Enter")
    expect(page.get_by_role("button", name=re.compile("Add as separate span"))).to_be_visible()
    page.keyboard.type("straw")
    page.keyboard.press("Enter")
    page.keyboard.press("Shift+Enter")  # add as separate span
    page.keyboard.press("Escape")
    wait_saved(page)
    spans = my_annotation(page, base, doc_id)["spans"]
    assert len(spans) == 3
    same = [
        s for s in spans if (s["start"], s["end"]) == (sentences[0]["start"], sentences[1]["end"])
    ]
    assert sorted(sorted(s["labels"]) for s in same) == [
        ["ad hominem", "false dilemma"],
        ["straw man"],
    ]
    page.locator(".spans .span-item", has_text="straw man").click()
    page.screenshot(path=artifacts / "overlapping-spans-demo.png")


def delete_undo_delete(page: Page, base: str, doc_id: int) -> None:
    """Delete, undo, delete."""
    page.locator(".doc-text").focus()
    page.keyboard.press("Delete")
    wait_saved(page)
    assert len(my_annotation(page, base, doc_id)["spans"]) == 2
    page.keyboard.press("Control+z")
    wait_saved(page)
    spans = my_annotation(page, base, doc_id)["spans"]
    assert sorted(tuple(sorted(s["labels"])) for s in spans) == [
        ("ad hominem", "false dilemma"),
        ("appeal to fear",),
        ("straw man",),
    ]
    page.locator(".spans .span-item", has_text="straw man").click()
    page.get_by_role("button", name=re.compile("Delete span")).click()
    wait_saved(page)
    assert len(my_annotation(page, base, doc_id)["spans"]) == 2


def submit_read_only(page: Page, artifacts: Path, base: str, doc_id: int) -> None:
    """Submit: read-only afterwards."""
    page.get_by_role("button", name="Submit document").click()
    page.get_by_role("dialog").get_by_role("button", name="Submit", exact=True).click()
    expect(page.locator(".banner")).to_contain_text("Submitted")
    ann = my_annotation(page, base, doc_id)
    assert ann["status"] == "submitted"
    page.locator(".doc-text").focus()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    expect(page.locator(".picker")).to_have_count(0)
    expect(page.get_by_role("button", name="Submit document")).to_have_count(0)
    page.screenshot(path=artifacts / "submitted-read-only.png")


def test_annotator_flow_keyboard(web_server, page: Page, artifacts):
    base = web_server.url
    page.goto(base + "/login/")
    page.screenshot(path=artifacts / "login.png")
    login(page, base, "demo-annotator")
    expect(page.locator(".project-card").first).to_contain_text("done")
    page.screenshot(path=artifacts / "home.png")
    doc_id = fresh_document(page, base)
    page.screenshot(path=artifacts / "annotation-first-view.png")
    doc = api(page, base, "GET", f"/api/documents/{doc_id}/")
    sentences = doc["sentences"]
    assert len(sentences) >= 3

    label, slot = keyboard_span(page, artifacts, base, doc_id, sentences)
    reload_keeps_everything(page, label, slot)
    edit_explanation_and_labels(page, base, doc_id, label)
    mouse_and_separate_spans(page, artifacts, base, doc_id, sentences)
    delete_undo_delete(page, base, doc_id)
    submit_read_only(page, artifacts, base, doc_id)


def test_offline_edits_are_kept_and_saved(web_server, page: Page, context, artifacts):
    base = web_server.url
    login(page, base, "demo-annotator2")
    doc_id = fresh_document(page, base)
    STATE["offline_doc"] = doc_id
    page.locator("#sent-0").click()
    page.keyboard.press("Enter")
    page.keyboard.type("appeal to fear")
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")
    expect(page.locator(".editor")).to_be_visible()
    page.keyboard.press("Escape")
    wait_saved(page)

    # The network drops while editing.
    context.set_offline(True)
    box = page.locator('.editor textarea[data-explanation="appeal to fear"]')
    box.click()
    box.type("Written while offline.")
    expect(page.locator(".save-status")).to_have_attribute("data-save-state", "offline")
    expect(page.locator(".save-status")).to_contain_text("Offline — changes kept")
    page.screenshot(path=artifacts / "offline-status.png")
    context.set_offline(False)
    wait_saved(page)
    span = my_annotation(page, base, doc_id)["spans"][0]
    assert span["details"]["appeal to fear"]["explanation"] == "Written while offline."

    # Writes fail (server unreachable) and the page is reloaded: the queue survives.
    writes = re.compile(r".*/api/(spans/\d+|annotations/\d+/spans)/.*")
    page.route(writes, lambda route: route.abort("internetdisconnected"))
    box.click()
    box.press("End")
    box.type(" Still kept after a reload.")
    expect(page.locator(".save-status")).to_have_attribute("data-save-state", "offline")
    page.reload()
    page.wait_for_selector("html[data-ready]")
    page.locator(".spans .span-item").first.click()
    expect(page.locator('.editor textarea[data-explanation="appeal to fear"]')).to_have_value(
        "Written while offline. Still kept after a reload."
    )
    page.unroute(writes)
    page.get_by_role("button", name="Retry now").click()
    wait_saved(page)
    span = my_annotation(page, base, doc_id)["spans"][0]
    assert span["details"]["appeal to fear"]["explanation"] == (
        "Written while offline. Still kept after a reload."
    )


def test_conflict_from_another_tab_is_not_lost(web_server, page: Page, context):
    base = web_server.url
    login(page, base, "demo-annotator2")
    if "offline_doc" not in STATE:
        pytest.skip("needs the span left by test_offline_edits_are_kept_and_saved")
    doc_id = STATE["offline_doc"]
    page.goto(f"{base}/documents/{doc_id}/")
    page.wait_for_selector("html[data-ready]")
    ann = my_annotation(page, base, doc_id)
    assert ann["spans"], "the previous test left a span"
    span = ann["spans"][0]
    page.locator(".spans .span-item").first.click()
    # Another tab changes the labels behind this page's back (revision moves on).
    api(
        page,
        base,
        "PATCH",
        f"/api/spans/{span['id']}/",
        {
            "revision": span["revision"],
            "labels": ["appeal to fear", "slippery slope"],
        },
    )
    box = page.locator('.editor textarea[data-explanation="appeal to fear"]')
    box.click()
    box.press("End")
    box.type(" Edited here too.")
    page.keyboard.press("Escape")
    wait_saved(page)
    expect(page.locator(".toast")).to_contain_text("changed in another window")
    span = my_annotation(page, base, doc_id)["spans"][0]
    assert sorted(span["labels"]) == ["appeal to fear", "slippery slope"]
    assert span["details"]["appeal to fear"]["explanation"].endswith("Edited here too.")


def test_long_document_with_overlapping_spans(web_server, page: Page, artifacts):
    base = web_server.url
    long = web_server.seed["long"]
    assert long["chars"] >= 5000 and long["spans"] == 50
    login(page, base, long["username"])
    page.goto(f"{base}/documents/{long['document']}/")
    page.wait_for_selector("html[data-ready]")
    ready_ms = page.evaluate("performance.now()")
    expect(page.locator(".spans .span-item")).to_have_count(50)
    page.keyboard.press("ArrowDown")
    expect(page.locator("#sent-0")).to_have_attribute("aria-selected", "true")
    assert ready_ms < 3000, f"ready after {ready_ms:.0f} ms"
    page.locator(".chip").nth(3).click()
    expect(page.locator(".editor")).to_be_visible()
    page.screenshot(path=artifacts / "overlapping-spans.png")
    page.locator(".doc-text").focus()
    page.keyboard.press("g")
    page.screenshot(path=artifacts / "overlapping-spans-guidelines-toggled.png")
