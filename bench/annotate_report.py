"""What ``annotate_api.py`` prints: the machine and the servers measured, latency and
throughput per configuration and level, the ratios to the first configuration, and the CPU
each request cost.
"""

from __future__ import annotations

import os
from typing import Any


def print_setup(report: dict[str, Any]) -> None:
    """The machine, the load, the clients' work and each server configuration."""
    m = report["machine"]
    print(f"machine: {m['cpu']}, {m['cores']} cores, Python {m['python']}, ", end="")
    print(f"PostgreSQL {m['postgresql']}")
    load = report["load_average"]
    print(f"load average: {load['before']} before, {load['after']} after")
    print(
        f"{report['requests_per_client']} requests per client (create/update alternating,"
        f" keep-alive, token auth), {report['rounds']} round(s); clients run on this machine too"
    )
    for c in report["configs"]:
        g = c["gunicorn"]
        print(
            f"server {c['config']}: gunicorn {g['worker_class']}, {g['workers']} workers x "
            f"{g['threads']} threads, keepalive {g['keepalive']} s; PostgreSQL connections kept "
            f"60 s, health checks {'on' if c['conn_health_checks'] else 'off'}, "
            f"synchronous_commit {'on' if c['synchronous_commit'] else 'off'}"
        )


def print_table(report: dict[str, Any], levels: list[int]) -> None:
    """Latency percentiles and throughput per level and configuration, and the ratios of
    every configuration to the first."""
    heads = ["p50 ms", "p95 ms", "p99 ms", "max ms"]
    width = max(len(c["config"]) for c in report["configs"])
    print(
        f"{'config':>{width}} {'clients':>7} {'op':>6} {'n':>5} "
        + " ".join(f"{h:>8}" for h in heads)
        + f" {'req/s':>7}  statuses / errors"
    )
    for level_no in range(len(levels)):
        for c in report["configs"]:
            level = c["levels"][level_no]
            for op in ("create", "update", "all"):
                s = level[op]
                rps = f"{level['throughput_rps']:>7}" if op == "all" else " " * 7
                tail = f"{level['statuses']} / {level['errors'] or 'none'}" if op == "all" else ""
                print(
                    f"{c['config']:>{width}} {level['clients']:>7} {op:>6} {s['n']:>5} "
                    f"{s['p50_ms']:>8} {s['p95_ms']:>8} {s['p99_ms']:>8} {s['max_ms']:>8} "
                    f"{rps}  {tail}"
                )
    if len(report["configs"]) > 1:
        print(f"ratios to {report['configs'][0]['config']} (p50, p95, req/s):")
        first = report["configs"][0]
        for c in report["configs"][1:]:
            for a, b in zip(first["levels"], c["levels"], strict=True):
                print(
                    f"  {c['config']:>{width}} {b['clients']:>3} clients: "
                    f"p50 x{b['all']['p50_ms'] / a['all']['p50_ms']:.2f}, "
                    f"p95 x{b['all']['p95_ms'] / a['all']['p95_ms']:.2f}, "
                    f"req/s x{b['throughput_rps'] / a['throughput_rps']:.2f}"
                )


def print_cpu(report: dict[str, Any]) -> None:
    """CPU per request by party, and the server side's ceiling on this machine's cores."""
    width = max(len(c["config"]) for c in report["configs"])
    cores = os.cpu_count() or 1
    print(
        "CPU per request (ms; client = this script, web = gunicorn, postgresql = every server"
        " process of the machine), and the ceiling of this machine's cores for the server"
        " side alone (web + postgresql) if the clients ran elsewhere:"
    )
    for c in report["configs"]:
        for level in c["levels"]:
            cpu = level["cpu_ms_per_request"]
            server = cpu["web"] + cpu["postgresql"]
            print(
                f"  {c['config']:>{width}} {level['clients']:>3} clients: client"
                f" {cpu['client']:.2f}, web {cpu['web']:.2f}, postgresql {cpu['postgresql']:.2f};"
                f" all {sum(cpu.values()):.2f} ms; server side {server:.2f} ms ="
                f" at most {cores * 1000 / server:,.0f} req/s on {cores} cores"
            )
