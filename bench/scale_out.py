"""Beyond one machine: K Celery workers share one run against a latency-bound model server.

Each worker is a separate process, as it would be on a machine of its own: its own
``FALLACY_DATA_DIR`` and ``HOME`` (temporary folders), and only TCP to what the machines
would share: one scratch PostgreSQL database (``--db-url``'s server; dropped at the end), one
Redis broker (``redis://127.0.0.1:6379/9`` under a random ``CELERY_BROKER_KEY_PREFIX``) and
the model server. Where the machine allows it (root, iproute2, socat; ``--no-netns`` to
skip), each worker runs in a network namespace of its own that reaches those three over TCP
through a veth pair and nothing else of this host (``netns.py``). They still share this
machine's cores, so the figures show what the platform costs per request, not what K
machines would give.

The model server is ``tests/support/openai_server.py``: every request takes ``--delay``
seconds (default 0.5) and it takes any number at once, like an OpenAI-compatible server
with spare capacity. The data is a synthetic MAFALDA-format gold file (texts of 5
sentences, every sentence different) imported into the project "Scale": one request per
sentence, ``--requests`` of them (default 2,000).

For each K of ``--workers`` (default 1,2,4,8): start K workers
(``celery worker -Q default,gpu --pool solo``), wait until all answer a ping, launch the
run with ``manage.py evaluate`` (cut into the platform's default parts of the backend's
size, or ``--parts N``), whose parts the workers' runners take one after another with
their model loaded (backend ``openai``,
``--concurrency`` requests in flight per runner, default 8; a new server and seed per K,
so no cache answers), wait until it is done (generated and scored), read the workers' CPU,
stop them. Printed:

- wall s: from the first request reaching the model server to the last one answered; the
  whole launch to ``done`` (scoring included) in its own column;
- req/s: requests / wall s; efficiency: req/s(K) / (K x req/s(1)) (1.0: linear);
- CPU s/request: the K workers' user + system CPU from ``/proc/PID/stat`` (with their
  reaped children, the runner processes: cutime + cstime) from when all were ready to the
  end of the run, over the requests;
- model loads: runner processes started (the ``--- attempt`` lines of the shards' logs);
- load avg: the 1-minute load average at the end; max in flight: the server's.

``--kill-at-half`` / ``--add-at-quarter`` (for the largest K only): SIGKILL one worker
holding a running shard once half of the requests are answered, start one more worker once
a quarter are. Then printed: whether the run ended by itself (done) or failed (its error),
how many outputs each request has (exactly one expected), and which prompts the server saw
more than once (only the requests in flight when the worker died may be).
``--stale-seconds`` shortens the liveness (``JOB_STALE_SECONDS``; heartbeat and sweep at
the defaults' ratios); without it the deployment's defaults hold (90 s).

    .venv/bin/python bench/scale_out.py [--requests 2000] [--delay 0.5] [--concurrency 8]
        [--workers 1,2,4,8] [--db-url URL] [--keep] [--kill-at-half] [--add-at-quarter]
        [--stale-seconds S]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from machine import describe_machine  # bench/ is the script's folder
from netns import isolation_problem
from scale_workers import (
    BROKER,
    Hosts,
    Worker,
    alive,
    cpu_seconds,
    drop_broker_keys,
    liveness_env,
    ping_app,
    runner_starts,
    stop_worker,
    wait_ready,
)
from servers import ROOT, add_db_url_argument, create_database, drop_database

sys.path.insert(0, str(ROOT))
from tests.support.openai_server import FakeOpenAIServer, openai_server  # noqa: E402
from tests.support.processes import PYTHON, embedded_env  # noqa: E402

PROJECT = "Scale"
SENTENCES_PER_TEXT = 5
FINISHED = ("done", "failed", "cancelled")


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000, help="sentence requests per run")
    parser.add_argument("--delay", type=float, default=0.5, help="seconds per model request")
    parser.add_argument("--concurrency", type=int, default=8, help="in flight per runner")
    parser.add_argument("--workers", default="1,2,4,8", help="the K to measure, comma-separated")
    parser.add_argument(
        "--parts", type=int, help="shards the run is cut into (default: the platform's parts)"
    )
    parser.add_argument("--no-netns", action="store_true", help="workers share this host's network")
    parser.add_argument("--keep", action="store_true", help="keep the scratch database")
    parser.add_argument("--kill-at-half", action="store_true", help="largest K: kill a worker")
    parser.add_argument("--add-at-quarter", action="store_true", help="largest K: add a worker")
    parser.add_argument("--stale-seconds", type=float, help="JOB_STALE_SECONDS (default 90)")
    add_db_url_argument(parser)
    args = parser.parse_args()
    args.ks = [int(k) for k in args.workers.split(",")]
    return args


# --- data ---------------------------------------------------------------------------------------


def write_gold(path: Path, requests: int) -> None:
    """A MAFALDA-format gold file of ``requests`` distinct sentences, 5 to a text."""
    with path.open("w") as handle:
        for t in range(math.ceil(requests / SENTENCES_PER_TEXT)):
            count = min(SENTENCES_PER_TEXT, requests - t * SENTENCES_PER_TEXT)
            units = [
                f"Speaker {t} says that claim {s} of debate {t * 7 + s} settles the matter."
                for s in range(count)
            ]
            text = " ".join(units)
            record = {
                "text": text,
                "labels": [[0, len(units[0]), "hasty generalization"]],
                "comments": [],
                "sentences_with_labels": json.dumps({unit: [[]] for unit in units}),
            }
            handle.write(json.dumps(record) + "\n")


def manage(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [PYTHON, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True
    )
    if done.returncode:
        raise SystemExit(f"manage.py {args[0]} failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout


# --- the model server's clock -------------------------------------------------------------------


class Answers:
    """The fake server's answer function, noting when each answer was made."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self.lock = threading.Lock()

    def __call__(self, prompt: str) -> str:
        with self.lock:
            self.times.append(time.monotonic())
        return "no fallacy"

    def count(self) -> int:
        with self.lock:
            return len(self.times)


