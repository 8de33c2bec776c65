"""Benchmark: importing 10,000 plain texts through the API, as the browser's import page does.

    .venv/bin/python bench/import_api.py [--texts 10000] [--runs 3] [--backends sqlite,postgresql]
        [--compare-with DIR] [--poll-ms N] [--db-url postgres://…/postgres]

The corpus is ``bench/import_texts.py``'s (deterministic, 26 MB for 10,000 texts, ``.txt``).
For every backend a real server runs, as ``make demo`` runs it: ``manage.py serve`` (gunicorn
1 worker x 4 threads and a Celery worker of 4 threads, supervised), on the embedded default
(SQLite, the filesystem broker, a temp ``FALLACY_DATA_DIR``) or a scratch PostgreSQL database
(``bench/servers.py``; the broker stays embedded). A superuser logs in through the API (session
and CSRF cookie, as the browser). One warm-up import (a small file queued as a job) starts the
worker's import path; then each run, into a new project (created untimed), does what the
import page does and is timed from the first byte sent until the documents are listed:

1. ``POST /api/projects/<id>/imports/`` (multipart: the file, format ``text``);
2. ``GET /api/imports/<job>/`` every poll interval (the page's, read from its source unless
   ``--poll-ms``) until the job is no longer queued or running;
3. the page's reloads (``GET /api/projects/<id>/`` and ``/imports/``), then the document list's
   first page (``GET /api/projects/<id>/documents/``), which must count every text.

On PostgreSQL the imported documents join the search's trigram indexes after the job
(``annotations.services.search_index``): the run then waits, untimed, until none is pending
(read from the database), so that no run pays for the one before; printed as "search index
filled" (seconds from the first byte sent). Printed per run: the total, and its parts
(upload answered, job done as first seen by a poll, lists answered), the job's own
start/finish times (queue wait and import time as the server recorded them), sentences
stored, and the CPU seconds the server's processes used (web, worker and the children they
reaped; not PostgreSQL's): on a shared machine the wall time moves with the other loads, the
CPU time far less. ``--compare-with DIR`` (another checkout, e.g. ``git worktree add
/tmp/base main``) runs the same on that version, alternating run by run, and prints the
ratio of the medians. docs/s = texts / seconds.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import requests
from import_texts import build_texts, write_corpus  # bench/ is the script's folder
from machine import describe_machine
from servers import HOST, ROOT, add_db_url_argument, create_database, drop_database, free_port

PASSWORD = "bench-import-api"
SETUP = """
from django.contrib.auth.models import User
from annotations.services.taxonomy import install_preset
User.objects.create_superuser("bench", password={password!r})
print("TAXONOMY", install_preset(name="mafalda").pk)
"""


def page_poll_ms(root: Path) -> int:
    """The import page's poll interval (``POLL_MS`` in its source)."""
    source = (root / "frontend/src/pages/admin/import/ImportPage.tsx").read_text()
    found = re.search(r"POLL_MS\s*=\s*(\d+)", source)
    return int(found.group(1)) if found else 500


