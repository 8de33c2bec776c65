"""Adjudication in Chromium: merging two annotators' labels into alternatives, publishing a
version and exporting it, two reviewers saving the same document, and walking the queue's
documents with previous / next, asked first when the gold spans are not saved (see
conftest.py)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser import api, login
from tests.e2e.conftest import ROOT, run_seed

pytestmark = pytest.mark.e2e


def open_adjudication(page: Page, base: str, project: int, document: int) -> None:
    page.goto(f"{base}/projects/{project}/adjudication/{document}/")
    expect(page.get_by_test_id("side-by-side")).to_be_visible()


def gold_labels(page: Page) -> list[str]:
    return [" ".join(t.split()) for t in page.get_by_test_id("gold-labels").all_inner_texts()]


def merge_the_first_disagreement(page: Page, base: str, seed: dict, artifacts) -> None:
    """From the queue, adj-1's two annotators' spans merged into one gold span with the
    no-fallacy alternative, saved; the next document of the queue offered."""
    project = seed["project"]
    page.goto(f"{base}/projects/{project}/adjudication/")
    rows = page.get_by_test_id("queue-row")
    expect(rows).to_have_count(3)
    page.get_by_role("link", name="adj-1").click()
    expect(page.get_by_test_id("side-by-side")).to_be_visible()
    # both annotators' spans on the first sentence, side by side
    page.get_by_test_id("ann-span-review-ann1-0").click()
    page.get_by_test_id("ann-span-review-ann2-0").click()
    page.keyboard.press("m")  # merge the picked spans into one gold span
    expect(page.get_by_test_id("gold-span")).to_have_count(1)
    page.get_by_test_id("toggle-no-fallacy").click()
    labels = page.get_by_test_id("gold-labels").inner_text()
    for label in ("ad hominem", "appeal to fear", "no fallacy"):
        assert label in labels
    page.get_by_test_id("save-gold").click()
    expect(page.get_by_test_id("save-message")).to_contain_text("Saved.")
    # the next document of the queue is offered (adj-1 is adjudicated now)
    expect(page.get_by_test_id("next-document")).to_have_attribute(
        "href", f"/projects/{project}/adjudication/{seed['documents']['adj-2']}/"
    )
    page.screenshot(path=str(artifacts / "adjudicate.png"))


def publish_the_draft(page: Page, base: str, project: int, artifacts) -> int:
    """Publishes the gold draft with a note; the diff shows the one span added. Its version."""
    page.goto(f"{base}/projects/{project}/gold/")
    page.get_by_test_id("publish-open").click()
    page.get_by_test_id("publish-note").fill("Merged the first disagreement.")
    page.get_by_test_id("publish-dialog-confirm").click()
    expect(page.get_by_test_id("gold-version")).to_be_visible()
    expect(page.get_by_test_id("diff-summary")).to_contain_text("+1")
    added = page.get_by_test_id("diff-added")
    expect(added).to_have_count(1)
    for label in ("ad hominem", "appeal to fear", "no fallacy"):
        expect(added).to_contain_text(label)
    page.screenshot(path=str(artifacts / "gold-version.png"))
    return int(page.url.rstrip("/").rsplit("/", 1)[1])


def exported_labels(web_server, seed: dict, version: int, span: dict) -> list[str]:
    """The labels ``export_dataset --format mafalda`` writes on ``span``'s range."""
    out = subprocess.run(
        [
            sys.executable,
            "manage.py",
            "export_dataset",
            "--project",
            seed["name"],
            "--format",
            "mafalda",
            "--version",
            str(version),
            "--out",
            "-",
        ],
        cwd=ROOT,
        env=web_server.env,
        capture_output=True,
        text=True,
        check=True,
    )
    records = [json.loads(line) for line in out.stdout.splitlines() if line.strip()]
    (record,) = [r for r in records if r["labels"]]
    start, end = span["start"], span["end"]
    return sorted(label for s, e, label in record["labels"] if (s, e) == (start, end))


