"""Running a project from the browser: create, import, members, assignment.

A superuser creates a project with the MAFALDA taxonomy, imports the MAFALDA user-study file,
creates an account and adds three annotators (one by e-mail), assigns every document to two
of them (balanced: 13-14 each), then uploads a broken file: its line-numbered problems are
listed and nothing is imported. An annotator gets the 404 page for the admin pages, finds
exactly their documents on the project page and selects a span by dragging.
"""

from __future__ import annotations

import json
import os
import random
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser import api, login, point_in, wait_saved
from tests.e2e.conftest import ROOT
from tests.support.processes import celery_worker

pytestmark = pytest.mark.e2e

USER_STUDY = (
    ROOT.parent / "shared/datasets/mafalda/datasets/user_study_examples_without_labels.jsonl"
)
PROJECT = "Study run from the browser"
NEW_ANNOTATOR = ("pa-annotator3", "pa-annotator3@example.org", "Fallacy-e2e-Pass-2025")


def shot(page: Page, artifacts: Path, name: str) -> None:
    page.screenshot(path=artifacts / f"admin-{name}.png")  # the viewport, not full_page


def expect_documents(page: Page, n: int) -> None:
    """The import page's document count (reloaded after each finished import)."""
    expect(page.get_by_test_id("document-count")).to_have_attribute("data-count", str(n))


def create_project(page: Page, base: str, artifacts: Path) -> int:
    page.goto(base + "/projects/new/")
    expect(page.get_by_role("heading", name="New project")).to_be_visible()
    # A broken taxonomy file: every problem the loader finds is listed, nothing installed.
    page.get_by_text("Upload a taxonomy file").click()
    page.get_by_label("Taxonomy file").set_input_files(
        files=[{"name": "broken.yaml", "mimeType": "text/yaml", "buffer": b"name: [unclosed\n"}]
    )
    page.get_by_test_id("taxonomy-upload").click()
    expect(page.get_by_test_id("taxonomy-errors").locator("li").first).to_be_visible()

    page.get_by_label("Name", exact=True).fill(PROJECT)
    page.get_by_label("Description").fill("The MAFALDA user study, set up in the browser.")
    mafalda = mafalda_id(page, base)
    page.get_by_label("Taxonomy", exact=True).select_option(str(mafalda))
    page.get_by_label("Annotators per document").fill("2")
    guidelines = page.get_by_label("Guidelines (Markdown)", exact=True)
    guidelines.fill(
        "# How to annotate\n\n- Read the **whole** text first.\n- Label whole sentences."
    )
    preview = page.get_by_test_id("project-guidelines-preview")
    expect(preview.locator("strong")).to_have_text("whole")
    expect(preview.locator("li")).to_have_count(2)
    shot(page, artifacts, "new-project")
    page.get_by_role("button", name="Create project").click()
    page.wait_for_url(re.compile(r"/projects/\d+/import/$"))
    return int(re.search(r"/projects/(\d+)/import/", page.url).group(1))


def mafalda_id(page: Page, base: str) -> int:
    taxonomies = api(page, base, "GET", "/api/taxonomies/")["taxonomies"]
    return next(t["id"] for t in taxonomies if t["name"] == "mafalda")


def member_row(page: Page, username: str):
    return page.locator(f'[data-testid="member-row"][data-username="{username}"]')


def import_file(page: Page, path: Path | dict) -> None:
    page.get_by_label("Format").select_option("mafalda")
    page.get_by_label("File", exact=True).set_input_files(path)
    page.get_by_role("button", name="Import", exact=True).click()


def import_the_user_study(page: Page, artifacts: Path) -> None:
    """Import the user study: 20 documents."""
    expect(page.get_by_test_id("document-count")).to_have_text("No documents yet — import some.")
    import_file(page, USER_STUDY)
    report = page.get_by_test_id("import-report")
    expect(report).to_be_visible(timeout=30_000)
    expect(report.get_by_test_id("report-documents_created").locator("dd")).to_have_text("20")
    expect_documents(page, 20)
    expect(page.get_by_test_id("recent-imports").locator("tbody tr")).to_have_count(1)
    shot(page, artifacts, "import-report")


