"""Latency of the annotation API under concurrent annotators (span create + update).

Creates a scratch PostgreSQL database, migrates it, installs the MAFALDA preset, makes a
project with one 20-sentence document and one annotator per client, starts gunicorn on a free
127.0.0.1 port with the production settings (platform/fallacy_platform/gunicorn.conf.py), and
drives it with 1 and 8 concurrent clients (threads with keep-alive HTTP connections and token
auth, each its own annotator, each a fixed number of requests alternating "create a span" and
"change that span"). Prints p50/p95/p99 latency, throughput, HTTP statuses and errors per
concurrency level, the server's configuration and the machine, and the CPU each request
cost the client, the web workers and PostgreSQL (``/proc``: so the ceiling of the machine's
cores for the server side shows). ``--profile N`` runs each level again with N requests per
client under py-spy and prints the web workers' samples by layer (``bench/profiles.py``;
waits on PostgreSQL included: the CPU split is the /proc figure above, and
``bench/span_write_inprocess.py --profile`` profiles the web side's CPU alone).
Drops the database at the end.

    .venv/bin/python bench/annotate_api.py [--requests 300] [--levels 1,8]

Several server configurations side by side in one run (each its own gunicorn, the rounds
alternating their order, so that a busy machine slows all of them alike; compare ratios):

    .venv/bin/python bench/annotate_api.py --configs gthread:3:4,sync:5:1 --rounds 2

A configuration is ``CLASS:WORKERS:THREADS`` plus optional ``:nosync`` (PostgreSQL's
``synchronous_commit=off`` for the server's connections: a commit does not wait for the WAL
flush; a database crash may lose the last fraction of a second of acknowledged writes) and
``:nohc`` (no connection health checks) and ``:noprep`` (no prepared statements: Django's
client-side binding). ``default`` is gunicorn.conf.py as it is (``default:-:-:noprep`` with
flags).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import signal
import statistics
import subprocess
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from annotate_report import print_cpu, print_table  # bench/ is the script's folder
from machine import machine_facts
from profiles import CpuMeter, record, summary, workers_of
from servers import (
    HOST,
    ROOT,
    add_db_url_argument,
    create_database,
    document_of_sentences,
    drop_database,
    free_port,
    setup_django,
)

VENV_BIN = ROOT / ".venv" / "bin"
SENTENCES = [
    f"Sentence number {i} says that policy {i} will surely ruin everything." for i in range(20)
]


# --- fixtures --------------------------------------------------------------------------------


@dataclass
class Fixture:
    document: int
    tokens: list[str]
    sentences: list[tuple[int, int]]
    labels: list[str]
    pg_version: str = ""


def build_fixture(db_url: str, annotators: int) -> Fixture:
    """Migrate and fill the scratch database (in this process, through the services)."""
    setup_django(db_url)
    from django.contrib.auth.models import User
    from django.db import connection
    from rest_framework.authtoken.models import Token

    from annotations.models import Sentence, TaxonomyNode
    from annotations.services.documents import add_documents, assign_documents
    from annotations.services.projects import add_member, create_project
    from annotations.services.taxonomy import install_preset

    taxonomy = install_preset(name="mafalda")
    project = create_project(name="bench", taxonomy=taxonomy)
    text = document_of_sentences(SENTENCES, "bench-0")
    (document,) = add_documents(project=project, texts=[text])
    tokens = []
    for i in range(annotators):
        user = User.objects.create_user(f"bench-annotator-{i}", password=uuid.uuid4().hex)
        add_member(project=project, user=user, role="annotator")
        assign_documents(project=project, annotator=user)
        tokens.append(Token.objects.create(user=user).key)
    sentences = list(
        Sentence.objects.filter(document=document).order_by("index").values_list("start", "end")
    )
    labels = list(
        TaxonomyNode.objects.filter(taxonomy=taxonomy, level=2).values_list("name", flat=True)
    )
    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        pg_version = cursor.fetchone()[0]
    connection.close()
    return Fixture(document.pk, tokens, sentences, labels, pg_version)


# --- server -----------------------------------------------------------------------------------


GUNICORN_CONF = ROOT / "platform" / "fallacy_platform" / "gunicorn.conf.py"


@dataclass(frozen=True)
class ServerConfig:
    """A gunicorn configuration; ``None`` fields keep gunicorn.conf.py's value."""

    worker_class: str | None = None
    workers: int | None = None
    threads: int | None = None
    synchronous_commit: bool = True
    health_checks: bool = True
    prepared: bool = True

    @classmethod
    def parse(cls, text: str) -> ServerConfig:
        if text == "default":
            return cls()
        parts = text.split(":")
        flags = set(parts[3:])
        unknown = flags - {"nosync", "nohc", "noprep"}
        if len(parts) < 3 or unknown:
            raise ValueError(f"{text!r}: expected CLASS:WORKERS:THREADS[:nosync][:nohc][:noprep]")
        switches = tuple(f not in flags for f in ("nosync", "nohc", "noprep"))
        if parts[0] == "default":
            return cls(None, None, None, *switches)
        return cls(parts[0], int(parts[1]), int(parts[2]), *switches)

    def label(self) -> str:
        if self.worker_class is None:
            base = "default"
        else:
            base = f"{self.worker_class}:{self.workers}:{self.threads}"
        return (
            base
            + ("" if self.synchronous_commit else ":nosync")
            + ("" if self.health_checks else ":nohc")
            + ("" if self.prepared else ":noprep")
        )


