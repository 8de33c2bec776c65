"""Gold versions and a document's history in Chromium (see conftest.py): a reviewer publishes
the adjudication draft with a note, reads the new version's diff, publishes a change, and sees
who changed the gold spans on the document's history page; annotators get "not found"."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.browser import api, login
from tests.e2e.conftest import ROOT

pytestmark = pytest.mark.e2e

PROJECT = "Gold versions: publish and diff"

# A project of its own (the seed's adjudication project belongs to test_adjudication.py):
# two documents, review-ann1 submitted "ad hominem" on the first sentence of the first.
SETUP = f"""
import json
from tests.e2e import seed
seed.setup_django()
from annotations.models import Document, Project
from annotations.services.annotations import create_or_get_span, start_annotation, submit_annotation
from annotations.services.documents import NewDocument, add_documents, assign_documents
from annotations.services.projects import add_member, create_project

annotator = seed.user("review-ann1")
project = Project.objects.filter(name={PROJECT!r}).first()
if project is None:
    project = create_project(name={PROJECT!r}, taxonomy=seed.mafalda())
    add_member(project=project, user=seed.user("demo-reviewer"), role="reviewer")
    add_member(project=project, user=annotator, role="annotator")
    add_documents(project=project, texts=[
        NewDocument(text=seed.review_text(200 + i), external_id=f"gold-{{i}}") for i in (1, 2)
    ])
    assign_documents(project=project, annotator=annotator)
document = Document.objects.get(project=project, external_id="gold-1")
first = document.sentences.order_by("index").first()
annotation = start_annotation(document=document, annotator=annotator)
if not annotation.spans.exists():
    create_or_get_span(annotation=annotation, start=first.start, end=first.end,
                       labels=["ad hominem"], details={{}})
submit_annotation(annotation=annotation)
print(json.dumps({{"project": project.pk, "document": document.pk,
                  "sentence": [first.start, first.end], "text": document.text}}))