class Server:
    """``manage.py serve`` of one checkout on a free port, with its own data directory."""

    def __init__(self, root: Path, database_url: str | None, data_dir: Path) -> None:
        self.root = root
        self.env = {
            key: value
            for key, value in os.environ.items()
            if key not in ("DATABASE_URL", "CELERY_BROKER_URL", "DJANGO_SETTINGS_MODULE")
        }
        self.env.update(
            FALLACY_DATA_DIR=str(data_dir),
            PYTHONPATH=f"{root / 'platform'}:{root}",
            ALLOWED_HOSTS=HOST,
            PASSWORD_HASHERS="django.contrib.auth.hashers.MD5PasswordHasher",
        )
        self.database_url = database_url
        if database_url:
            self.env["DATABASE_URL"] = database_url
        manage = [sys.executable, str(root / "manage.py")]
        subprocess.run([*manage, "migrate", "-v", "0"], env=self.env, cwd=root, check=True)
        out = subprocess.run(
            [*manage, "shell", "-c", SETUP.format(password=PASSWORD)],
            env=self.env,
            cwd=root,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        self.taxonomy = int(re.search(r"TAXONOMY (\d+)", out).group(1))
        self.port = free_port()
        self.url = f"http://{HOST}:{self.port}"
        self.proc = subprocess.Popen(
            [*manage, "serve", "--port", str(self.port)],
            env=self.env,
            cwd=root,
            stdout=subprocess.DEVNULL,
            start_new_session=True,
        )
        self.session = requests.Session()
        self._wait_and_login()

    def _wait_and_login(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.session.get(self.url + "/api/auth/csrf/", timeout=2).raise_for_status()
                break
            except requests.RequestException:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    self.stop()
                    raise RuntimeError(f"the server of {self.root} did not start") from None
                time.sleep(0.2)
        self.session.headers["X-CSRFToken"] = self.session.cookies["csrftoken"]
        self.post("/api/auth/login/", json={"username": "bench", "password": PASSWORD})
        self.session.headers["X-CSRFToken"] = self.session.cookies["csrftoken"]

    def get(self, path: str) -> Any:
        response = self.session.get(self.url + path, timeout=120)
        response.raise_for_status()
        return response.json()

    def post(self, path: str, **kwargs: Any) -> Any:
        response = self.session.post(self.url + path, timeout=120, **kwargs)
        if response.status_code >= 400:
            raise RuntimeError(f"POST {path}: {response.status_code} {response.text[:500]}")
        return response.json()

    def new_project(self, name: str) -> int:
        body = {"name": name, "taxonomy": self.taxonomy}
        return self.post("/api/projects/", json=body)["id"]

    def cpu_seconds(self) -> float:
        """CPU seconds of the server's processes (the supervisor, web, worker and their
        children, with the children they reaped): a figure the other loads of a shared
        machine hardly move."""
        parents: dict[int, int] = {}
        times: dict[int, int] = {}
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            pid = int(stat.parent.name)
            parents[pid] = int(fields[1])
            times[pid] = sum(int(value) for value in fields[11:15])
        total = 0
        for pid, ticks in times.items():
            ancestor = pid
            while ancestor > 1 and ancestor != self.proc.pid:
                ancestor = parents.get(ancestor, 0)
            if ancestor == self.proc.pid:
                total += ticks
        return total / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, 15)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, 9)
                self.proc.wait()


def _parse_time(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value.replace("Z", "+00:00")) if value else None


def browser_import(server: Server, corpus: bytes, texts: int, poll_s: float) -> dict[str, Any]:
    """One import as the import page does it, into a new project; seconds of each part."""
    project = server.new_project(f"bench {time.time_ns()}")
    cpu = server.cpu_seconds()
    started = time.perf_counter()
    files = {"file": ("corpus.txt", corpus, "text/plain")}
    job = server.post(f"/api/projects/{project}/imports/", files=files, data={"format": "text"})
    uploaded = time.perf_counter()
    polls = 0
    while job["status"] in ("queued", "running"):
        time.sleep(poll_s)
        job = server.get(f"/api/imports/{job['id']}/")
        polls += 1
    done = time.perf_counter()
    if job["status"] != "succeeded":
        raise RuntimeError(f"import failed: {job['errors'][:5]}")
    server.get(f"/api/projects/{project}/")
    server.get(f"/api/projects/{project}/imports/")
    listed = server.get(f"/api/projects/{project}/documents/")
    finished = time.perf_counter()
    cpu = server.cpu_seconds() - cpu
    indexed = search_index_filled(server, project, started)
    if listed["count"] != texts:
        raise RuntimeError(f"the list counts {listed['count']} documents, not {texts}")
    created = _parse_time(job.get("created_at"))
    began, ended = _parse_time(job.get("started_at")), _parse_time(job.get("finished_at"))
    return {
        "seconds": finished - started,
        "server_cpu": cpu,
        "upload": uploaded - started,
        "job_seen_done": done - started,
        "lists": finished - done,
        "polls": polls,
        "queue_wait": (began - created).total_seconds() if began and created else None,
        "job_run": (ended - began).total_seconds() if began and ended else None,
        "sentences": job["report"].get("sentences"),
        "search_indexed": indexed,
    }


def search_index_filled(server: Server, project: int, started: float) -> float | None:
    """PostgreSQL: wait until no document of the project is pending for the search index;
    seconds since ``started`` (None on SQLite, or a version without the pending mark)."""
    if not server.database_url:
        return None
    import psycopg

    sql = "SELECT count(*) FROM annotations_document WHERE project_id = %s AND NOT in_search_index"
    with psycopg.connect(server.database_url, autocommit=True) as conn:
        while True:
            try:
                pending = conn.execute(sql, [project]).fetchone()[0]
            except psycopg.errors.UndefinedColumn:
                return None
            if not pending:
                return time.perf_counter() - started
            time.sleep(0.05)


def warm_up(server: Server, corpus: bytes, poll_s: float) -> None:
    """A first job through the worker (its import path loaded), untimed."""
    small = corpus[:1_200_000]
    small = small[: small.rfind(b"\n\n")] + b"\n"
    count = small.count(b"\n\n") + 1
    browser_import(server, small, count, poll_s)