def effective_settings(config: ServerConfig) -> dict[str, Any]:
    """What gunicorn.conf.py gives, with the configuration's overrides."""
    values: dict[str, Any] = {"__file__": str(GUNICORN_CONF)}
    exec(compile(GUNICORN_CONF.read_text(), str(GUNICORN_CONF), "exec"), values)  # noqa: S102
    out = {k: values[k] for k in ("worker_class", "workers", "threads", "keepalive")}
    for key in ("worker_class", "workers", "threads"):
        if getattr(config, key) is not None:
            out[key] = getattr(config, key)
    return out


def start_server(db_url: str, port: int, config: ServerConfig) -> subprocess.Popen:
    if not config.synchronous_commit:
        db_url += "?options=-c%20synchronous_commit%3Doff"
    env = {
        **os.environ,
        "DATABASE_URL": db_url,
        "DB_CONN_HEALTH_CHECKS": "1" if config.health_checks else "0",
        # empty: Django's client-side binding, no prepared statements (settings.py)
        "DB_PREPARE_THRESHOLD": os.environ.get("DB_PREPARE_THRESHOLD", "5")
        if config.prepared
        else "",
        "ALLOWED_HOSTS": HOST,
        "LOG_LEVEL": "ERROR",
    }
    env["DB_CONN_MAX_AGE"] = os.environ.get("DB_CONN_MAX_AGE", "60")
    cmd = [
        str(VENV_BIN / "gunicorn"),
        "--config",
        str(GUNICORN_CONF),
        "--bind",
        f"{HOST}:{port}",
        "--log-level",
        "warning",
    ]
    if config.worker_class is not None:
        cmd += ["--worker-class", config.worker_class, "--workers", str(config.workers)]
        cmd += ["--threads", str(config.threads)]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"gunicorn exited with {proc.returncode}")
        try:
            conn = http.client.HTTPConnection(HOST, port, timeout=2)
            conn.request("GET", "/api/auth/csrf/")
            if conn.getresponse().status == 200:
                return proc
        except OSError:
            time.sleep(0.2)
    stop_server(proc)
    raise RuntimeError("gunicorn did not answer within 60 s")


def stop_server(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)  # the group we started (master + workers)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


# --- clients ----------------------------------------------------------------------------------