def add_members(page: Page, artifacts: Path) -> list[str]:
    """Members: a new account (added by e-mail) and two existing annotators."""
    page.get_by_test_id("tab-members").click()
    expect(page.get_by_role("heading", name="Members")).to_be_visible()
    username, email, password = NEW_ANNOTATOR
    page.get_by_role("button", name="Create an account…").click()
    page.get_by_label("New username").fill(username)
    page.get_by_label("E-mail (optional)").fill(email)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Create account").click()
    expect(page.get_by_test_id("account-created")).to_contain_text(username)
    user_field = page.get_by_label("Username or e-mail")
    expect(user_field).to_have_value(email)
    page.get_by_label("Role", exact=True).select_option("annotator")
    page.get_by_role("button", name="Add member").click()
    expect(page.get_by_test_id("member-added")).to_contain_text(f"Added {username}")
    for name in ("demo-annotator", "demo-annotator2"):
        user_field.fill(name)
        page.get_by_role("button", name="Add member").click()
        expect(page.get_by_test_id("member-added")).to_contain_text(f"Added {name}")
    annotators = [username, "demo-annotator", "demo-annotator2"]
    for name in annotators:
        row = member_row(page, name)
        expect(row).to_be_visible()
        expect(row.get_by_label(f"Role of {name}")).to_have_value("annotator")
    expect(member_row(page, username)).to_contain_text(email)
    expect(member_row(page, "demo-admin").get_by_label("Role of demo-admin")).to_have_value("admin")
    shot(page, artifacts, "members")
    return annotators


def assign_every_document(page: Page, artifacts: Path, annotators: list[str]) -> dict[str, int]:
    """Assign every document to 2 of the 3 annotators: 13-14 each."""
    page.get_by_test_id("tab-assign").click()
    expect(page.get_by_role("heading", name="Assignment")).to_be_visible()
    for name in annotators:
        expect(page.get_by_label(name, exact=True)).to_be_checked()
    expect(page.get_by_label("Each document to N annotators")).to_have_value("2")
    page.get_by_label("All documents").check()
    page.get_by_role("button", name="Assign", exact=True).click()
    result = page.get_by_test_id("assign-result")
    expect(result).to_contain_text("40 assignments created")
    loads = {
        el.get_attribute("data-username"): int(el.get_attribute("data-assigned"))
        for el in result.get_by_test_id("assign-result-annotator").all()
    }
    assert set(loads) == set(annotators)
    assert sorted(loads.values()) in ([13, 13, 14], [13, 14, 14]), loads
    assert sum(loads.values()) == 40
    for name, n in loads.items():
        expect(page.locator(f'[data-testid="load-row"][data-username="{name}"]')).to_have_attribute(
            "data-assigned", str(n)
        )
    shot(page, artifacts, "assigned")
    return loads


def import_a_broken_file(
    page: Page, artifacts: Path, tmp_path: Path, base: str, project_id: int
) -> None:
    """A broken upload: every problem with its line, nothing imported."""
    broken = tmp_path / "broken.jsonl"
    broken.write_text(
        "\n".join(
            [
                json.dumps({"text": "A first text that would be fine on its own."}),
                json.dumps({"title": "no text here"}),
                json.dumps({"text": "A third text, also fine."}),
                '{"text": "not closed',
            ]
        )
        + "\n"
    )
    page.get_by_test_id("tab-import").click()
    expect_documents(page, 20)
    import_file(page, broken)
    failed = page.get_by_test_id("import-failed")
    expect(failed).to_be_visible(timeout=30_000)
    expect(failed.get_by_test_id("nothing-imported")).to_have_text("Nothing was imported.")
    problems = failed.get_by_test_id("import-errors").locator("li").all_inner_texts()
    assert any(p.startswith("2: ") and "text" in p for p in problems), problems
    assert any(p.startswith("4: ") for p in problems), problems
    assert not any(p.startswith(("1: ", "3: ")) for p in problems), problems
    page.reload()
    expect_documents(page, 20)
    expect(page.get_by_test_id("recent-imports").locator("tbody tr")).to_have_count(2)
    import_file(page, broken)
    expect(page.get_by_test_id("import-failed")).to_be_visible(timeout=30_000)
    shot(page, artifacts, "import-errors")
    progress = api(page, base, "GET", f"/api/projects/{project_id}/progress/")
    assert progress["totals"]["documents"] == 20


