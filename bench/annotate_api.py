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
import json
import os
import subprocess
import uuid
from pathlib import Path
from typing import Any

from annotate_clients import Fixture, merge, run_level  # bench/ is the script's folder
from annotate_report import print_cpu, print_setup, print_table
from annotate_server import ServerConfig, effective_settings, start_server, stop_server
from machine import machine_facts
from profiles import CpuMeter, record, summary, workers_of
from servers import (
    add_db_url_argument,
    create_database,
    document_of_sentences,
    drop_database,
    free_port,
    setup_django,
)

SENTENCES = [
    f"Sentence number {i} says that policy {i} will surely ruin everything." for i in range(20)
]


# --- fixtures --------------------------------------------------------------------------------


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


def load_average() -> str:
    """The machine's 1, 5 and 15-minute load averages."""
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


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


def build_report(
    args: argparse.Namespace,
    configs: list[ServerConfig],
    levels: list[int],
    fx: Fixture,
    raw: Raw,
    load_before: str,
) -> dict[str, Any]:
    """The figures of every configuration and level (rounds merged), with the machine."""
    return {
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


def main() -> None:
    args = parse_args()
    configs = configs_of(args)
    levels = [int(x) for x in args.levels.split(",")]
    load_before = load_average()
    fx, raw, profiles = measure(args, configs, levels)
    report = build_report(args, configs, levels, fx, raw, load_before)
    print_setup(report)
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