def test_merge_alternatives_add_bottom_publish_and_export(web_server, page: Page, artifacts):
    base = web_server.url
    seed = web_server.seed["adjudication"]
    project, document = seed["project"], seed["documents"]["adj-1"]
    login(page, base, "demo-reviewer")
    merge_the_first_disagreement(page, base, seed, artifacts)

    gold = api(page, base, "GET", f"/api/documents/{document}/adjudication/")["gold"]
    (span,) = gold["spans"]
    assert span["labels"] == ["ad hominem", "appeal to fear", "no fallacy"]
    annotators = web_server.seed["review"]["annotators"]
    assert span["proposed_by"] == {
        "ad hominem": [annotators["review-ann1"]],
        "appeal to fear": [annotators["review-ann2"]],
    }

    version = publish_the_draft(page, base, project, artifacts)
    exported = exported_labels(web_server, seed, version, span)
    assert exported == ["ad hominem", "appeal to fear", "nothing"]


def test_a_stale_save_gets_the_conflict_and_loses_nothing(web_server, browser):
    base = web_server.url
    seed = web_server.seed["adjudication"]
    project, document = seed["project"], seed["documents"]["adj-2"]
    pages = []
    for username in ("demo-reviewer", "demo-admin"):
        context = browser.new_context(viewport={"width": 1440, "height": 900})
        context.set_default_timeout(10_000)
        page = context.new_page()
        login(page, base, username)
        open_adjudication(page, base, project, document)
        pages.append(page)
    first, second = pages
    try:
        # the reviewer accepts the proposal as it is (ad hominem, or no fallacy) and adds a
        # span nobody proposed on the second sentence
        first.get_by_test_id("accept-proposal-0").click()
        first.get_by_test_id("add-gold-1").select_option("slippery slope")
        first.get_by_test_id("save-gold").click()
        expect(first.get_by_test_id("save-message")).to_contain_text("Saved.")

        # the admin, on the page loaded before, accepts the proposal but removes the ⊥
        # alternative, and adds a span on the third sentence
        second.get_by_test_id("accept-proposal-0").click()
        second.get_by_test_id("toggle-no-fallacy").click()
        second.get_by_test_id("add-gold-2").select_option("appeal to fear")
        second.keyboard.press("Control+s")
        conflict = second.get_by_test_id("conflict")
        expect(conflict).to_be_visible()
        expect(conflict).to_contain_text("Someone else saved this document (revision 1)")
        expect(second.get_by_test_id("conflict-theirs")).to_have_text(
            "ad hominem | no fallacy; slippery slope"
        )
        expect(second.get_by_test_id("conflict-plan")).to_contain_text(
            "your 2 changed range(s) on top; 1 range(s) were changed by both of you"
        )
        # the admin's unsaved edits are still on the page
        expect(second.get_by_test_id("gold-span")).to_have_count(2)
        expect(second.get_by_test_id("gold-labels").first).not_to_contain_text("no fallacy")
        second.get_by_test_id("reapply").click()
        expect(second.get_by_test_id("save-message")).to_contain_text("Saved.")
        expect(conflict).to_have_count(0)
        expect(second.get_by_test_id("gold-span")).to_have_count(3)

        gold = api(second, base, "GET", f"/api/documents/{document}/adjudication/")["gold"]
        assert gold["revision"] == 2
        # the admin's explicit choice on the first sentence, the reviewer's and the admin's
        # new spans: nothing lost
        assert [s["labels"] for s in gold["spans"]] == [
            ["ad hominem"],
            ["slippery slope"],
            ["appeal to fear"],
        ]
        history = api(second, base, "GET", f"/api/documents/{document}/history/")["results"]
        savers = {e["user"] for e in history if e["kind"] == "gold_document"}
        assert savers == {"demo-reviewer", "demo-admin"}  # both saves are recorded
    finally:
        for page in pages:
            page.context.close()