def describe(result: dict[str, Any], texts: int) -> str:
    parts = (
        f"upload answered {result['upload']:.2f} s, job seen done {result['job_seen_done']:.2f} s"
        f" ({result['polls']} polls), lists {result['lists'] * 1000:.0f} ms"
    )
    if result["job_run"] is not None:
        parts += f"; server: queued {result['queue_wait']:.2f} s, ran {result['job_run']:.2f} s"
    if result["search_indexed"] is not None:
        parts += f"; search index filled {result['search_indexed']:.2f} s"
    return (
        f"{result['seconds']:.2f} s = {texts / result['seconds']:,.0f} docs/s"
        f" ({result['sentences']} sentences; {parts}; server CPU {result['server_cpu']:.2f} s)"
    )


Results = dict[Path, list[dict[str, Any]]]


def start_servers(
    backend: str, roots: list[Path], args: argparse.Namespace, tmp: str, databases: list[str]
) -> list[Server]:
    """A server per checkout on ``backend`` (each its own data folder; on PostgreSQL its own
    scratch database, whose name is added to ``databases``)."""
    servers: list[Server] = []
    for index, root in enumerate(roots):
        database_url = None
        if backend == "postgresql":
            name = f"bench_import_api_{os.getpid()}_{index}"
            database_url = create_database(args.db_url, name)
            databases.append(name)
        data_dir = Path(tempfile.mkdtemp(prefix="data-", dir=tmp))
        servers.append(Server(root, database_url, data_dir))
    return servers


def run_backend(
    backend: str, roots: list[Path], args: argparse.Namespace, tmp: str, corpus: bytes, texts: int
) -> Results:
    """The timed imports on ``backend``, the checkouts alternating run by run; the servers
    stopped and the databases dropped whatever happens."""
    servers: list[Server] = []
    databases: list[str] = []
    try:
        servers = start_servers(backend, roots, args, tmp, databases)
        polls = {
            server.root: (args.poll_ms or page_poll_ms(server.root)) / 1000 for server in servers
        }
        for server in servers:
            warm_up(server, corpus, polls[server.root])
        results: Results = {s.root: [] for s in servers}
        for run in range(args.runs):
            for server in servers if run % 2 == 0 else servers[::-1]:
                result = browser_import(server, corpus, texts, polls[server.root])
                results[server.root].append(result)
                print(
                    f"{backend} / {server.root} (poll {polls[server.root] * 1000:.0f} ms)"
                    f" run {run + 1}: {describe(result, texts)}",
                    flush=True,
                )
    finally:
        for server in servers:
            server.stop()
        for name in databases:
            drop_database(args.db_url, name)
    return results


def print_medians(backend: str, results: Results, roots: list[Path], texts: int, runs: int) -> None:
    """Each checkout's median time and server CPU, and their ratio when there are two."""
    medians = {
        root: statistics.median(r["seconds"] for r in runs) for root, runs in results.items()
    }
    for root, median in medians.items():
        cpu = statistics.median(r["server_cpu"] for r in results[root])
        print(
            f"{backend} / {root}: median {median:.2f} s ="
            f" {texts / median:,.0f} docs/s over {runs} runs;"
            f" server CPU median {cpu:.2f} s"
        )
    if len(roots) > 1:
        ratio = medians[roots[0]] / medians[roots[1]]
        print(f"{backend}: {roots[0]} / {roots[1]} = {ratio:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_db_url_argument(parser)
    parser.add_argument("--texts", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--backends", default="sqlite", help="sqlite,postgresql")
    parser.add_argument("--compare-with", type=Path, help="another checkout, run alternately")
    parser.add_argument(
        "--poll-ms", type=int, help="the client's poll interval (default: the page's)"
    )
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stop the servers on the way out
    print(f"Machine: {describe_machine()}")
    texts = build_texts(args.texts)
    roots = [ROOT] + ([args.compare_with.resolve()] if args.compare_with else [])
    with tempfile.TemporaryDirectory(prefix="bench-import-api-") as tmp:
        path = Path(tmp) / "corpus.txt"
        write_corpus(path, texts)
        corpus = path.read_bytes()
        print(f"Corpus: {len(texts)} texts, {len(corpus) / 1e6:.1f} MB (bench/import_texts.py)")
        for backend in [b.strip() for b in args.backends.split(",") if b.strip()]:
            results = run_backend(backend, roots, args, tmp, corpus, len(texts))
            print_medians(backend, results, roots, len(texts), args.runs)


if __name__ == "__main__":
    main()
