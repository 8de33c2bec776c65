"""Page-load benchmark of the annotation page, in Chromium.

Measures, for a ~5,000-character document with 50 (overlapping) spans, the time from
navigation start until the page is interactive:

- ``ready``: the app has fetched the document, annotation and project, rendered the text,
  spans, lanes and sidebar, and focused the text (``performance.mark("app-ready")``, the same
  moment it sets ``<html data-ready>``);
- ``keyboard``: a first keyboard interaction (ArrowDown selects the first sentence) has
  been handled and rendered, as seen by the test driver.

By default it starts its own servers like the e2e tests (temporary SQLite database,
migrations, seed data, gunicorn); ``--url`` with ``--document`` uses a running server.

    .venv/bin/python bench/page_load.py [--runs 15]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from browser import CHROMIUM, launch, login_state  # bench/ is the script's folder
from machine import describe_machine
from servers import start_web_server

ROOT = Path(__file__).resolve().parents[1]


def start_servers(tmp: Path) -> tuple[str, dict, subprocess.Popen]:
    env = {
        k: v for k, v in os.environ.items() if k not in ("DJANGO_SETTINGS_MODULE", "DATABASE_URL")
    }
    env["FALLACY_DATA_DIR"] = str(tmp)
    py = sys.executable
    subprocess.run([py, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    out = subprocess.run(
        [py, "tests/e2e/seed.py", "--bench"],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    seed = json.loads(out.stdout.strip().splitlines()[-1])["long"]
    try:
        url, proc = start_web_server(env)
    except RuntimeError as error:
        raise SystemExit(str(error)) from None
    return url, seed, proc


def measure(url: str, document: int, username: str, password: str, runs: int) -> dict:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = launch(p)
        # Log in once; every run gets a fresh context (empty HTTP cache) with the session.
        state = login_state(browser, url, username, password)

        results = []
        for i in range(runs + 1):  # the first run warms the server up and is discarded
            ctx = browser.new_context(storage_state=state, viewport={"width": 1440, "height": 900})
            page = ctx.new_page()
            page.goto(f"{url}/documents/{document}/", wait_until="commit")
            page.wait_for_selector("html[data-ready]", timeout=15000)
            page.keyboard.press("ArrowDown")
            page.wait_for_function(
                "document.getElementById('sent-0')?.getAttribute('aria-selected') === 'true'"
            )
            timing = page.evaluate(
                """() => {
                  const nav = performance.getEntriesByType('navigation')[0];
                  return {
                    keyboard: performance.now(),
                    ready: performance.getEntriesByName('app-ready')[0].startTime,
                    data: performance.getEntriesByName('app-data')[0].startTime,
                    script: performance.getEntriesByType('resource')
                      .find((e) => e.name.endsWith('.js')).responseEnd,
                    dcl: nav.domContentLoadedEventEnd,
                    spans: document.querySelectorAll('.spans .span-item').length,
                    api: performance.getEntriesByType('resource')
                      .filter((e) => e.name.includes('/api/'))
                      .map((e) => [new URL(e.name).pathname, e.startTime, e.responseEnd]),
                    chars: [...document.querySelectorAll('.doc-text .sent, .doc-text .gap')]
                      .reduce((n, e) => n + e.textContent.length, 0),
                  };
                }"""
            )
            ctx.close()
            if i > 0:
                results.append(timing)
        version = browser.version
        browser.close()
    return {"runs": results, "chromium": version}


def summary(values: list[float]) -> str:
    return f"median {statistics.median(values):7.1f} ms   max {max(values):7.1f} ms"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--url", help="use a running server instead of starting one")
    ap.add_argument("--document", type=int, help="document id (with --url)")
    ap.add_argument("--username", default="bench-annotator")
    ap.add_argument("--password", default="fallacy-demo")
    args = ap.parse_args()
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"Chromium not found at {CHROMIUM} (apt-get install chromium)")
    if not (ROOT / "frontend" / "dist" / "index.html").exists():
        raise SystemExit("frontend/dist is missing: cd frontend && npm ci && npm run build")

    proc = None
    tmp = None
    try:
        if args.url:
            url, document = args.url.rstrip("/"), args.document
            if not document:
                raise SystemExit("--document is required with --url")
        else:
            tmp = Path(tempfile.mkdtemp(prefix="fallacy-bench-"))
            url, seed, proc = start_servers(tmp)
            document = seed["document"]
        out = measure(url, document, args.username, args.password, args.runs)
    finally:
        if proc:
            proc.terminate()
            proc.wait(timeout=10)
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)

    runs = out["runs"]
    print(f"machine:   {describe_machine()}")
    print(f"browser:   Chromium {out['chromium']} (headless), server: gunicorn on 127.0.0.1")
    print(
        f"document:  {runs[0]['chars']} characters shown, {runs[0]['spans']} spans; "
        f"{len(runs)} runs, fresh browser context (cold HTTP cache) each"
    )
    print(f"DOMContentLoaded:           {summary([r['dcl'] for r in runs])}")
    print(f"app script loaded:          {summary([r['script'] for r in runs])}")
    print(f"API data received:          {summary([r['data'] for r in runs])}")
    print(f"ready (data-ready set):     {summary([r['ready'] for r in runs])}")
    print(f"first keyboard interaction: {summary([r['keyboard'] for r in runs])}")
    calls: dict[str, list[float]] = {}
    for r in runs:
        for path, start, end in r["api"]:
            calls.setdefault(path, []).append(end - start)
    for path, durations in calls.items():
        print(f"  {path:<34} {summary(durations)}")
    worst = max(r["keyboard"] for r in runs)
    print("verdict:   " + ("under 1 s" if worst < 1000 else f"SLOWER than 1 s ({worst:.0f} ms)"))


if __name__ == "__main__":
    main()