# --- one run ------------------------------------------------------------------------------------


@dataclass
class Result:
    k: int
    total: int = 0
    status: str = ""
    error: str = ""
    wall: float = 0.0
    launch_to_end: float = 0.0
    cpu: float = 0.0
    loads: int = 0
    load_avg: float = 0.0
    max_in_flight: int = 0
    recovery: list[str] = field(default_factory=list)

    @property
    def rps(self) -> float:
        return self.total / self.wall if self.wall else 0.0


@dataclass
class Scenario:
    """What happens during the run: a worker added at a quarter, one killed at half."""

    env: dict[str, str]
    tmp: Path
    app: Any
    hosts: Hosts
    add: bool = False
    kill: bool = False
    added: Worker | None = None
    killed: Worker | None = None
    killed_cpu: float = 0.0
    killed_at: float = 0.0
    allowed: set[str] = field(default_factory=set)


def query(conn: Any, sql: str, *params: Any) -> list[tuple]:
    return conn.execute(sql, params).fetchall()


def launch(
    env: dict[str, str], base_url: str, k: int, parts: int | None, concurrency: int, seed: int
) -> None:
    settings = {"base_url": base_url, "concurrency": concurrency, "max_retries": 0}
    manage(
        env, "evaluate", "--project", PROJECT, "--gold-version", "1", "--backend", "openai",
        "--model", "test-model", "--backend-settings", json.dumps(settings),
        *(["--shards", str(parts)] if parts else []),
        "--seed", str(seed), "--name", f"scale-out K={k} seed {seed}",
    )  # fmt: skip


def measure(
    k: int, args: argparse.Namespace, conn: Any, workers: list[Worker], scenario: Scenario
) -> Result:
    """Launch the run on ``workers`` (ready), wait for its end; the figures."""
    answers = Answers()
    result = Result(k)
    before = [cpu_seconds(w.process.pid) for w in workers]
    with openai_server(delay=args.delay, answer=answers) as server:
        # a killed runner's connections break when answered: not worth a traceback
        server._httpd.handle_error = lambda request, address: None
        scenario.hosts.forward(urlsplit(server.base_url).port or 80)
        began = time.monotonic()
        launch(scenario.env, server.base_url, k, args.parts, args.concurrency, seed=k)
        (run_id,) = query(conn, "SELECT MAX(id) FROM evaluation_modelrun")[0]
        result.status, result.error, result.total = wait_run(
            conn, run_id, args, k, answers, server, workers, scenario
        )
        result.launch_to_end = time.monotonic() - began
        if answers.times:
            result.wall = max(answers.times) - (min(answers.times) - args.delay)
        result.max_in_flight = server.max_in_flight
        if scenario.kill or scenario.add:
            result.recovery = recovery_report(conn, run_id, result, server, scenario)
    every = workers + ([scenario.added] if scenario.added else [])
    after = [cpu_seconds(w.process.pid) for w in workers]
    result.cpu = sum(after) - sum(before) + scenario.killed_cpu
    if scenario.added:
        result.cpu += cpu_seconds(scenario.added.process.pid)
    result.loads = runner_starts(every, run_id)
    result.load_avg = os.getloadavg()[0]
    return result


