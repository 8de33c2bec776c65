"""The read path of the annotation server, over HTTP, on SQLite and on PostgreSQL.

For each backend (a temporary ``FALLACY_DATA_DIR`` with the embedded SQLite default; a
scratch PostgreSQL database made with ``bench/servers.py``) a child process migrates and
fills a project of N documents (default 100,000; short texts bulk-inserted, 5 annotators,
each document assigned to 2 of them, annotations on a third of the assignments, half
submitted) plus one 4,996-character document with its sentences and 50 spans by the
annotator, then starts gunicorn as ``manage.py serve`` serves the app and times, with one
``Connection: close`` request per call (a session cookie, as the browser sends):

- open the document: the calls the annotation page makes for the document and its
  annotation (``/api/documents/ID/open/`` since the one-call endpoint; the figure before
  was ``/api/documents/ID/`` + ``/api/documents/ID/my-annotation/``);
- the first page of the document list (25 rows, as the frontend asks), as the admin and
  as an annotator;
- the project list with progress counts, as the admin and as an annotator.

Two floors come first, timed the same way: gunicorn with a WSGI app that answers 204 at once
(``bench/floor_wsgi.py``: the connection, gunicorn and the client) and Django + DRF with no
database (``GET /api/auth/csrf/``). A step's figure minus the floors is what its own work
costs. Prints p50/p95 per request, the number of calls and the machine; ``--profile CALLS``
also makes CALLS more calls of each step under py-spy and prints the server's samples by
layer (gunicorn, Django, DRF, the database driver, the platform's code; ``bench/profiles.py``).

Then a throughput figure: ``--clients`` concurrent clients cycling over all those requests.

    .venv/bin/python bench/read_api.py [--documents 100000] [--runs 50]
        [--backend sqlite|postgresql|postgresql-noprep|both|all]
        [--gunicorn "--workers 1 --threads 4"] [--clients 4] [--seconds 10] [--profile 300]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from machine import describe_machine  # bench/ is the script's folder
from profiles import record, summary, workers_of
from read_fixture import build
from servers import HOST, ROOT, add_db_url_argument, create_database, drop_database, free_port

BACKENDS = ["sqlite", "postgresql", "postgresql-noprep"]


# --- the server and the client --------------------------------------------------------------------


def start_gunicorn(
    env: dict[str, str],
    args: list[str],
    app: tuple[str, str] = ("platform", "fallacy_platform.wsgi"),
) -> tuple[int, subprocess.Popen]:
    """gunicorn serving ``app`` ((python path, WSGI module)) on a free port, once it answers."""
    port = free_port()
    gunicorn = Path(sys.executable).with_name("gunicorn")
    proc = subprocess.Popen(
        [str(gunicorn), "--pythonpath", app[0], app[1]]
        + ["-b", f"{HOST}:{port}", "--log-level", "warning", *args],
        cwd=ROOT,
        env=env,
    )
    deadline = time.monotonic() + 60
    while True:
        try:
            get(port, "/login/", None)
            return port, proc
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                proc.kill()
                raise RuntimeError("gunicorn did not start") from None
            time.sleep(0.2)


def get(port: int, path: str, session: str | None) -> tuple[int, bytes]:
    """One GET on a fresh connection, closed after the response (``Connection: close``)."""
    conn = http.client.HTTPConnection(HOST, port, timeout=30)
    headers = {"Connection": "close", "Accept": "application/json"}
    if session:
        headers["Cookie"] = f"sessionid={session}"
    try:
        conn.request("GET", path, headers=headers)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def time_calls(port: int, session: str | None, paths: list[str], runs: int) -> dict[str, Any]:
    """p50/p95 of the calls made one after the other (one step of the user)."""
    for _ in range(3):  # warm-up: every worker, connection and cache
        for path in paths:
            status, body = get(port, path, session)
            if status not in (200, 204):
                raise RuntimeError(f"{path}: HTTP {status}: {body[:300]!r}")
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        for path in paths:
            status, body = get(port, path, session)
            assert status in (200, 204), (path, status)
        samples.append((time.perf_counter() - started) * 1000)
    return {
        "p50": statistics.median(samples),
        "p95": percentile(samples, 0.95),
        "calls": len(paths),
        "bytes": len(body),
        "body": json.loads(body) if body else None,
    }


def throughput(port: int, work: list[tuple[str, str]], clients: int, seconds: float) -> float:
    """Requests per second of ``clients`` concurrent clients cycling through ``work``
    ((session, path) pairs), each request on a fresh connection."""
    import threading

    done = [0] * clients
    stop = time.perf_counter() + seconds

    def run(k: int) -> None:
        i = k
        while time.perf_counter() < stop:
            session, path = work[i % len(work)]
            status, _ = get(port, path, session)
            assert status == 200, (path, status)
            done[k] += 1
            i += 1

    threads = [threading.Thread(target=run, args=(k,)) for k in range(clients)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(done) / (time.perf_counter() - started)


def time_case(
    port: int,
    master: int,
    label: str,
    session: str | None,
    paths: list[str],
    args: argparse.Namespace,
) -> dict[str, Any]:
    """One step timed; with ``--profile``, the same calls again under py-spy."""
    result = time_calls(port, session, paths, args.runs)
    result.pop("body")
    row = {"case": label, "paths": paths, **result}
    if args.profile:
        stacks = record(workers_of(master), lambda: time_calls(port, session, paths, args.profile))
        row["profile"] = summary(stacks)
    return row


def http_floor(env: dict[str, str], args: argparse.Namespace) -> dict[str, Any]:
    """The HTTP floor: the same gunicorn and client with a WSGI app that answers 204 at once
    (bench/floor_wsgi.py): what any request costs before Django."""
    port, proc = start_gunicorn(env, args.gunicorn.split(), ("bench", "floor_wsgi"))
    try:
        return time_case(port, proc.pid, "floor: gunicorn + a bare WSGI app", None, ["/"], args)
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def open_paths(port: int, session: str, doc: int) -> list[str]:
    """The one call when the server has it, else the two calls of before."""
    status, _ = get(port, f"/api/documents/{doc}/open/", session)
    if status == 200:
        return [f"/api/documents/{doc}/open/"]
    return [f"/api/documents/{doc}/", f"/api/documents/{doc}/my-annotation/"]


def child(args: argparse.Namespace) -> None:
    fx = build(args.documents)
    from django.db import connections

    connections.close_all()
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    port, proc = start_gunicorn(env, args.gunicorn.split())
    try:
        base = f"/api/projects/{fx['project']}"
        cases = [
            ("open the document (annotator)", fx["annotator"], None),
            ("document list, first page (admin)", fx["admin"], [f"{base}/documents/?limit=25"]),
            (
                "document list, first page (annotator)",
                fx["annotator"],
                [f"{base}/documents/?limit=25"],
            ),
            ("project list + progress (admin)", fx["admin"], ["/api/projects/"]),
            ("project list + progress (annotator)", fx["annotator"], ["/api/projects/"]),
        ]
        rows = [
            http_floor(env, args),
            time_case(
                port,
                proc.pid,
                "floor: Django + DRF, no database (GET /api/auth/csrf/)",
                None,
                ["/api/auth/csrf/"],
                args,
            ),
        ]
        opened = open_paths(port, fx["annotator"], fx["document"])
        for label, session, paths in cases:
            rows.append(time_case(port, proc.pid, label, session, paths or opened, args))
        work = [(session, path) for _, session, paths in cases[1:] for path in paths]
        work += [(fx["annotator"], path) for path in opened]
        rate = throughput(port, work, args.clients, args.seconds) if args.seconds > 0 else 0
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    fx.pop("admin")
    fx.pop("annotator")
    print(json.dumps({"fixture": fx, "rows": rows, "throughput": rate}))


# --- main -----------------------------------------------------------------------------------------


def run_backend(backend: str, args: argparse.Namespace) -> dict[str, Any]:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "fallacy_platform.settings",
        "PYTHONPATH": os.pathsep.join([str(ROOT / "platform"), str(ROOT)]),
        "ALLOWED_HOSTS": f"{HOST},localhost",
        "DB_CONN_MAX_AGE": "60",
    }
    env.pop("CELERY_BROKER_URL", None)
    db_name = f"fallacy_bench_read_{os.getpid()}"
    with tempfile.TemporaryDirectory(prefix="fallacy-bench-read-") as data_dir:
        env["FALLACY_DATA_DIR"] = data_dir
        if backend.startswith("postgresql"):
            env["DATABASE_URL"] = create_database(args.db_url, db_name)
            if backend == "postgresql-noprep":
                env["DB_PREPARE_THRESHOLD"] = ""
        else:
            env.pop("DATABASE_URL", None)
        try:
            out = subprocess.run(
                [sys.executable, __file__, "--child", "--documents", str(args.documents)]
                + ["--runs", str(args.runs), "--gunicorn", args.gunicorn]
                + ["--clients", str(args.clients), "--seconds", str(args.seconds)]
                + ["--profile", str(args.profile)],
                env=env,
                cwd=ROOT,
                stdout=subprocess.PIPE,
                check=True,
                text=True,
            ).stdout
        finally:
            if backend.startswith("postgresql"):
                drop_database(args.db_url, db_name)
    return json.loads(out.strip().splitlines()[-1])


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_db_url_argument(parser)
    parser.add_argument("--documents", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=50, help="timed repetitions per case")
    parser.add_argument(
        "--backend",
        choices=[*BACKENDS, "both", "all"],
        default="both",
        help="both: sqlite and postgresql; all: the three (postgresql-noprep: Django's "
        "client-side binding, no prepared statements, as before DB_PREPARE_THRESHOLD)",
    )
    parser.add_argument(
        "--gunicorn",
        default="--workers 1 --threads 4",
        help="gunicorn's worker options (manage.py serve's by default)",
    )
    parser.add_argument("--clients", type=int, default=4, help="concurrent clients")
    parser.add_argument(
        "--seconds", type=float, default=10, help="throughput run (0: none) over all the steps"
    )
    parser.add_argument(
        "--profile",
        type=int,
        default=0,
        metavar="CALLS",
        help="after each step's timing, make CALLS more calls under py-spy and print where the"
        " server's time went, by layer (bench/profiles.py)",
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    return parser.parse_args()


def print_backend(backend: str, result: dict[str, Any], args: argparse.Namespace) -> None:
    """One backend's fixture, the steps' times and calls, the profiles and the throughput."""
    fx = result["fixture"]
    print(
        f"\n{fx['version']}{' (no prepared statements)' if 'noprep' in backend else ''}: "
        f"{fx['documents']} documents, {fx['assignments']} assignments, "
        f"{fx['annotations']} annotations (fixture filled in {fx['fill_s']:.1f} s); "
        f"opened: {fx['length']} characters, {fx['spans']} spans; {args.runs} runs each"
    )
    print(f"  {'step':<40} {'p50 ms':>7} {'p95 ms':>7} {'calls':>5} {'bytes':>7}")
    for row in result["rows"]:
        print(
            f"  {row['case']:<40} {row['p50']:>7.1f} {row['p95']:>7.1f} "
            f"{row['calls']:>5} {row['bytes']:>7}"
        )
    for row in result["rows"]:
        print(f"    {row['case']}: {' + '.join(row['paths'])}")
    for row in result["rows"]:
        if "profile" in row:
            print(f"  profile of {row['case']} ({args.profile} more calls):")
            print("\n".join(row["profile"]))
    if args.seconds > 0:
        print(
            f"  throughput: {result['throughput']:.0f} requests/s, {args.clients} concurrent "
            f"clients over all the steps' requests for {args.seconds:.0f} s"
        )


def main() -> None:
    args = parse_args()
    if args.child:
        child(args)
        return
    backends = {"both": BACKENDS[:2], "all": BACKENDS}.get(args.backend, [args.backend])
    print(f"machine:  {describe_machine()}")
    print(f"server:   gunicorn {args.gunicorn}; client on the same host, Connection: close")
    for backend in backends:
        print_backend(backend, run_backend(backend, args), args)


if __name__ == "__main__":
    main()
