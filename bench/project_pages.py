"""The project's document list on a 10,000-document project, on PostgreSQL.

Creates a scratch PostgreSQL database, migrates it, installs the MAFALDA preset and builds a
project of 10,000 documents (100 to 3,000 characters), 5 annotators, each document assigned
to 2 of them by the assignment service (timed too), and annotations on about a third of the
assignments (half in progress, half submitted). Then:

- server side: p50/p95 of the document-list API in this process (Django's test Client with a
  session, so middleware, authentication, the queries and JSON rendering all count; no
  network), for the first page, a search, a status filter, a "fewer than" filter and a sort
  by length (as an admin), an annotator's first page, and the progress endpoint;
- in Chromium (Debian's, via Playwright; never downloaded): gunicorn on the scratch
  database, log in as the admin, open ``/projects/<id>/`` in a fresh context each run and
  time from navigation start until the page sets ``<html data-ready="project">`` (the first
  page of the list is rendered; read from its ``app-ready`` performance mark). Reported as
  "not measured: ..." when the browser, the build or the page's ready signal is missing.

Drops the database at the end.

    .venv/bin/python bench/project_pages.py [--documents 10000] [--runs 50] [--browser-runs 10]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from browser import CHROMIUM, launch, login_state  # bench/ is the script's folder
from machine import describe_machine
from servers import (
    HOST,
    ROOT,
    add_db_url_argument,
    create_database,
    drop_database,
    start_web_server,
)

PASSWORD = "bench-" + uuid.uuid4().hex[:12]
WORDS = (
    "policy taxes people government everyone always never because therefore experts "
    "economy freedom children future crisis plan opponent study shows clearly obviously "
    "dangerous society values tradition science media believe trust costs jobs"
).split()
SEARCH_TERM = "referendum"  # planted in about 1% of the texts


# --- data ----------------------------------------------------------------------------------------


def texts(count: int, rng: random.Random) -> list[tuple[str, list[tuple[int, int]]]]:
    """Texts of 100 to 3,000 characters made of sentences, with their sentence ranges."""
    out = []
    for i in range(count):
        target = rng.randint(100, 3000)
        parts: list[str] = []
        ranges: list[tuple[int, int]] = []
        pos = 0
        while pos < target:
            words = rng.choices(WORDS, k=rng.randint(6, 18))
            if i % 100 == 7 and not parts:
                words.insert(2, SEARCH_TERM)
            sentence = " ".join(words).capitalize() + "."
            start = pos + (1 if parts else 0)
            parts.append(sentence)
            ranges.append((start, start + len(sentence)))
            pos = start + len(sentence)
        out.append((" ".join(parts), ranges))
    return out


def setup_django(db_url: str) -> None:
    """Django in this process on the scratch database (connections kept, the test Client's
    host allowed), migrated."""
    os.environ["DATABASE_URL"] = db_url
    os.environ["DB_CONN_MAX_AGE"] = "60"
    os.environ["ALLOWED_HOSTS"] = f"{HOST},localhost,testserver"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fallacy_platform.settings")
    sys.path[:0] = [str(ROOT), str(ROOT / "platform")]
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def annotate_a_third(rng: random.Random, project: Any) -> int:
    """Annotations on a third of the project's assignments, half of them submitted; returns
    their number."""
    from django.utils import timezone

    from annotations.models import Annotation, Assignment

    pairs = list(
        Assignment.objects.filter(document__project=project).values_list(
            "document_id", "annotator_id"
        )
    )
    worked = rng.sample(pairs, len(pairs) // 3)
    Annotation.objects.bulk_create(
        [
            Annotation(
                document_id=doc,
                annotator_id=user,
                status="submitted" if i % 2 else "in_progress",
                submitted_at=timezone.now() if i % 2 else None,
            )
            for i, (doc, user) in enumerate(worked)
        ],
        batch_size=2000,
    )
    return len(worked)


def build(db_url: str, documents: int, annotators: int) -> dict[str, Any]:
    """Migrate and fill the scratch database in this process; returns ids and timings."""
    setup_django(db_url)
    from django.contrib.auth.models import User
    from django.db import connection, transaction

    from annotations.models import Membership
    from annotations.services.assignments import assign_to_annotators
    from annotations.services.documents import NewDocument, create_documents
    from annotations.services.projects import create_project
    from annotations.services.taxonomy import install_preset

    rng = random.Random(10)
    taxonomy = install_preset(name="mafalda")
    project = create_project(name="bench pages", taxonomy=taxonomy, annotators_per_document=2)
    admin = User.objects.create_user("bench-admin", password=PASSWORD)
    Membership.objects.create(project=project, user=admin, role="admin")
    team = []
    for i in range(annotators):
        user = User.objects.create_user(f"bench-annotator-{i}", password=PASSWORD)
        Membership.objects.create(project=project, user=user, role="annotator")
        team.append(user)
    started = time.perf_counter()
    with transaction.atomic():
        new = [
            NewDocument(text=text, external_id=f"doc-{i:05d}" if i % 2 else "", sentences=ranges)
            for i, (text, ranges) in enumerate(texts(documents, rng))
        ]
        create_documents(project=project, texts=new, first_position=0)
    import_s = time.perf_counter() - started

    started = time.perf_counter()
    report = assign_to_annotators(project=project, annotators=team, per_document=2, seed=1)
    assign_s = time.perf_counter() - started

    annotations = annotate_a_third(rng, project)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")  # what autovacuum does soon after a bulk load
        cursor.execute("SHOW server_version")
        pg_version = cursor.fetchone()[0]
    return {
        "project": project.pk,
        "admin": admin,
        "annotator": team[0],
        "assignments": report.created,
        "annotations": annotations,
        "import_s": import_s,
        "assign_s": assign_s,
        "pg_version": pg_version,
    }


# --- server side --------------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def time_api(fx: dict[str, Any], runs: int, only: str = "") -> list[tuple[str, float, float, int]]:
    from django.test import Client

    base = f"/api/projects/{fx['project']}"
    cases = [
        ("admin: first page (25)", fx["admin"], f"{base}/documents/"),
        ("admin: first page (100)", fx["admin"], f"{base}/documents/?limit=100"),
        ("admin: page 200 (offset 5000)", fx["admin"], f"{base}/documents/?offset=5000"),
        ("admin: search q=" + SEARCH_TERM, fx["admin"], f"{base}/documents/?q={SEARCH_TERM}"),
        ("admin: status=in_progress", fx["admin"], f"{base}/documents/?status=in_progress"),
        ("admin: status=done", fx["admin"], f"{base}/documents/?status=done"),
        ("admin: fewer_than=2", fx["admin"], f"{base}/documents/?fewer_than=2"),
        ("admin: ordering=-length", fx["admin"], f"{base}/documents/?ordering=-length"),
        ("admin: ordering=-updated", fx["admin"], f"{base}/documents/?ordering=-updated"),
        ("annotator: first page", fx["annotator"], f"{base}/documents/"),
        ("annotator: status=todo", fx["annotator"], f"{base}/documents/?status=todo"),
        ("admin: progress", fx["admin"], f"{base}/progress/"),
        ("admin: project list", fx["admin"], "/api/projects/"),
        # The fixed cost of any API request here (session, user, project, one small query).
        ("reference: next-document", fx["annotator"], f"{base}/next-document/"),
    ]
    out = []
    for label, user, url in cases:
        if only and only not in label:
            continue
        client = Client()
        client.force_login(user)
        for _ in range(3):  # warm-up
            assert client.get(url).status_code == 200, url
        samples = []
        for _ in range(runs):
            started = time.perf_counter()
            response = client.get(url)
            samples.append((time.perf_counter() - started) * 1000)
            assert response.status_code == 200
        body = response.json()
        count = body.get("count", -1) if isinstance(body, dict) else -1
        out.append((label, statistics.median(samples), percentile(samples, 0.95), count))
    return out


# --- Chromium -------------------------------------------------------------------------------------


def start_server(db_url: str, data_dir: str) -> tuple[str, subprocess.Popen]:
    env = {
        **{k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"},
        "DATABASE_URL": db_url,
        "DB_CONN_MAX_AGE": "60",
        "ALLOWED_HOSTS": HOST,
        "FALLACY_DATA_DIR": data_dir,
    }
    return start_web_server(env)


def time_browser(url: str, project: int, runs: int) -> dict[str, Any]:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = launch(p)
        state = login_state(browser, url, "bench-admin", PASSWORD)
        ready: list[float] = []
        rows = 0
        for i in range(runs + 1):  # the first run warms the server up and is discarded
            ctx = browser.new_context(storage_state=state, viewport={"width": 1440, "height": 900})
            page = ctx.new_page()
            page.goto(f"{url}/projects/{project}/", wait_until="commit")
            try:
                page.wait_for_selector('html[data-ready="project"]', timeout=10_000)
            except PlaywrightTimeout:
                ctx.close()
                browser.close()
                return {"error": 'the page never set <html data-ready="project"> within 10 s'}
            # The page marks "app-ready" in the same frame as it sets data-ready="project".
            at, rows = page.evaluate(
                "[performance.getEntriesByName('app-ready')[0].startTime,"
                " document.querySelectorAll('tbody tr').length]"
            )
            ctx.close()
            if i > 0:
                ready.append(at)
        version = browser.version
        browser.close()
    return {"ready": ready, "chromium": version, "rows": rows}


def browser_part(db_url: str, project: int, runs: int) -> dict[str, Any]:
    if not Path(CHROMIUM).exists():
        return {"error": f"Chromium not found at {CHROMIUM}"}
    if not (ROOT / "frontend" / "dist" / "index.html").exists():
        return {"error": "frontend/dist is missing (cd frontend && npm run build)"}
    proc = None
    with tempfile.TemporaryDirectory(prefix="fallacy-bench-pages-") as data_dir:
        try:
            url, proc = start_server(db_url, data_dir)
            return time_browser(url, project, runs)
        except Exception as exc:  # noqa: BLE001 - reported as "not measured"
            return {"error": f"{type(exc).__name__}: {exc}"}
        finally:
            if proc is not None:
                proc.terminate()
                proc.wait(timeout=10)


# --- main -----------------------------------------------------------------------------------------


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_db_url_argument(parser)
    parser.add_argument("--documents", type=int, default=10_000)
    parser.add_argument("--annotators", type=int, default=5)
    parser.add_argument("--runs", type=int, default=50, help="requests per API case")
    parser.add_argument("--browser-runs", type=int, default=10, help="0: no browser")
    parser.add_argument("--only", default="", help="only the cases whose label holds this")
    return parser.parse_args()


def measure(
    args: argparse.Namespace,
) -> tuple[dict[str, Any], list[tuple[str, float, float, int]], dict[str, Any]]:
    """The fixture, the API cases' times and the browser's; the scratch database dropped
    whatever happens."""
    db_name = f"fallacy_bench_pages_{os.getpid()}"
    db_url = create_database(args.db_url, db_name)
    try:
        fx = build(db_url, args.documents, args.annotators)
        api = time_api(fx, args.runs, args.only)
        from django.db import connections

        connections.close_all()
        browser = (
            browser_part(db_url, fx["project"], args.browser_runs)
            if args.browser_runs
            else {"error": "--browser-runs 0"}
        )
    finally:
        try:
            from django.db import connections

            connections.close_all()
        except Exception:  # noqa: BLE001 - Django may not be set up yet
            pass
        drop_database(args.db_url, db_name)
    return fx, api, browser


def print_browser(browser: dict[str, Any]) -> None:
    """The page's time to ready in Chromium, or why it was not measured."""
    if "error" in browser:
        print(f"Chromium:  not measured: {browser['error']}")
        return
    ready = browser["ready"]
    print(
        f"Chromium {browser['chromium']} (headless), gunicorn 2x4 on {HOST}, "
        f"{len(ready)} runs, fresh context each: /projects/<id>/ until "
        f'data-ready="project" ({browser["rows"]} table rows on screen): '
        f"p50 {statistics.median(ready):.0f} ms, p95 {percentile(ready, 0.95):.0f} ms"
    )