def test_the_review_dashboard_computes_then_shows_and_downloads(web_server, page: Page, artifacts):
    from tests.support.processes import celery_worker

    base = web_server.url
    project = web_server.seed["adjudication"]["project"]
    login(page, base, "demo-admin")
    with celery_worker(dict(web_server.env), queues="default"):
        page.goto(f"{base}/projects/{project}/review/")
        expect(page.get_by_test_id("rv-alpha")).to_be_visible(timeout=60_000)
    figures = api(page, base, "GET", f"/api/evaluation/projects/{project}/agreement/")
    alpha = figures["levels"]["2"]["alpha"]["masi"]["value"]
    expect(page.get_by_test_id("rv-alpha")).to_have_text("—" if alpha is None else f"{alpha:.3f}")
    expect(page.get_by_test_id("rv-provenance")).to_contain_text("nltk")
    heatmap = page.get_by_test_id("heatmap-table")
    expect(heatmap).to_contain_text("review-ann1")
    page.get_by_test_id("rv-heatmap-metric").select_option("f1")
    expect(page.get_by_test_id("panel-heatmap")).to_contain_text("Disjunctive F1")
    with page.expect_download() as csv:
        page.get_by_test_id("heatmap-csv").click()
    text = open(csv.value.path(), encoding="utf-8").read()
    assert text.splitlines()[0].split(",")[1:] == ["review-ann1", "review-ann2"]
    with page.expect_download() as png:
        page.get_by_test_id("heatmap-png").click()
    assert open(png.value.path(), "rb").read(8) == b"\x89PNG\r\n\x1a\n"
    expect(page.get_by_test_id("cooccurrence-table")).to_contain_text("appeal to fear")
    page.screenshot(path=str(artifacts / "review-dashboard.png"), full_page=False)


def on_adjudication(page: Page, base: str, project: int, document: int, position: str) -> None:
    expect(page).to_have_url(f"{base}/projects/{project}/adjudication/{document}/")
    expect(page.get_by_test_id("side-by-side")).to_be_visible()
    expect(page.get_by_test_id("adj-position")).to_have_text(position)


def walk_to_the_end_and_back(page: Page, base: str, project: int, ids: list[int]) -> None:
    """From the queue's first document: by button, then by key, in the queue page's order
    (undecided first, highest disagreement first), to the end, and one back, with the keys
    the annotation and review pages use."""
    page.get_by_test_id("adj-next").click()
    on_adjudication(page, base, project, ids[1], "2 / 4")
    page.keyboard.press("]")
    on_adjudication(page, base, project, ids[2], "3 / 4")
    page.keyboard.press("]")
    on_adjudication(page, base, project, ids[3], "4 / 4")
    expect(page.get_by_test_id("adj-next")).to_have_attribute("aria-disabled", "true")
    page.keyboard.press("]")  # the end of the queue: stays
    on_adjudication(page, base, project, ids[3], "4 / 4")
    page.keyboard.press("[")
    on_adjudication(page, base, project, ids[2], "3 / 4")


def unsaved_spans_ask_before_leaving(
    page: Page, base: str, project: int, ids: list[int], artifacts
) -> None:
    """On the third document with an unsaved gold span: the keys, the buttons and the
    breadcrumb ask first; Escape and Stay keep the page and its spans; typing [ ] < > in a
    field types them."""
    # unsaved gold spans: ">" moves a boundary, "[" asks first; Escape and Stay stay
    page.get_by_test_id("accept-proposal-0").click()
    expect(page.get_by_test_id("gold-span")).to_have_count(1)
    page.get_by_test_id("gold-span").click()
    before = page.get_by_test_id("gold-span").inner_text()
    page.keyboard.press(">")
    expect(page.get_by_test_id("gold-span")).not_to_have_text(before)
    on_adjudication(page, base, project, ids[2], "3 / 4")
    page.keyboard.press("[")
    dialog = page.get_by_test_id("leave-dialog")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("not saved")
    page.screenshot(path=str(artifacts / "adj-nav-leave-dialog.png"))
    page.keyboard.press("]")  # no key moves while the dialog is open
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    on_adjudication(page, base, project, ids[2], "3 / 4")
    page.get_by_test_id("adj-next").click()
    page.get_by_test_id("leave-stay").click()
    on_adjudication(page, base, project, ids[2], "3 / 4")
    expect(page.get_by_test_id("gold-span")).to_have_count(1)  # the spans are still there
    # the breadcrumb's links ask too, and Stay keeps the page
    page.locator("nav.crumbs a").first.click()
    expect(dialog).to_be_visible()
    page.get_by_test_id("leave-stay").click()
    on_adjudication(page, base, project, ids[2], "3 / 4")
    expect(page.get_by_test_id("gold-span")).to_have_count(1)
    # typing [ or ] (or < >) in a field types it
    page.locator(".adj-gold textarea").first.fill("")
    page.locator(".adj-gold textarea").first.type("a [b] <c>")
    expect(page.locator(".adj-gold textarea").first).to_have_value("a [b] <c>")
    on_adjudication(page, base, project, ids[2], "3 / 4")


