"""The concurrent annotators of ``annotate_api.py`` and their figures: each client a thread
with a keep-alive connection and its own token, alternating "create a span" and "change that
span"; latency percentiles per level and over several rounds.
"""

from __future__ import annotations

import http.client
import json
import random
import statistics
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from servers import HOST  # bench/ is the script's folder


@dataclass
class Fixture:
    """The scratch database's document, one token per annotator, the document's sentence
    ranges, the labels to pick from and the PostgreSQL version."""

    document: int
    tokens: list[str]
    sentences: list[tuple[int, int]]
    labels: list[str]
    pg_version: str = ""


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