def annotator_sees_only_their_work(
    page: Page, artifacts: Path, base: str, loads: dict[str, int], project_id: int
) -> tuple[int, int]:
    """An annotator: the admin pages do not exist for them."""
    page.context.clear_cookies()
    login(page, base, "demo-annotator")
    for tab in ("settings", "import", "members", "assign"):
        page.goto(f"{base}/projects/{project_id}/{tab}/")
        expect(page.get_by_test_id("not-found")).to_be_visible()
    shot(page, artifacts, "annotator-404")
    # Their project page lists exactly the documents assigned to them.
    mine = api(page, base, "GET", f"/api/projects/{project_id}/documents/?limit=25")["results"]
    assert len(mine) == loads["demo-annotator"]
    page.goto(f"{base}/projects/{project_id}/")
    page.wait_for_selector("html[data-ready=project]")
    rows = page.get_by_test_id("doc-row")
    expect(rows).to_have_count(len(mine))
    shown = {int(r.get_attribute("data-doc-id")) for r in rows.all()}
    assert shown == {d["id"] for d in mine}
    shot(page, artifacts, "annotator-queue")
    # They open their first document and select a span by dragging across two sentences.
    started, untouched = mine[0]["id"], mine[1]["id"]
    rows.first.get_by_role("link").first.click()
    page.wait_for_selector("html[data-ready=annotate]")
    assert page.url.rstrip("/").endswith(f"/documents/{started}")
    sentences = api(page, base, "GET", f"/api/documents/{started}/")["sentences"]
    if len(sentences) >= 2:
        first, last = point_in(page, "#sent-0", 0), point_in(page, "#sent-1", -1)
        expected = (sentences[0]["start"], sentences[1]["end"])
    else:  # a one-sentence text: the drag stays inside it
        first = point_in(page, "#sent-0", 0)
        last = (first[0] + 40, first[1])
        expected = (sentences[0]["start"], sentences[0]["end"])
    page.mouse.move(*first)
    page.mouse.down()
    page.mouse.move(*last, steps=8)
    page.mouse.up()
    expect(page.locator(".sent.selected")).to_have_count(min(2, len(sentences)))
    shot(page, artifacts, "annotator-drag")
    assert api(page, base, "GET", f"/api/documents/{started}/annotations/") == []
    page.keyboard.press("Enter")
    page.keyboard.type("ad hom")
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")
    page.keyboard.press("Escape")
    wait_saved(page)
    [annotation] = api(page, base, "GET", f"/api/documents/{started}/annotations/")
    [span] = annotation["spans"]
    assert (span["start"], span["end"]) == expected and span["labels"] == ["ad hominem"]
    return started, untouched