@dataclass
class ClientResult:
    latencies: dict[str, list[float]] = field(default_factory=lambda: {"create": [], "update": []})
    statuses: Counter = field(default_factory=Counter)
    errors: Counter = field(default_factory=Counter)


class ApiClient:
    def __init__(self, port: int, token: str) -> None:
        self.conn = http.client.HTTPConnection(HOST, port, timeout=30)
        self.headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any, float]:
        payload = None if body is None else json.dumps(body)
        started = time.perf_counter()
        try:
            self.conn.request(method, path, body=payload, headers=self.headers)
            response = self.conn.getresponse()
            raw = response.read()
        except (OSError, http.client.HTTPException):
            self.conn.close()  # reconnect on the next call
            raise
        elapsed = time.perf_counter() - started
        return response.status, json.loads(raw) if raw else None, elapsed


def run_client(
    port: int, token: str, fx: Fixture, requests: int, seed: int, barrier: threading.Barrier
) -> ClientResult:
    result = ClientResult()
    rng = random.Random(seed)
    client = ApiClient(port, token)
    status, annotation, _ = client.call("POST", f"/api/documents/{fx.document}/my-annotation/")
    assert status in (200, 201), (status, annotation)
    barrier.wait()
    span: dict[str, Any] | None = None
    for i in range(requests):
        first = rng.randrange(len(fx.sentences))
        last = min(len(fx.sentences) - 1, first + rng.randrange(3))
        labels = rng.sample(fx.labels, rng.choice([1, 2]))
        if i % 2 == 0 or span is None:
            op, method, path = "create", "POST", f"/api/annotations/{annotation['id']}/spans/"
            body: dict[str, Any] = {
                "start": fx.sentences[first][0],
                "end": fx.sentences[last][1],
                "labels": labels,
                "client_id": str(uuid.uuid4()),
            }
            expected = 201
        else:
            op, method, path = "update", "PATCH", f"/api/spans/{span['id']}/"
            body = {"revision": span["revision"], "labels": [*labels, "no fallacy"]}
            expected = 200
        try:
            status, data, elapsed = client.call(method, path, body)
        except (OSError, http.client.HTTPException) as exc:
            result.errors[type(exc).__name__] += 1
            continue
        result.statuses[status] += 1
        result.latencies[op].append(elapsed)
        if status != expected:
            result.errors[f"{op}: HTTP {status}"] += 1
        elif op == "create":
            span = data
        else:
            span = None
    return result


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(q / 100 * len(ordered) + 0.5) - 1))
    return ordered[k]


def run_level(port: int, tokens: list[str], fx: Fixture, requests: int) -> dict[str, Any]:
    barrier = threading.Barrier(len(tokens) + 1)
    results: list[ClientResult] = [ClientResult() for _ in tokens]

    def work(i: int) -> None:
        results[i] = run_client(port, tokens[i], fx, requests, seed=i, barrier=barrier)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(tokens))]
    for t in threads:
        t.start()
    barrier.wait()
    started = time.perf_counter()
    for t in threads:
        t.join()
    wall = time.perf_counter() - started
    summary: dict[str, Any] = {"clients": len(tokens), "wall_s": round(wall, 2)}
    every: list[float] = []
    for op in ("create", "update"):
        values = [v for r in results for v in r.latencies[op]]
        every += values
        summary[op] = latency_summary(values)
    summary["all"] = latency_summary(every)
    summary["_raw"] = {
        "create": [v for r in results for v in r.latencies["create"]],
        "update": [v for r in results for v in r.latencies["update"]],
        "all": every,
    }
    summary["throughput_rps"] = round(len(every) / wall, 1)
    summary["statuses"] = dict(sum((r.statuses for r in results), Counter()))
    summary["errors"] = dict(sum((r.errors for r in results), Counter()))
    return summary