def main() -> None:
    args = parse_args()
    fx, api, browser = measure(args)
    print(f"machine:   {describe_machine()}; PostgreSQL {fx['pg_version']}")
    print(
        f"project:   {args.documents} documents (100-3,000 characters), {args.annotators} "
        f"annotators, 2 per document: {fx['assignments']} assignments, "
        f"{fx['annotations']} annotations (half submitted)"
    )
    print(
        f"setup:     documents created in {fx['import_s']:.1f} s; "
        f"assign_to_annotators ({fx['assignments']} assignments) in {fx['assign_s'] * 1000:.0f} ms"
    )
    print(f"server side, in-process Django test Client, {args.runs} requests each:")
    print(f"  {'case':<34} {'p50 ms':>8} {'p95 ms':>8} {'count':>7}")
    for label, p50, p95, count in api:
        shown = str(count) if count >= 0 else ""
        print(f"  {label:<34} {p50:>8.1f} {p95:>8.1f} {shown:>7}")
    print_browser(browser)
    if not api:
        return
    first = api[0][1]
    page = "not measured" if "error" in browser else f"{statistics.median(browser['ready']):.0f} ms"
    ok = first <= 10 and ("error" not in browser and statistics.median(browser["ready"]) < 1000)
    print(
        f"target:    first page <= 10 ms p50 server-side (got {first:.1f} ms); "
        f"page usable < 1 s (got {page}) -> {'met' if ok else 'NOT met'}"
    )


if __name__ == "__main__":
    main()
