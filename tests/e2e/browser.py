"""What the browser tests do in a page: log in, call the API with the page's session, wait
for a save, point at a line box, select text as a drag would."""

from __future__ import annotations

import json

from playwright.sync_api import Page, expect

from tests.e2e.conftest import PASSWORD


def login(page: Page, base: str, username: str) -> None:
    page.goto(base + "/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.keyboard.press("Enter")
    page.wait_for_url(base + "/")
    expect(page.get_by_role("heading", name="Your projects")).to_be_visible()


def api(page: Page, base: str, method: str, path: str, data: dict | None = None):
    token = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    resp = page.request.fetch(
        base + path,
        method=method,
        headers={"X-CSRFToken": token, "Content-Type": "application/json"},
        data=json.dumps(data) if data is not None else None,
    )
    assert resp.ok, f"{method} {path}: {resp.status} {resp.text()}"
    return resp.json() if resp.status != 204 else None


def my_annotation(page: Page, base: str, doc: int) -> dict:
    return api(page, base, "POST", f"/api/documents/{doc}/my-annotation/", {})


def wait_saved(page: Page) -> None:
    expect(page.locator(".save-status")).to_have_attribute("data-save-state", "saved")
    expect(page.locator(".save-status [role=status]")).to_have_text("Saved")


def point_in(page: Page, selector: str, line: int) -> tuple[float, float]:
    """The centre of one line box of an inline element (0: first line, -1: last)."""
    return page.evaluate(
        """([s, line]) => {
            const rects = [...document.querySelector(s).getClientRects()];
            const r = rects.at(line);
            return [r.x + r.width / 2, r.y + r.height / 2];
        }""",
        [selector, line],
    )


def select_text(page: Page, test_id: str, start: int, end: int) -> None:
    """Select characters [start, end) of the element's text as a user's drag would."""
    page.get_by_test_id(test_id).evaluate(
        """(el, [start, end]) => {
            const point = (want) => {
                const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
                let pos = 0, node;
                while ((node = walker.nextNode())) {
                    const len = node.textContent.length;
                    if (want <= pos + len) return [node, want - pos];
                    pos += len;
                }
                throw new Error(`offset ${want} is past the text`);
            };
            const range = document.createRange();
            range.setStart(...point(start));
            range.setEnd(...point(end));
            const sel = window.getSelection();
            sel.removeAllRanges();
            sel.addRange(range);
            el.dispatchEvent(new MouseEvent("mouseup", { bubbles: true }));
        }""",
        [start, end],
    )