def unassign_with_confirmation(
    page: Page,
    artifacts: Path,
    base: str,
    loads: dict[str, int],
    project_id: int,
    started: int,
    untouched: int,
) -> None:
    """The admin unassigns two of their documents: the started one needs a confirmation."""
    page.context.clear_cookies()
    login(page, base, "demo-admin")
    page.goto(f"{base}/projects/{project_id}/assign/")
    page.get_by_label("Action").select_option("unassign")
    page.get_by_label("Annotator", exact=True).select_option(label="demo-annotator")
    page.get_by_label("Document ids").fill(f"{started}, {untouched}")
    page.get_by_role("button", name="Unassign", exact=True).click()
    dialog = page.get_by_test_id("force-dialog")
    expect(dialog.get_by_test_id("conflict-documents")).to_have_text(str(started))
    shot(page, artifacts, "unassign-confirm")
    dialog.get_by_role("button", name="Unassign anyway").click()
    expect(page.get_by_test_id("move-result")).to_have_text(
        "Unassigned 2 document(s) from demo-annotator."
    )
    row = page.locator('[data-testid="load-row"][data-username="demo-annotator"]')
    expect(row).to_have_attribute("data-assigned", str(loads["demo-annotator"] - 2))


def test_admin_sets_up_a_project(web_server, page: Page, artifacts, tmp_path):
    if not USER_STUDY.exists():
        pytest.skip(f"the MAFALDA user-study file is absent ({USER_STUDY})")
    base = web_server.url
    login(page, base, "demo-admin")  # a superuser
    project_id = create_project(page, base, artifacts)

    import_the_user_study(page, artifacts)
    annotators = add_members(page, artifacts)
    loads = assign_every_document(page, artifacts, annotators)
    import_a_broken_file(page, artifacts, tmp_path, base, project_id)
    started, untouched = annotator_sees_only_their_work(page, artifacts, base, loads, project_id)
    unassign_with_confirmation(page, artifacts, base, loads, project_id, started, untouched)


def test_settings_edit_and_archive(web_server, page: Page, artifacts):
    base = web_server.url
    login(page, base, "demo-admin")
    mafalda = mafalda_id(page, base)
    new = {"taxonomy": mafalda, "annotators_per_document": 1}
    project = api(page, base, "POST", "/api/projects/", {"name": "Settings to edit", **new})
    api(page, base, "POST", "/api/projects/", {"name": "A name already taken", **new})
    page.goto(f"{base}/projects/{project['id']}/settings/")
    expect(page.get_by_role("heading", name="Settings")).to_be_visible()
    expect(page.get_by_label("Name", exact=True)).to_have_value("Settings to edit")
    per_doc = page.get_by_label("Annotators per document")
    per_doc.fill("0")
    page.get_by_role("button", name="Save settings").click()
    expect(page.get_by_test_id("settings-errors")).to_contain_text("Annotators per document")
    per_doc.fill("3")
    page.get_by_label("Guidelines (Markdown)", exact=True).fill("Label *whole* sentences.")
    page.get_by_role("button", name="Save settings").click()
    expect(page.get_by_test_id("settings-status")).to_have_text("Saved.")
    saved = api(page, base, "GET", f"/api/projects/{project['id']}/")
    assert saved["annotators_per_document"] == 3
    assert saved["guidelines"] == "Label *whole* sentences."
    # A name another project has: the server's message shows next to the field.
    page.get_by_label("Name", exact=True).fill("A name already taken")
    page.get_by_role("button", name="Save settings").click()
    expect(page.locator('[data-testid="field-error"][data-field="name"]')).to_contain_text(
        "already exists"
    )
    page.get_by_role("button", name="Undo changes").click()
    shot(page, artifacts, "settings")

    page.get_by_role("button", name="Archive this project…").click()
    dialog = page.get_by_test_id("archive-dialog")
    expect(dialog).to_contain_text("are kept")
    shot(page, artifacts, "archive-confirm")
    dialog.get_by_role("button", name="Archive", exact=True).click()
    expect(page.get_by_role("button", name="Restore this project…")).to_be_visible()
    assert api(page, base, "GET", f"/api/projects/{project['id']}/")["archived"] is True
    page.get_by_role("button", name="Restore this project…").click()
    page.get_by_test_id("archive-dialog").get_by_role("button", name="Restore", exact=True).click()
    expect(page.get_by_role("button", name="Archive this project…")).to_be_visible()
    restored = api(page, base, "GET", f"/api/projects/{project['id']}/")
    assert restored["archived"] is False, restored["archived"]


