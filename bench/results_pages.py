"""The Results pages in Chromium: the time from navigation start until they are usable.

Builds the data of ``bench/results_api.py`` (its builders, imported) into a temporary
``FALLACY_DATA_DIR`` with the embedded SQLite default:

(a) an item project with the FLUB preset and FLUB's 834 items, ``--models`` models x 2
    fields finished item runs (default 40 runs), scored, and 3 annotators;
(b) the MAFALDA user study: its gold, the four annotators' work and ``--gold-runs``
    finished runs (default 10), scored.

Then drops every stored board, starts gunicorn (2 workers x 4 threads) on the data folder,
logs in as a superuser and opens, each time in a fresh browser context (empty HTTP cache):

- ``/projects/<id>/results/`` (the item project's Results tab);
- ``/projects/<id>/leaderboard/<gold id>/`` (the gold version's leaderboard).

"Usable" is the page's ``app-ready`` performance mark, set in the frame after the board's
tables are rendered with their rows (the same frame as ``<html data-ready="results">`` /
``"leaderboard"``). Per page: the first visit (cold: the server computes and stores the
board), one visit to settle it (not counted, as in ``results_api.py``), then the p50 and
p95 of ``--visits`` warm visits (the board stored). Each visit waits for the page's
network to go idle before the next one, so no request of a visit overlaps the next.
Beside the ready time, the board request's own duration as the browser saw it.

Prints the machine, then one line per page.

    .venv/bin/python bench/results_pages.py [--models 20] [--gold-runs 10] [--visits 10]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from browser import CHROMIUM, launch, login_state  # bench/ is the script's folder
from machine import describe_machine
from results_api import (
    FIELDS,
    FLUB,
    MAFALDA,
    SHARED,
    build_item_project,
    build_user_study,
    setup_django,
)
from servers import HOST, ROOT, start_web_server

USERNAME = "bench-admin"
PASSWORD = "bench-" + uuid.uuid4().hex[:12]
COLD_TIMEOUT_MS = 300_000
WARM_TIMEOUT_MS = 60_000
# What the browser reads once the page is ready: the mark, the rows, the board request.
READ_PAGE = """([table, row, api]) => {
  const board = performance.getEntriesByType('resource').find((e) => e.name.includes(api));
  return {
    ready: performance.getEntriesByName('app-ready')[0].startTime,
    rows: document.querySelectorAll(`${table} ${row}`).length,
    tables: document.querySelectorAll(table).length,
    board: board ? board.responseEnd - board.startTime : null,
  };
}"""


@dataclass
class Page:
    """A Results page: its ready signal, path, board table and row, and board request."""

    label: str
    ready: str
    path: str
    table: str
    row: str
    api: str


@dataclass
class Visit:
    """One visit's figures, in ms from navigation start (``board``: the request alone)."""

    ready: float
    board: float
    rows: int
    tables: int


# --- data -----------------------------------------------------------------------------------------


def build(models: int, gold_runs: int) -> tuple[list[Page], float]:
    """Builds (a) and (b) and the superuser in this process; the pages and the build's seconds."""
    started = time.perf_counter()
    setup_django()
    from django.contrib.auth.models import User
    from django.db import connections

    from evaluation.models import StoredBoard

    rng = random.Random(7)
    project = build_item_project(models, rng)
    gold = build_user_study(gold_runs, rng)
    User.objects.create_superuser(USERNAME, password=PASSWORD)
    StoredBoard.objects.all().delete()  # the first visit computes each board
    connections.close_all()
    pages = [
        Page(
            label=f"(a) Results, {models * len(FIELDS)} item runs x 834 + 3 people",
            ready="results",
            path=f"/projects/{project.pk}/results/",
            table='[data-testid="results-table"]',
            row='[data-testid="results-row"]',
            api="/item-leaderboard/",
        ),
        Page(
            label=f"(b) user study leaderboard, {gold_runs} runs + 4 people",
            ready="leaderboard",
            path=f"/projects/{gold.project_id}/leaderboard/{gold.pk}/",
            table='[data-testid="leaderboard-table"]',
            row="tr[data-kind]",
            api="/api/evaluation/leaderboard/",
        ),
    ]
    return pages, time.perf_counter() - started


def server_env(data_dir: str) -> dict[str, str]:
    """gunicorn's environment: the data folder's SQLite and file broker (no Redis)."""
    dropped = ("DJANGO_SETTINGS_MODULE", "DATABASE_URL", "CELERY_BROKER_URL")
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    env["FALLACY_DATA_DIR"] = data_dir
    return env