def latency_summary(values: list[float]) -> dict[str, Any]:
    ms = [v * 1000 for v in values]
    return {
        "n": len(ms),
        "p50_ms": round(percentile(ms, 50), 1),
        "p95_ms": round(percentile(ms, 95), 1),
        "p99_ms": round(percentile(ms, 99), 1),
        "mean_ms": round(statistics.fmean(ms), 1) if ms else None,
        "max_ms": round(max(ms), 1) if ms else None,
    }


def load_average() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def merge(summaries: list[dict[str, Any]]) -> dict[str, Any]:
    """One level's summary over several rounds (latencies pooled, throughput per round)."""
    out: dict[str, Any] = {"clients": summaries[0]["clients"], "rounds": len(summaries)}
    for op in ("create", "update", "all"):
        out[op] = latency_summary([v for s in summaries for v in s["_raw"][op]])
    out["throughput_rps"] = round(statistics.median(s["throughput_rps"] for s in summaries), 1)
    done = sum(len(s["_raw"]["all"]) for s in summaries)
    out["cpu_ms_per_request"] = {
        party: round(sum(s["cpu_s"][party] for s in summaries) / done * 1000, 2)
        for party in summaries[0]["cpu_s"]
    }
    out["statuses"] = dict(sum((Counter(s["statuses"]) for s in summaries), Counter()))
    out["errors"] = dict(sum((Counter(s["errors"]) for s in summaries), Counter()))
    return out


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_db_url_argument(parser)
    parser.add_argument("--levels", default="1,8", help="concurrency levels (comma-separated)")
    parser.add_argument("--requests", type=int, default=300, help="requests per client")
    parser.add_argument(
        "--configs",
        default="default",
        help="server configurations, comma-separated: default (gunicorn.conf.py) or "
        "CLASS:WORKERS:THREADS[:nosync][:nohc], e.g. gthread:3:4,sync:5:1",
    )
    parser.add_argument("--worker-class", help="with --workers/--threads: one configuration")
    parser.add_argument("--workers", type=int)
    parser.add_argument("--threads", type=int)
    parser.add_argument("--rounds", type=int, default=1, help="repeat, alternating the order")
    parser.add_argument("--warmup", type=int, default=20, help="unmeasured requests first")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument(
        "--profile",
        type=int,
        default=0,
        metavar="REQUESTS",
        help="after the timed rounds, each configuration and level again with REQUESTS per"
        " client under py-spy: where the server's time went, by layer (bench/profiles.py)",
    )
    return parser.parse_args()


def configs_of(args: argparse.Namespace) -> list[ServerConfig]:
    """The server configurations: ``--worker-class/--workers/--threads`` or ``--configs``."""
    if args.worker_class or args.workers or args.threads:
        defaults = effective_settings(ServerConfig())
        return [
            ServerConfig(
                args.worker_class or defaults["worker_class"],
                args.workers or defaults["workers"],
                args.threads or defaults["threads"],
            )
        ]
    return [ServerConfig.parse(c.strip()) for c in args.configs.split(",") if c.strip()]


Servers = dict[ServerConfig, tuple[int, subprocess.Popen]]
Raw = dict[tuple[ServerConfig, int], list[dict[str, Any]]]
Profiles = dict[tuple[ServerConfig, int], list[str]]


def timed_rounds(
    args: argparse.Namespace,
    configs: list[ServerConfig],
    levels: list[int],
    servers: Servers,
    fx: Fixture,
    tokens: Any,
) -> Raw:
    """Each round, level and configuration (the order alternating by round) timed with the
    web workers' CPU; every client its own annotator."""
    raw: Raw = {}
    for round_no in range(args.rounds):
        order = configs if round_no % 2 == 0 else configs[::-1]
        for level in levels:
            for config in order:
                port, proc = servers[config]
                group = [next(tokens) for _ in range(level)]
                meter = CpuMeter(proc.pid)
                meter.start()
                result = run_level(port, group, fx, args.requests)
                result["cpu_s"] = meter.stop()
                raw.setdefault((config, level), []).append(result)
    return raw


