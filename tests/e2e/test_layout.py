"""Layout in Chromium at 1,024 and 1,400 px: the project tabs hold their place on every tab
and fit one row; the leaderboard fits at 1,400 px and says it scrolls sideways when it does
not; a form's error goes once its field is edited; the rule editor numbers its lines and
marks the line swipl refused; lists without a style of their own are indented.
Data: the demo (``seed.py``), ``seed_leaderboard.py`` and ``seed_generation.py``."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from tests.e2e import seed_generation
from tests.e2e.browser import api, login
from tests.e2e.conftest import run_seed
from tests.e2e.test_csp import watch_csp

pytestmark = pytest.mark.e2e

DEMO_PROJECT = "Demo: everyday arguments"
WIDTHS = [1024, 1400]
# The tabs a project admin sees on a span project, in order.
ADMIN_TABS = [
    "documents", "import", "members", "assign", "settings", "suggestions",
    "review", "adjudication", "gold", "runs",
]  # fmt: skip


@pytest.fixture(params=WIDTHS, ids=lambda w: f"{w}px")
def sized(browser, request) -> Iterator[Page]:
    """A page of the given width (900 px high) failing the test on a JavaScript error."""
    ctx = browser.new_context(viewport={"width": request.param, "height": 900})
    ctx.set_default_timeout(15_000)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    yield page
    ctx.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def width(page: Page) -> int:
    return page.viewport_size["width"]


def box(page: Page, selector: str) -> dict:
    return page.locator(selector).first.bounding_box()


def test_project_tabs_keep_their_place_and_fit_one_row(sized: Page, web_server, artifacts) -> None:
    page, base = sized, web_server.url
    login(page, base, "demo-admin")
    project = next(
        p["id"]
        for p in api(page, base, "GET", "/api/projects/")["results"]
        if p["name"] == DEMO_PROJECT
    )
    page.goto(f"{base}/projects/{project}/")
    nav = page.get_by_role("navigation", name="Project")
    expect(nav.locator("a")).to_have_count(len(ADMIN_TABS))
    first_nav = nav.bounding_box()
    first_tabs = [page.get_by_test_id(f"tab-{t}").bounding_box() for t in ADMIN_TABS]
    # one row: every tab at the same height, the bar no taller than one tab
    assert {round(b["y"]) for b in first_tabs} == {round(first_tabs[0]["y"])}
    assert first_nav["height"] < 2 * first_tabs[0]["height"]
    assert first_nav["width"] == width(page)  # the whole width, on every tab (checked below)
    for tab in ADMIN_TABS[1:] + ADMIN_TABS[:1]:
        page.get_by_test_id(f"tab-{tab}").click()
        expect(page.get_by_test_id(f"tab-{tab}")).to_have_attribute("aria-current", "page")
        page.wait_for_load_state("networkidle")
        assert nav.bounding_box() == first_nav, f"the tab bar moved on the {tab} tab"
        now = [page.get_by_test_id(f"tab-{t}").bounding_box() for t in ADMIN_TABS]
        # the tabs' places and widths: the same, whichever tab is active (bold)
        for name, was, isnow in zip(ADMIN_TABS, first_tabs, now, strict=True):
            assert abs(isnow["y"] - was["y"]) < 0.5, name
            assert abs(isnow["x"] - was["x"]) < 0.5, name
            assert abs(isnow["width"] - was["width"]) < 0.5, name
        if tab in ("import", "review", "runs"):
            page.screenshot(path=str(artifacts / f"layout-tabs-{tab}-{width(page)}.png"))


def test_leaderboard_fits_or_says_it_scrolls(sized: Page, web_server, artifacts) -> None:
    page, base = sized, web_server.url
    seed = run_seed(web_server, "seed_leaderboard.py")
    login(page, base, seed["admin"])
    page.goto(f"{base}/projects/{seed['project']}/leaderboard/{seed['gold']}/")
    table = page.get_by_test_id("leaderboard-table")
    expect(table).to_be_visible(timeout=30_000)
    scroll = page.get_by_test_id("leaderboard-scroll")
    scroller = scroll.locator(".table-wrap")
    last_head = table.locator("thead tr").nth(1).locator("th").last
    expect(last_head).to_have_text("Time")
    sizes = scroller.evaluate("el => [el.scrollWidth, el.clientWidth]")
    page.screenshot(path=str(artifacts / f"layout-leaderboard-{width(page)}.png"), full_page=True)
    if width(page) >= 1400:
        # the whole table in view: nothing clipped, nothing to scroll, no hint
        assert sizes[0] <= sizes[1], f"the table is {sizes[0]} px wide in {sizes[1]} px"
        assert last_head.bounding_box()["x"] + last_head.bounding_box()["width"] <= (
            scroller.bounding_box()["x"] + scroller.bounding_box()["width"] + 0.5
        )
        expect(scroll).to_have_attribute("data-overflow", "false")
        expect(page.get_by_test_id("scroll-hint")).to_have_count(0)
        return
    if sizes[0] <= sizes[1]:  # it fits at this width too: nothing to mark
        expect(page.get_by_test_id("scroll-hint")).to_have_count(0)
        return
    # wider than the window: said above the table, a shadow on the hidden side
    expect(scroll).to_have_attribute("data-overflow", "true")
    expect(page.get_by_test_id("scroll-hint")).to_be_visible()
    expect(page.get_by_test_id("scroll-hint")).to_contain_text("scroll sideways")
    shadow = "el => getComputedStyle(el.querySelector('.scroll-x-frame'), '::after').opacity"
    deadline = time.monotonic() + 2  # the shadow fades in (a 150 ms transition)
    while scroll.evaluate(shadow) != "1" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert scroll.evaluate(shadow) == "1"
    expect(scroller).to_have_attribute("role", "region")
    name_cell = table.locator("tbody th.lb-name").first
    name_x = name_cell.bounding_box()["x"]
    page.get_by_role("button", name="Scroll the table right").click()
    expect(scroll).to_have_attribute("data-more-right", "false")
    expect(scroll).to_have_attribute("data-more-left", "true")
    right = scroller.bounding_box()["x"] + scroller.bounding_box()["width"]
    head = last_head.bounding_box()
    assert head["x"] + head["width"] <= right + 0.5  # the last column now in view
    # the names stayed in view, at the scroller's left edge
    assert abs(name_cell.bounding_box()["x"] - scroller.bounding_box()["x"]) < 2
    assert name_x >= scroller.bounding_box()["x"]
    page.screenshot(path=str(artifacts / f"layout-leaderboard-scrolled-{width(page)}.png"))


def test_a_field_error_goes_once_the_field_is_edited(page: Page, web_server, artifacts) -> None:
    base = web_server.url
    login(page, base, "demo-admin")
    page.goto(f"{base}/projects/new/")
    page.get_by_test_id("create-project").click()
    summary = page.get_by_test_id("project-errors")
    expect(summary).to_contain_text("Give the project a name.")
    expect(summary).to_contain_text("Choose a taxonomy")
    name = page.get_by_test_id("project-name")
    expect(name).to_have_attribute("aria-invalid", "true")
    page.screenshot(path=str(artifacts / "layout-form-errors.png"), full_page=True)

    name.click()
    page.keyboard.type("Layout check")
    expect(summary).not_to_contain_text("Give the project a name.")
    expect(summary).to_contain_text("Choose a taxonomy")  # the other field's error stays
    expect(name).not_to_have_attribute("aria-invalid", "true")
    expect(name).to_be_focused()  # editing does not move the focus to the summary
    expect(name).to_have_value("Layout check")
    page.screenshot(path=str(artifacts / "layout-form-errors-fixed.png"), full_page=True)


@pytest.fixture(scope="module")
def generation(web_server) -> dict:
    return run_seed(web_server, "seed_generation.py")


def test_rule_editor_numbers_lines_and_marks_the_refused_one(
    page: Page, web_server, generation: dict, artifacts
) -> None:
    base = web_server.url
    violations = watch_csp(page)
    scripts: list[str] = []
    page.on("request", lambda r: scripts.append(r.url) if r.url.endswith(".js") else None)
    login(page, base, seed_generation.ADMIN)
    page.goto(f"{base}/generation/rules/")
    page.get_by_test_id("rule-version").first.click()
    source = page.get_by_test_id("rule-source").text_content()
    assert not [u for u in scripts if "RuleEditor" in u]  # CodeMirror is not loaded to read
    page.get_by_test_id("rule-copy").click()

    editor = page.get_by_test_id("rule-editor")
    content = editor.get_by_role("textbox", name="Rule file")
    expect(content).to_be_visible()
    assert [u for u in scripts if "RuleEditor" in u]  # its own chunk, loaded for the edit
    lines = source.split("\n")
    numbers = editor.locator(".cm-lineNumbers .cm-gutterElement")
    expect(numbers.last).to_have_text(str(len(lines)))
    # CodeMirror's styles apply (a nonce'd style element), with no CSP violation
    assert editor.locator(".cm-editor").evaluate("el => getComputedStyle(el).display") == "flex"
    assert page.evaluate("[...document.querySelectorAll('style')].some(s => s.nonce)")

    # break the first clause's body: swipl refuses, naming a line
    clause = next(i for i, line in enumerate(lines) if line.rstrip().endswith(":-"))
    editor.locator(".cm-line").nth(clause + 1).click()
    page.keyboard.press("End")
    page.keyboard.type(" oops((")
    page.get_by_test_id("rule-save").click()
    errors = page.get_by_test_id("rule-errors")
    expect(errors).to_contain_text("swipl refused the file")
    refused = int(re.search(r"\bline (\d+)\b", errors.text_content()).group(1))
    marked = editor.get_by_test_id("refused-line")
    expect(marked).to_have_count(1)
    expect(editor.locator(".cm-refused-gutter")).to_have_text(str(refused))
    edited = source.split("\n")
    edited[clause + 1] += " oops(("
    expect(marked).to_have_text(edited[refused - 1].strip())
    expect(page.get_by_test_id("rule-error-line")).to_contain_text(f"Line {refused}")
    page.screenshot(path=str(artifacts / "layout-rule-editor-refused.png"))

    # the caret waits on the refused line: typing there drops its mark
    expect(content).to_be_focused()
    page.keyboard.type("x")
    expect(marked).to_have_count(0)
    expect(page.get_by_test_id("rule-error-edited")).to_contain_text(f"You changed line {refused}")
    # undo takes both edits back; the file saves
    for _ in range(5):  # more than the two edits' history events
        page.keyboard.press("Control+z")
    expect(content).not_to_contain_text("oops")
    page.get_by_test_id("rule-save").click()
    expect(page.get_by_test_id("rule-saved")).to_contain_text("Saved as")
    assert not violations, "\n".join(violations)


def test_plain_lists_are_indented_with_markers(page: Page, web_server, generation: dict) -> None:
    base = web_server.url
    login(page, base, seed_generation.REVIEWER)
    page.goto(f"{base}/generation/jobs/{generation['job']}/")
    facts = page.get_by_test_id("generation-progress").locator("ul").first
    expect(facts).to_contain_text("Items kept")
    panel = page.get_by_test_id("generation-progress").bounding_box()
    item = facts.locator("li").first
    style = item.evaluate(
        "li => [getComputedStyle(li).display, getComputedStyle(li.parentElement).paddingLeft]"
    )
    assert style[0] == "list-item"  # a marker before each
    assert float(style[1].removesuffix("px")) >= 16  # room for the markers
    assert item.bounding_box()["x"] >= panel["x"] + 16  # the markers inside the panel