def test_csv_import_picks_columns(web_server, page: Page, artifacts):
    base = web_server.url
    login(page, base, "demo-admin")
    body = {"name": "CSV texts", "taxonomy": mafalda_id(page, base)}
    project = api(page, base, "POST", "/api/projects/", body)
    page.goto(f"{base}/projects/{project['id']}/import/")
    csv = (
        "ref,body,source\n"
        'a1,"Everyone I know agrees, so it must be true.",forum\n'
        "a2,If we allow this then everything will collapse.,blog\n"
    )
    page.get_by_label("File", exact=True).set_input_files(
        files=[{"name": "texts.csv", "mimeType": "text/csv", "buffer": csv.encode()}]
    )
    expect(page.get_by_label("Format")).to_have_value("csv")
    columns = page.get_by_test_id("csv-columns")
    expect(columns).to_contain_text("2 data rows")
    expect(columns.locator("tbody tr")).to_have_count(2)
    expect(page.get_by_label("Text column")).to_have_value("body")  # the longest values
    page.get_by_label("Id column (optional)").select_option("ref")
    shot(page, artifacts, "csv-columns")
    page.get_by_role("button", name="Import", exact=True).click()
    report = page.get_by_test_id("import-report")
    expect(report.get_by_test_id("report-documents_created").locator("dd")).to_have_text("2")
    docs = api(page, base, "GET", f"/api/projects/{project['id']}/documents/?limit=25")["results"]
    assert sorted(d["external_id"] for d in docs) == ["a1", "a2"]


def test_large_import_runs_in_a_worker_with_progress(web_server, page: Page, artifacts, tmp_path):
    """Files of 1 MiB or more go to a Celery task; the page polls it and shows its progress."""
    rng = random.Random(10)
    words = "the council argued that every critic of the plan simply hates progress".split()
    lines = [
        f"Text {i}: " + " ".join(rng.choice(words) for _ in range(60)) + "." for i in range(3000)
    ]
    big = tmp_path / "many-texts.txt"
    big.write_text("\n\n".join(lines) + "\n")  # texts are separated by blank lines
    assert big.stat().st_size > 1024 * 1024
    env = {**web_server.env, "PYTHONPATH": os.pathsep.join([str(ROOT / "platform"), str(ROOT)])}
    base = web_server.url
    login(page, base, "demo-admin")
    body = {"name": "Many texts", "taxonomy": mafalda_id(page, base)}
    project = api(page, base, "POST", "/api/projects/", body)
    with celery_worker(env, queues="default"):
        page.goto(f"{base}/projects/{project['id']}/import/")
        page.get_by_label("File", exact=True).set_input_files(big)
        expect(page.get_by_label("Format")).to_have_value("text")
        page.get_by_role("button", name="Import", exact=True).click()
        expect(page.get_by_test_id("import-progress")).to_be_visible()
        expect(page.get_by_test_id("import-submit")).to_be_disabled()
        shot(page, artifacts, "import-running")
        report = page.get_by_test_id("import-report")
        expect(report).to_be_visible(timeout=180_000)
    expect(report.get_by_test_id("report-documents_created").locator("dd")).to_have_text("3,000")
    expect_documents(page, 3000)


def every_problem_of_a_broken_file_listed(page: Page) -> None:
    """250 bad lines: the first 200 listed, then all on demand, or as a file."""
    bad = {"name": "bad.jsonl", "mimeType": "application/json", "buffer": b"{}\n" * 250}
    import_file(page, bad)
    failed = page.get_by_test_id("import-failed")
    expect(failed).to_be_visible(timeout=30_000)
    expect(failed).to_contain_text("250 problems")
    problems = page.get_by_test_id("import-errors").locator("li")
    expect(problems).to_have_count(200)
    expect(page.get_by_test_id("problems-hidden")).to_contain_text("50 more")
    with page.expect_download() as download:
        page.get_by_test_id("download-problems").click()
    lines = Path(download.value.path()).read_text().splitlines()
    assert len(lines) == 250 and lines[0].startswith("1: ") and lines[-1].startswith("250: ")
    page.get_by_test_id("show-all-problems").click()
    expect(problems).to_have_count(250)
    expect(problems.last).to_have_text(lines[-1])


