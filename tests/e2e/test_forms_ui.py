"""Two forms in Chromium: the generation launch page (only the projects that fit, a local
model preselected, each refusal beside its field in words, cleared once the field changes;
the defaults launch) and the justification templates setting (required refuses to submit,
server side too; optional warns; off shows no template), the submit dialog listing the spans
with empty slots as links to them. Data: ``tests/e2e/seed_forms.py``."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e import seed_forms as seed
from tests.e2e.browser import api, login, wait_saved
from tests.e2e.conftest import run_seed

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def seeded(web_server) -> dict:
    return run_seed(web_server, "seed_forms.py")


def field_of(page: Page, test_id: str):
    """The labelled field (label, control, messages) around a control."""
    return page.locator(".field", has=page.get_by_test_id(test_id))


def test_generation_launch_offers_what_fits_and_shows_errors_at_fields(
    web_server, seeded: dict, page: Page, artifacts
) -> None:
    base = web_server.url
    login(page, base, seed.LAUNCHER)
    page.goto(f"{base}/generation/new/")
    project = page.get_by_test_id("gen-project")
    expect(project.locator("option")).to_have_text([seed.FITS])  # not the span or FLUB project
    expect(project).to_have_value(seed.FITS)
    model = page.get_by_test_id("gen-model-choice")
    expect(model).to_have_value("0")
    expect(model.locator("option:checked")).to_contain_text("SmolLM2")
    page.screenshot(path=str(artifacts / "generation-launch-defaults.png"), full_page=True)

    # another model, refused: each message beside its field, in words
    model.select_option("other")
    page.get_by_test_id("gen-backend").select_option("openai")
    page.get_by_test_id("gen-submit").click()
    expect(page.get_by_test_id("gen-errors")).to_contain_text("Nothing was started")
    name_errors = field_of(page, "gen-model").get_by_test_id("field-error")
    settings_errors = field_of(page, "gen-settings").get_by_test_id("field-error")
    expect(name_errors).to_have_text("A model name or path is required")
    expect(settings_errors).to_contain_text("No server address: set the server address (base_url)")
    expect(page.locator("main")).not_to_contain_text("model.settings")
    expect(page.locator("main")).not_to_contain_text("model.model")
    page.screenshot(path=str(artifacts / "generation-launch-errors.png"), full_page=True)

    # fixing a field clears its message (and only its message)
    page.get_by_test_id("gen-model").fill("my-model")
    expect(name_errors).to_have_count(0)
    expect(settings_errors).to_be_visible()
    page.get_by_test_id("gen-settings").fill('{"base_url": "http://127.0.0.1:9/v1"}')
    expect(settings_errors).to_have_count(0)

    # the defaults launch as they are
    model.select_option("0")
    page.get_by_test_id("gen-submit").click()
    page.wait_for_url(re.compile(r"/generation/jobs/\d+/$"))
    job = int(re.search(r"/jobs/(\d+)/", page.url).group(1))
    stored = api(page, base, "GET", f"/api/evaluation/generation-jobs/{job}/")
    assert stored["project_name"] == seed.FITS and stored["backend"] == "transformers"
    assert stored["status"] == "queued"  # no worker takes the gpu queue in this module
    # the job would wait in this server's queue and hold the next module's worker for minutes
    assert run_seed(web_server, "seed_forms.py", "end-job", str(job)) == {"ended": 1}


def make_span(page: Page, label: str) -> None:
    """A span on the first sentence with one label, by keyboard; back to the text."""
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    page.keyboard.type(label)
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")
    expect(page.locator(".editor")).to_be_visible()
    page.keyboard.press("Escape")
    wait_saved(page)


def open_document(page: Page, base: str, doc: int) -> None:
    page.goto(f"{base}/documents/{doc}/")
    page.wait_for_selector("html[data-ready]")


def submit_raw(page: Page, base: str, doc: int):
    """POST submit as the page's user, whatever the answer."""
    annotation = api(page, base, "POST", f"/api/documents/{doc}/my-annotation/", {})["id"]
    token = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    return page.request.post(
        f"{base}/api/annotations/{annotation}/submit/",
        headers={"X-CSRFToken": token, "Content-Type": "application/json"},
        data="{}",
    )


def submit_in_dialog(page: Page) -> None:
    page.get_by_role("dialog").get_by_role("button", name="Submit", exact=True).click()
    expect(page.locator(".banner")).to_contain_text("Submitted")