def profiled_runs(
    args: argparse.Namespace,
    configs: list[ServerConfig],
    levels: list[int],
    servers: Servers,
    fx: Fixture,
    tokens: Any,
) -> Profiles:
    """Each configuration and level again under py-spy (``--profile`` requests per client)."""
    profiles: Profiles = {}
    for config in configs:
        port, proc = servers[config]
        for level in levels:
            group = [next(tokens) for _ in range(level)]
            stacks = record(
                workers_of(proc.pid),
                lambda port=port, group=group: run_level(port, group, fx, args.profile),
            )
            profiles[(config, level)] = summary(stacks)
    return profiles


def measure(
    args: argparse.Namespace, configs: list[ServerConfig], levels: list[int]
) -> tuple[Fixture, Raw, Profiles]:
    """Scratch database, fixture and servers; the timed rounds, then the profiled runs;
    the servers stopped and the database dropped whatever happens."""
    db_name = f"fallacy_bench_{os.getpid()}"
    db_url = create_database(args.db_url, db_name)
    servers: Servers = {}
    try:
        per_round = sum(levels)
        runs = 1 + (args.rounds + (1 if args.profile else 0)) * per_round
        fx = build_fixture(db_url, len(configs) * runs)
        tokens = iter(fx.tokens)
        for config in configs:
            port = free_port()
            servers[config] = (port, start_server(db_url, port, config))
            # warm up every worker and its connections
            run_level(port, [next(tokens)], fx, args.warmup)
        # profiled runs need tokens of their own (each client its own annotator)
        profile_tokens = (
            [next(tokens) for _ in range(len(configs) * per_round)] if args.profile else []
        )
        raw = timed_rounds(args, configs, levels, servers, fx, tokens)
        profiles = (
            profiled_runs(args, configs, levels, servers, fx, iter(profile_tokens))
            if args.profile
            else {}
        )
    finally:
        for _, proc in servers.values():
            stop_server(proc)
        drop_database(args.db_url, db_name)
    return fx, raw, profiles


def main() -> None:
    args = parse_args()
    configs = configs_of(args)
    levels = [int(x) for x in args.levels.split(",")]
    load_before = load_average()
    fx, raw, profiles = measure(args, configs, levels)
    report: dict[str, Any] = {
        "machine": {**machine_facts(), "postgresql": fx.pg_version},
        "load_average": {"before": load_before, "after": load_average()},
        "requests_per_client": args.requests,
        "rounds": args.rounds,
        "configs": [
            {
                "config": config.label(),
                "gunicorn": effective_settings(config),
                "synchronous_commit": config.synchronous_commit,
                "conn_health_checks": config.health_checks,
                "levels": [merge(raw[(config, level)]) for level in levels],
            }
            for config in configs
        ],
    }
    m = report["machine"]
    print(f"machine: {m['cpu']}, {m['cores']} cores, Python {m['python']}, ", end="")
    print(f"PostgreSQL {m['postgresql']}")
    print(f"load average: {load_before} before, {report['load_average']['after']} after")
    print(
        f"{args.requests} requests per client (create/update alternating, keep-alive, token "
        f"auth), {args.rounds} round(s); clients run on this machine too"
    )
    for c in report["configs"]:
        g = c["gunicorn"]
        print(
            f"server {c['config']}: gunicorn {g['worker_class']}, {g['workers']} workers x "
            f"{g['threads']} threads, keepalive {g['keepalive']} s; PostgreSQL connections kept "
            f"60 s, health checks {'on' if c['conn_health_checks'] else 'off'}, "
            f"synchronous_commit {'on' if c['synchronous_commit'] else 'off'}"
        )
    print_table(report, levels)
    print_cpu(report)
    for (config, level), lines in profiles.items():
        print(
            f"py-spy samples of the web workers in requests (waits included), {config.label()},"
            f" {level} client(s),"
            f" {args.profile} requests each:"
        )
        print("\n".join(lines))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