def import_texts_ten_assigned(page: Page, base: str, pid: int) -> None:
    """130 texts (120 "budget", 10 "weather"), the first 10 assigned to review-ann1."""
    texts = [f"Budget claim {i}: everyone agrees, so it must be true." for i in range(120)]
    texts += [f"Weather claim {i}: it rained once, so it always rains." for i in range(10)]
    jsonl = "".join(json.dumps({"text": t}) + "\n" for t in texts).encode()
    import_file(page, {"name": "texts.jsonl", "mimeType": "application/json", "buffer": jsonl})
    expect(page.get_by_test_id("import-report")).to_be_visible(timeout=30_000)
    first = api(page, base, "GET", f"/api/projects/{pid}/documents/?limit=10")["results"]
    members = api(page, base, "GET", f"/api/projects/{pid}/members/")
    ann1 = next(m["user"]["id"] for m in members if m["user"]["username"] == "review-ann1")
    selected = {"documents": "selected", "document_ids": [d["id"] for d in first]}
    assign = {"annotators": [ann1], "per_document": 1, **selected}
    api(page, base, "POST", f"/api/projects/{pid}/assignments/", assign)


def assign_the_documents_matching_the_filters(page: Page, base: str, pid: int, artifacts) -> None:
    """ "budget" and unassigned: 110 documents, counted before they are assigned."""
    page.goto(f"{base}/projects/{pid}/assign/")
    form = page.get_by_test_id("assign-form")
    form.get_by_label("The documents matching filters").check()
    filters = form.get_by_test_id("assign-filters")
    search = filters.get_by_test_id("doc-search")
    search.fill("budget")
    search.press("Enter")  # does not assign
    count = form.get_by_test_id("assign-match-count")
    expect(count).to_have_attribute("data-count", "120")
    filters.get_by_test_id("status-filter").select_option("unassigned")
    expect(count).to_have_attribute("data-count", "110")
    expect(count).to_have_text("110 documents match these filters.")
    expect(page.get_by_test_id("assign-result")).to_have_count(0)
    form.get_by_test_id("assign-per-document").fill("1")
    shot(page, artifacts, "assign-matching")
    form.get_by_test_id("assign-submit").click()
    result = page.get_by_test_id("assign-result")
    expect(result).to_contain_text("110 assignments created over 110 documents")
    expect(count).to_have_attribute("data-count", "0")  # recounted: none left unassigned
    listing = f"/api/projects/{pid}/documents/?limit=1"
    assert api(page, base, "GET", listing + "&q=budget&status=todo")["count"] == 120
    assert api(page, base, "GET", listing + "&q=weather&status=unassigned")["count"] == 10


def test_assign_by_the_lists_filters_and_list_every_import_problem(
    web_server, page: Page, artifacts
):
    """Bulk work and broken files: "the documents matching" the document list's filters are selected
    by the server (all of them, more than a list page), the count shown first; a broken
    file's report lists every problem (the first 200, then all on demand, or as a file)."""
    base = web_server.url
    login(page, base, "demo-admin")
    body = {"name": "Filtered assignment", "taxonomy": mafalda_id(page, base)}
    project = api(page, base, "POST", "/api/projects/", {**body, "annotators_per_document": 2})
    pid = project["id"]
    for name in ("review-ann1", "review-ann2"):
        member = {"user": name, "role": "annotator"}
        api(page, base, "POST", f"/api/projects/{pid}/members/", member)
    page.goto(f"{base}/projects/{pid}/import/")
    every_problem_of_a_broken_file_listed(page)
    import_texts_ten_assigned(page, base, pid)
    assign_the_documents_matching_the_filters(page, base, pid, artifacts)