def require_in_settings(admin: Page, base: str, project: int, artifacts) -> None:
    """The admin makes templates required on the settings page."""
    admin.goto(f"{base}/projects/{project}/settings/")
    expect(admin.get_by_test_id("project-templates")).to_have_value("optional")
    admin.get_by_test_id("project-templates").select_option("required")
    admin.get_by_test_id("save-settings").click()
    expect(admin.get_by_test_id("settings-status")).to_have_text("Saved.")
    admin.get_by_test_id("project-templates").scroll_into_view_if_needed()
    admin.screenshot(path=str(artifacts / "templates-settings.png"))
    stored = api(admin, base, "GET", f"/api/projects/{project}/")
    assert stored["justification_templates"] == "required"


def required_refuses_until_filled(page: Page, base: str, doc: int, artifacts) -> None:
    """The dialog lists the span and refuses, and so does the server; the link opens the
    span at its first empty slot; filled, the document submits."""
    open_document(page, base, doc)
    make_span(page, "ad hom")
    page.get_by_role("button", name="Submit document").click()
    gaps = page.get_by_test_id("template-gaps")
    expect(gaps).to_have_attribute("data-mode", "required")
    expect(gaps.get_by_test_id("template-gap")).to_have_text(["Sentence 1, ad hominem"])
    expect(gaps).to_contain_text("empty: E, P, A")
    expect(page.get_by_test_id("submit-confirm")).to_be_disabled()
    page.screenshot(path=str(artifacts / "templates-required-dialog.png"))
    refused = submit_raw(page, base, doc)
    assert refused.status == 400
    assert re.fullmatch(
        r"span \d+ \(sentence 1\), ad hominem: fill the slots E, P, A "
        r"\(templates are required\)",
        refused.json()["spans"][0],
    )

    gaps.get_by_test_id("template-gap").click()
    expect(page.get_by_test_id("submit-dialog")).not_to_be_visible()
    focused = page.locator(".editor input[data-slot]:focus")
    expect(focused).to_have_attribute("data-slot", "E")
    expect(focused).to_have_attribute("data-label", "ad hominem")
    page.screenshot(path=str(artifacts / "templates-go-to-span.png"))
    for slot, value in (("E", "the speaker"), ("P", "lower taxes"), ("A", "he cheated")):
        page.locator(f'.editor input[data-slot="{slot}"]').fill(value)
    wait_saved(page)
    page.get_by_role("button", name="Submit document").click()
    expect(page.get_by_test_id("template-gaps")).to_have_count(0)
    submit_in_dialog(page)


def optional_warns(page: Page, base: str, doc: int, artifacts) -> None:
    """A warning listing the span; submitting goes ahead."""
    open_document(page, base, doc)
    make_span(page, "slippery")
    page.get_by_role("button", name="Submit document").click()
    gaps = page.get_by_test_id("template-gaps")
    expect(gaps).to_have_attribute("data-mode", "optional")
    expect(gaps.get_by_test_id("template-gap")).to_have_text(["Sentence 1, slippery slope"])
    page.screenshot(path=str(artifacts / "templates-optional-dialog.png"))
    submit_in_dialog(page)


def off_hides_templates(page: Page, base: str, doc: int, artifacts) -> None:
    """No template, no slot, no warning; the definition and the explanation stay."""
    open_document(page, base, doc)
    make_span(page, "hasty")
    page.locator(".span-item").first.click()
    expect(page.locator(".editor")).to_be_visible()
    expect(page.locator(".editor .template")).to_have_count(0)
    expect(page.locator(".editor input[data-slot]")).to_have_count(0)
    expect(page.locator(".editor textarea[data-explanation]")).to_have_count(1)
    expect(page.locator(".guidelines .label-help")).to_be_visible()
    expect(page.locator(".guidelines .template")).to_have_count(0)
    page.screenshot(path=str(artifacts / "templates-off-editor.png"))
    page.get_by_role("button", name="Submit document").click()
    expect(page.get_by_test_id("template-gaps")).to_have_count(0)
    submit_in_dialog(page)


def test_templates_required_refuse_optional_warn_off_hide(
    web_server, seeded: dict, page: Page, browser, artifacts
) -> None:
    base, project = web_server.url, seeded["templates"]["project"]
    first, second, third = seeded["templates"]["documents"]
    settings = f"/api/projects/{project}/"
    admin_context = browser.new_context(viewport={"width": 1440, "height": 900})
    admin = admin_context.new_page()
    try:
        login(admin, base, seed.TPL_ADMIN)
        require_in_settings(admin, base, project, artifacts)
        login(page, base, seed.TPL_ANNOTATOR)
        required_refuses_until_filled(page, base, first, artifacts)
        api(admin, base, "PATCH", settings, {"justification_templates": "optional"})
        optional_warns(page, base, second, artifacts)
        api(admin, base, "PATCH", settings, {"justification_templates": "off"})
        off_hides_templates(page, base, third, artifacts)
    finally:
        admin_context.close()