# --- Chromium -------------------------------------------------------------------------------------


def visit(browser: Any, state: dict[str, Any], url: str, page: Page, timeout: int) -> Visit:
    """Opens ``page`` in a fresh context; its figures once ready (after the network settles)."""
    ctx = browser.new_context(storage_state=state, viewport={"width": 1440, "height": 900})
    try:
        tab = ctx.new_page()
        tab.goto(url + page.path, wait_until="commit")
        tab.wait_for_selector(f'html[data-ready="{page.ready}"]', timeout=timeout)
        figures = tab.evaluate(READ_PAGE, [page.table, page.row, page.api])
        tab.wait_for_load_state("networkidle", timeout=timeout)
    finally:
        ctx.close()
    if not figures["rows"]:
        raise RuntimeError(f"{page.path}: ready without rows (the board did not load)")
    return Visit(
        ready=figures["ready"],
        board=figures["board"] or float("nan"),
        rows=figures["rows"],
        tables=figures["tables"],
    )


def warm_up(browser: Any, state: dict[str, Any], url: str, pages: list[Page]) -> None:
    """The projects' pages once (not timed): the workers' first requests and the app's assets
    served, without asking for a board."""
    for page in pages:
        project = page.path.split("/")[2]
        for _ in range(2):  # both gunicorn workers, likely
            ctx = browser.new_context(storage_state=state)
            tab = ctx.new_page()
            tab.goto(f"{url}/projects/{project}/", wait_until="load")
            tab.wait_for_load_state("networkidle")
            ctx.close()


def measure(url: str, pages: list[Page], visits: int) -> tuple[str, list[dict[str, Any]]]:
    """Chromium's version and, per page, its cold visit and warm visits."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = launch(p)
        try:
            state = login_state(browser, url, USERNAME, PASSWORD)
            warm_up(browser, state, url, pages)
            out = []
            for page in pages:
                cold = visit(browser, state, url, page, COLD_TIMEOUT_MS)
                visit(browser, state, url, page, WARM_TIMEOUT_MS)  # settles the stored board
                warm = [visit(browser, state, url, page, WARM_TIMEOUT_MS) for _ in range(visits)]
                out.append({"page": page, "cold": cold, "warm": warm})
            return browser.version, out
        finally:
            browser.close()


# --- report ---------------------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def report_line(result: dict[str, Any]) -> str:
    page, cold, warm = result["page"], result["cold"], result["warm"]
    ready = [v.ready for v in warm]
    board = [v.board for v in warm]
    return (
        f"{page.label:52} cold {cold.ready:8.0f} (board {cold.board:7.0f}) | "
        f"warm p50 {statistics.median(ready):6.0f} p95 {percentile(ready, 0.95):6.0f} "
        f"(board p50 {statistics.median(board):5.0f}) | "
        f"{cold.rows} rows in {cold.tables} board table{'s' if cold.tables > 1 else ''}"
    )


def check_prerequisites() -> None:
    if not Path(CHROMIUM).exists():
        sys.exit(f"Chromium not found at {CHROMIUM} (apt-get install chromium)")
    if not (ROOT / "frontend" / "dist" / "index.html").exists():
        sys.exit("frontend/dist is missing: cd frontend && npm ci && npm run build")
    if not FLUB.exists() or not MAFALDA.exists():
        sys.exit(f"shared datasets not found under {SHARED}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", type=int, default=20, help="models x 2 fields item runs")
    parser.add_argument("--gold-runs", type=int, default=10)
    parser.add_argument("--visits", type=int, default=10, help="warm visits per page")
    args = parser.parse_args()
    check_prerequisites()
    print(describe_machine(), flush=True)
    data_dir = tempfile.mkdtemp(prefix="bench-results-pages-")
    os.environ["FALLACY_DATA_DIR"] = data_dir
    os.environ.pop("DATABASE_URL", None)  # the embedded SQLite in the data folder
    proc: subprocess.Popen | None = None
    try:
        pages, built = build(args.models, args.gold_runs)
        url, proc = start_web_server(server_env(data_dir))
        version, results = measure(url, pages, args.visits)
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=10)
        shutil.rmtree(data_dir, ignore_errors=True)
    print(
        f"data built in {built:.0f} s (SQLite); Chromium {version} headless, gunicorn 2x4 on "
        f"{HOST}; fresh context per visit; ms from navigation start to app-ready "
        f"(board: its API request alone); warm: {args.visits} visits"
    )
    for result in results:
        print(report_line(result))


if __name__ == "__main__":
    main()