def save_or_discard_on_leaving(
    page: Page, base: str, project: int, ids: list[int], artifacts
) -> None:
    """Save and leave saves, then opens the previous document; discard and leave saves
    nothing; a saved page leaves without asking; the navigation fits 1,024 px."""
    # save and leave: the spans are saved, then the previous document opens
    page.locator(".adj-gold textarea").first.evaluate("e => e.blur()")
    page.keyboard.press("[")
    page.get_by_test_id("leave-save").click()
    on_adjudication(page, base, project, ids[1], "2 / 4")
    saved = api(page, base, "GET", f"/api/documents/{ids[2]}/adjudication/")["gold"]
    assert len(saved["spans"]) == 1 and saved["adjudicated"]

    # decided, ids[2] went to the end of the queue: the next undecided document follows
    # discard and leave: nothing saved, the next document opens
    page.get_by_test_id("accept-proposal-0").click()
    page.get_by_test_id("adj-next").click()
    page.get_by_test_id("leave-discard").click()
    on_adjudication(page, base, project, ids[3], "3 / 4")
    assert api(page, base, "GET", f"/api/documents/{ids[1]}/adjudication/")["gold"]["spans"] == []
    # a saved page leaves without asking
    page.keyboard.press("[")
    on_adjudication(page, base, project, ids[1], "2 / 4")
    expect(page.get_by_test_id("leave-dialog")).to_be_hidden()
    page.screenshot(path=str(artifacts / "adj-nav-middle.png"))
    page.set_viewport_size({"width": 1024, "height": 768})
    expect(page.get_by_test_id("adj-nav")).to_be_in_viewport()
    page.screenshot(path=str(artifacts / "adj-nav-1024.png"))


def test_walk_the_queue_by_disagreement_asking_before_leaving_unsaved_spans(
    web_server, page: Page, artifacts
):
    from tests.support.processes import celery_worker

    base = web_server.url
    seed = run_seed(web_server, "seed_adjnav.py")
    project, docs = seed["project"], seed["documents"]
    order = ["all-differ", "one-of-three-differs", "same-everywhere", "nothing-said"]
    ids = [docs[name] for name in order]
    login(page, base, "demo-reviewer")
    with celery_worker(dict(web_server.env), queues="default"):
        page.goto(f"{base}/projects/{project}/adjudication/")
        expect(page.get_by_test_id("queue-row")).to_have_count(4)
        expect(page.get_by_test_id("queue-computing")).to_have_count(0, timeout=90_000)
    page.get_by_role("link", name="all-differ").click()
    on_adjudication(page, base, project, ids[0], "1 / 4")
    expect(page.get_by_test_id("adj-prev")).to_have_attribute("aria-disabled", "true")
    page.screenshot(path=str(artifacts / "adj-nav-first.png"))
    walk_to_the_end_and_back(page, base, project, ids)

    unsaved_spans_ask_before_leaving(page, base, project, ids, artifacts)
    save_or_discard_on_leaving(page, base, project, ids, artifacts)
    queue_lists_the_decided_last(page, base, project, artifacts)


def queue_lists_the_decided_last(page: Page, base: str, project: int, artifacts) -> None:
    """At 1,024 px the breadcrumbs stay (collapsed, not gone); the queue page lists the
    undecided documents first, the decided one last and marked."""
    expect(page.locator("nav.crumbs")).to_be_visible()
    expect(page.locator("nav.crumbs a:visible").first).to_be_visible()
    page.goto(f"{base}/projects/{project}/adjudication/")
    expect(page.get_by_test_id("queue-row")).to_have_count(4)
    names = [
        t.strip() for t in page.locator("[data-testid=queue-row] td:first-child").all_inner_texts()
    ]
    assert names == ["all-differ", "one-of-three-differs", "nothing-said", "same-everywhere"]
    decisions = [t.strip() for t in page.get_by_test_id("queue-decision").all_inner_texts()]
    assert decisions == ["to decide", "to decide", "to decide", "✓ decided"]
    expect(page.get_by_test_id("queue-undecided")).to_contain_text("3 of 4")
    page.screenshot(path=str(artifacts / "adj-queue-decided-last.png"))