"""


@pytest.fixture(scope="module")
def gold_project(web_server) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", SETUP],
        cwd=ROOT,
        env=web_server.env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def save_gold(page: Page, base: str, document: int, start: int, end: int, labels: list[str]):
    state = api(page, base, "GET", f"/api/documents/{document}/adjudication/")
    body = {
        "revision": state["gold"]["revision"],
        "spans": [{"start": start, "end": end, "labels": labels}],
    }
    return api(page, base, "PUT", f"/api/documents/{document}/adjudication/", body)


def publish_version_one(page: Page, base: str, document: int, project: int, sentence: str) -> None:
    """Version 1 published with a note (none is refused), its diff and JSON."""
    page.reload()
    draft = page.get_by_test_id("gold-draft")
    expect(draft).to_contain_text("Version 1 (draft)")
    expect(draft).to_contain_text("1 document(s), 1 span(s)")
    page.get_by_test_id("publish-open").click()
    page.get_by_test_id("publish-dialog-confirm").click()  # no note: refused in the page
    expect(page.get_by_test_id("publish-dialog")).to_contain_text("Write a note")
    page.get_by_test_id("publish-note").fill("First adjudicated text.")
    page.get_by_test_id("publish-dialog-confirm").click()

    page.wait_for_url(f"{base}/projects/{project}/gold/1/")
    expect(page.get_by_test_id("gold-version")).to_contain_text("published")
    expect(page.get_by_test_id("gold-version")).to_contain_text("by demo-reviewer")
    expect(page.get_by_test_id("gold-version")).to_contain_text("First adjudicated text.")
    expect(page.get_by_test_id("diff-summary")).to_contain_text("+1 / −0 / ~0")
    added = page.get_by_test_id("diff-added")
    expect(added).to_have_count(1)
    expect(added).to_contain_text(sentence)
    expect(added).to_contain_text("ad hominem")
    expect(added).to_contain_text("no fallacy")
    link = page.get_by_test_id(f"diff-doc-{document}").get_by_role("link", name="gold-1")
    expect(link).to_have_attribute("href", f"/projects/{project}/adjudication/{document}/")
    raw = api(
        page, base, "GET", page.get_by_role("link", name="JSON", exact=True).get_attribute("href")
    )
    assert raw["diff"]["summary"]["added"] == 1


def publish_a_changed_version(
    page: Page, artifacts: Path, base: str, document: int, end: int, project: int, start: int
) -> None:
    """A second version: the same range with other alternatives is a change."""
    save_gold(page, base, document, start, end, ["ad hominem", "appeal to fear"])
    page.goto(f"{base}/projects/{project}/gold/")
    expect(page.get_by_test_id("gold-draft")).to_contain_text("based on v1")
    page.get_by_test_id("publish-open").click()
    page.get_by_test_id("publish-note").fill("Fear, not nothing.")
    page.get_by_test_id("publish-dialog-confirm").click()
    page.wait_for_url(f"{base}/projects/{project}/gold/2/")
    expect(page.get_by_test_id("diff-summary")).to_contain_text("+0 / −0 / ~1")
    changed = page.get_by_test_id("diff-changed")
    expect(changed).to_have_count(1)
    expect(changed).to_contain_text("no fallacy")
    expect(changed).to_contain_text("appeal to fear")
    page.screenshot(path=str(artifacts / "gold-version-diff.png"))


def list_the_versions(
    page: Page, artifacts: Path, base: str, end: int, project: int, start: int
) -> None:
    """The list of versions: notes, diffs, the export and the leaderboard link."""
    page.goto(f"{base}/projects/{project}/gold/")
    expect(page.get_by_test_id("gold-draft")).to_contain_text("No draft")
    row = page.get_by_test_id("gold-version-1")
    expect(row).to_contain_text("First adjudicated text.")
    expect(row).to_contain_text("demo-reviewer")
    expect(row).to_contain_text("+1 / −0 / ~0")
    expect(page.get_by_test_id("gold-version-2")).to_contain_text("~1")
    export = row.get_by_role("link", name="Export (MAFALDA JSONL)").get_attribute("href")
    assert export == f"/api/projects/{project}/gold/1/export/"
    jsonl = page.request.get(base + export)
    assert jsonl.ok and "attachment" in jsonl.headers["content-disposition"]
    (record,) = [json.loads(x) for x in jsonl.text().splitlines() if '"ad hominem"' in x]
    assert sorted(label for s, e, label in record["labels"] if (s, e) == (start, end)) == [
        "ad hominem",
        "nothing",
    ]
    gold_id = api(page, base, "GET", f"/api/projects/{project}/gold/")["versions"][1]["id"]
    leaderboard = row.get_by_role("link", name="Leaderboard")
    expect(leaderboard).to_have_attribute("href", f"/projects/{project}/leaderboard/{gold_id}/")
    page.screenshot(path=str(artifacts / "gold-versions.png"))


def read_the_history(page: Page, artifacts: Path, base: str, document: int) -> None:
    """The document's history: both versions' changes, filtered by kind."""
    page.goto(f"{base}/documents/{document}/history/")
    rows = page.get_by_test_id("history-row")
    expect(rows.first).to_be_visible()
    gold_rows = page.locator("[data-testid=history-row][data-kind=gold_span]")
    change = gold_rows.filter(has_text="appeal to fear").first
    expect(change).to_contain_text("demo-reviewer")
    expect(change).to_contain_text("gold v2 (published)")
    expect(gold_rows.filter(has_text="gold v1 (published)").first).to_contain_text("demo-reviewer")
    expect(page.locator("[data-testid=history-row][data-kind=annotation]").first).to_contain_text(
        "annotator review-ann1"
    )
    page.get_by_test_id("hist-kind").select_option("gold_span")
    kinds = {r.get_attribute("data-kind") for r in page.get_by_test_id("history-row").all()}
    assert kinds == {"gold_span"}
    expect(page.get_by_test_id("hist-document")).to_have_attribute(
        "href", f"/documents/{document}/"
    )
    page.screenshot(path=str(artifacts / "document-history.png"))


def annotators_see_no_history(browser: Browser, base: str, document: int) -> None:
    """Annotators never see the history (nor the gold): the page says "not found"."""
    other = browser.new_context(viewport={"width": 1440, "height": 900})
    try:
        annotator = other.new_page()
        login(annotator, base, "review-ann1")
        annotator.goto(f"{base}/documents/{document}/history/")
        expect(annotator.get_by_test_id("not-found")).to_be_visible()
    finally:
        other.close()


def test_publish_a_draft_see_the_diff_and_the_history(
    web_server, browser, page: Page, gold_project, artifacts
):
    base = web_server.url
    project, document = gold_project["project"], gold_project["document"]
    start, end = gold_project["sentence"]
    sentence = gold_project["text"][start:end]
    login(page, base, "demo-reviewer")

    page.goto(f"{base}/projects/{project}/gold/")
    expect(page.get_by_test_id("gold-draft")).to_contain_text("No draft")
    save_gold(page, base, document, start, end, ["ad hominem", "no fallacy"])

    publish_version_one(page, base, document, project, sentence)
    publish_a_changed_version(page, artifacts, base, document, end, project, start)
    list_the_versions(page, artifacts, base, end, project, start)
    read_the_history(page, artifacts, base, document)
    annotators_see_no_history(browser, base, document)