def wait_run(
    conn: Any,
    run_id: int,
    args: argparse.Namespace,
    k: int,
    answers: Answers,
    server: FakeOpenAIServer,
    workers: list[Worker],
    scenario: Scenario,
) -> tuple[str, str, int]:
    """Poll the run until it ends (or a generous deadline), acting out the scenario."""
    expected = args.requests * args.delay / (args.concurrency * k)
    stale = args.stale_seconds or 90.0
    deadline = time.monotonic() + 3 * expected + 4 * stale + 180
    while True:
        status, error, total = query(
            conn, "SELECT status, error, total FROM evaluation_modelrun WHERE id = %s", run_id
        )[0]
        if status in FINISHED:
            return status, error, total
        if time.monotonic() > deadline:
            return f"still {status} at the deadline", error, total
        answered = answers.count() if total else 0
        if scenario.add and scenario.added is None and 0 < total / 4 <= answered:
            scenario.added = scenario.hosts.start(scenario.env, f"w{len(workers)}", scenario.tmp)
            say("added", scenario.added, f"{answered}/{total}")
        if scenario.kill and scenario.killed is None and 0 < total / 2 <= answered:
            kill_one(conn, run_id, workers, server, scenario)
            say("killed", scenario.killed, f"{answered}/{total}")
        time.sleep(0.1)


def say(what: str, worker: Worker | None, answered: str) -> None:
    pid = worker.process.pid if worker else "-"
    print(
        f"  {what} {worker.name if worker else '-'} (pid {pid}) at {answered} answered", flush=True
    )


def kill_one(
    conn: Any, run_id: int, workers: list[Worker], server: FakeOpenAIServer, scenario: Scenario
) -> None:
    """SIGKILL the worker of the first running shard (the worker alone: its runner dies
    with it); note what was in flight then: received by the server, no stored output."""
    rows = query(
        conn,
        "SELECT worker, runner_pid FROM evaluation_runshard WHERE run_id = %s AND status ="
        " 'running' AND runner_pid IS NOT NULL ORDER BY index",
        run_id,
    )
    by_pid = {str(w.process.pid): w for w in workers}
    worker, runner = next(
        ((by_pid[name.rpartition(":")[2]], pid) for name, pid in rows if name.rpartition(":")[2]
         in by_pid),
        (workers[0], None),
    )  # fmt: skip
    scenario.killed_cpu = cpu_seconds(worker.process.pid)
    os.kill(worker.process.pid, signal.SIGKILL)
    worker.process.wait()
    scenario.killed, scenario.killed_at = worker, time.monotonic()
    end = time.monotonic() + 10
    while runner and alive(runner) and time.monotonic() < end:
        time.sleep(0.05)
    received = set(server.counts)
    stored = {
        p
        for (p,) in query(conn, "SELECT prompt FROM evaluation_runoutput WHERE run_id = %s", run_id)
    }
    scenario.allowed = received - stored


def recovery_report(
    conn: Any, run_id: int, result: Result, server: FakeOpenAIServer, scenario: Scenario
) -> list[str]:
    """What the run did without a person: its end, outputs per request, repeats."""
    after = (
        f", {time.monotonic() - scenario.killed_at:.1f} s after the kill" if scenario.killed else ""
    )
    lines = [f"run {run_id}: {result.status}{after}"]
    lines += [f"  error: {result.error}"] if result.error else []
    shards = query(
        conn,
        "SELECT index, status, attempts, worker, error FROM evaluation_runshard"
        " WHERE run_id = %s ORDER BY index",
        run_id,
    )
    lines += [f"  shard {i}: {s}, attempts {a}, worker {w} {e or ''}" for i, s, a, w, e in shards]
    per_request = query(
        conn,
        "SELECT n, COUNT(*) FROM (SELECT COUNT(*) AS n FROM evaluation_runoutput"
        " WHERE run_id = %s GROUP BY document_id, unit_index) c GROUP BY n ORDER BY n",
        run_id,
    )
    stored = sum(count for _, count in per_request)
    spread = ", ".join(f"{count} with {n}" for n, count in per_request) or "none"
    lines.append(
        f"outputs per request: {spread}; {result.total - stored} of {result.total} with none"
    )
    repeated = {p: n for p, n in server.counts.items() if n > 1}
    outside = set(repeated) - scenario.allowed
    times = sorted(Counter(repeated.values()).items())  # (times sent, prompts)
    lines.append(
        f"prompts sent more than once: {len(repeated)} (times sent, prompts: {times});"
        f" in flight at the kill: {len(scenario.allowed)};"
        f" repeated but not in flight then: {len(outside)}"
    )
    lines += [f"    not in flight: {p[:100]!r}" for p in sorted(outside)[:5]]
    lines.append(f"requests the server answered in all: {sum(server.counts.values())}")
    return lines


