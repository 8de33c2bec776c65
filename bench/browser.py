"""Chromium for the browser benchmarks: Debian's binary through Playwright (never downloaded).

Imported by the scripts in bench/ (their folder is on ``sys.path`` when run as
``.venv/bin/python bench/<script>.py``).
"""

from __future__ import annotations

import os
from typing import Any

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def launch(playwright: Any) -> Any:
    """A headless Chromium browser from a ``sync_playwright()`` handle."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


def login_state(browser: Any, url: str, username: str, password: str) -> dict[str, Any]:
    """Log in once through the API; the storage state (session cookies) for fresh contexts."""
    ctx = browser.new_context()
    ctx.request.get(url + "/api/auth/csrf/")
    token = next(c["value"] for c in ctx.cookies() if c["name"] == "csrftoken")
    r = ctx.request.post(
        url + "/api/auth/login/",
        data={"username": username, "password": password},
        headers={"X-CSRFToken": token},
    )
    if not r.ok:
        raise RuntimeError(f"login failed: {r.status} {r.text()[:200]}")
    state = ctx.storage_state()
    ctx.close()
    return state