# --- the whole benchmark ------------------------------------------------------------------------


def run_k(k: int, args: argparse.Namespace, conn: Any, base: dict[str, str], prefix: str) -> Result:
    largest = k == max(args.ks)
    with tempfile.TemporaryDirectory(prefix=f"scale-k{k}-") as folder:
        tmp = Path(folder)
        scenario = Scenario(
            base, tmp, ping_app(prefix), Hosts(args.isolated, args.ports),
            add=largest and args.add_at_quarter, kill=largest and args.kill_at_half,
        )  # fmt: skip
        workers: list[Worker] = []
        try:
            workers += [scenario.hosts.start(base, f"w{i}", tmp) for i in range(k)]
            wait_ready(scenario.app, workers)
            if scenario.add or scenario.kill:
                print("  workers: " + ", ".join(f"{w.name} pid {w.process.pid}" for w in workers))
            return measure(k, args, conn, workers, scenario)
        finally:
            for worker in workers + ([scenario.added] if scenario.added else []):
                stop_worker(worker)
            scenario.hosts.close()


def print_table(results: list[Result]) -> None:
    one = next((r.rps for r in results if r.k == 1), None)
    head = ("K", "requests", "wall s", "req/s", "CPU s/request", "model loads", "efficiency")
    head += ("load avg", "launch-to-end s", "max in flight", "status")
    print(" | ".join(head))
    for r in results:
        efficiency = f"{r.rps / (r.k * one):.2f}" if one else "-"
        row = (r.k, r.total, f"{r.wall:.1f}", f"{r.rps:.1f}", f"{r.cpu / max(r.total, 1):.4f}")
        row += (r.loads, efficiency, f"{r.load_avg:.2f}", f"{r.launch_to_end:.1f}")
        row += (r.max_in_flight, r.status)
        print(" | ".join(str(cell) for cell in row))


def main() -> None:
    args = parse_args()
    import psycopg

    print(f"machine: {describe_machine()}")
    print(f"load average at the start: {os.getloadavg()[0]:.2f} (1 min)")
    name = f"bench_scale_{secrets.token_hex(4)}"
    prefix = f"scale-{secrets.token_hex(4)}:"
    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="scale-") as folder:
        url = create_database(args.db_url, name)
        args.ports = [urlsplit(url).port or 5432, urlsplit(BROKER).port or 6379]
        problem = None if args.no_netns else isolation_problem()
        args.isolated = not args.no_netns and problem is None
        print(
            "network: each worker in a namespace of its own, reaching PostgreSQL, Redis and the"
            " model server over TCP through a veth pair" if args.isolated
            else f"network: the workers share this host's ({problem or '--no-netns'})"
        )  # fmt: skip
        try:
            base = embedded_env(
                Path(folder) / "data", DATABASE_URL=url, CELERY_BROKER_URL=BROKER,
                CELERY_BROKER_KEY_PREFIX=prefix, MODEL_SERVER_ALLOW_LOOPBACK="true",
                **liveness_env(args.stale_seconds),
            )  # fmt: skip
            began = time.monotonic()
            manage(base, "migrate", "--verbosity", "0")
            gold = Path(folder) / "gold.jsonl"
            write_gold(gold, args.requests)
            manage(base, "import_dataset", "--format", "mafalda", str(gold), "--project", PROJECT)
            print(f"database {name} migrated and loaded in {time.monotonic() - began:.1f} s")
            print(
                f"model server: {args.delay} s per request; {args.concurrency} in flight per"
                f" runner; broker {BROKER} prefix {prefix}",
                flush=True,
            )
            with psycopg.connect(url, autocommit=True) as conn:
                for k in args.ks:
                    print(f"K={k} ...", flush=True)
                    results.append(run_k(k, args, conn, base, prefix))
                    for line in results[-1].recovery:
                        print(f"  {line}")
        finally:
            if args.keep:
                print(f"kept database {url}")
            else:
                drop_database(args.db_url, name)
            drop_broker_keys(prefix)
    print_table(results)


if __name__ == "__main__":
    main()
