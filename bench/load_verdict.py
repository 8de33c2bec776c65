"""The verdict of ``load_annotate.py``: what the server holds against what each client of
``load_clients.py`` believes it saved, its failed attempts inside and outside the restart
windows, and the latencies; and the report printed.
"""

from __future__ import annotations

import statistics
from collections import Counter
from typing import Any

from load_clients import (  # bench/ is the script's folder
    IDLE_KEEPALIVE_S,
    ClientState,
    Fixture,
    Http,
    Timeline,
    same_fields,
)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(q / 100 * len(ordered) + 0.5) - 1))
    return ordered[k]


def latency_summary(values: list[float]) -> dict[str, Any]:
    ms = [v * 1000 for v in values]
    if not ms:
        return {"n": 0, "p50_ms": None, "p95_ms": None, "p99_ms": None, "max_ms": None}
    return {
        "n": len(ms),
        "p50_ms": round(percentile(ms, 50), 1),
        "p95_ms": round(percentile(ms, 95), 1),
        "p99_ms": round(percentile(ms, 99), 1),
        "max_ms": round(max(ms), 1),
        "mean_ms": round(statistics.fmean(ms), 1),
    }


def read_back(c: ClientState, port: int) -> tuple[dict[int, dict], dict[int, int], list[str]]:
    """(server spans by id, annotation revision by doc, problems) through the API."""
    http_ = Http(port, c.token)
    spans: dict[int, dict] = {}
    revisions: dict[int, int] = {}
    problems = []
    for doc in c.docs:
        a = http_.send("GET", f"/api/documents/{doc}/my-annotation/")
        if a.status != 200:
            problems.append(f"client {c.index}: read-back of document {doc} -> {a.status}")
            continue
        revisions[doc] = a.data["revision"]
        for span in a.data["spans"]:
            span["doc"] = doc
            spans[span["id"]] = span
    http_.close()
    return spans, revisions, problems


def duplicate_client_ids(db_url: str) -> tuple[int, int]:
    """(client_ids held by more than one span, spans without a client_id) in the span table."""
    import psycopg

    with psycopg.connect(db_url) as conn:
        dups = conn.execute(
            "SELECT count(*) FROM (SELECT 1 FROM annotations_span GROUP BY annotation_id, "
            "client_id HAVING count(*) > 1) d"
        ).fetchone()[0]
        nulls = conn.execute(
            "SELECT count(*) FROM annotations_span WHERE client_id IS NULL"
        ).fetchone()[0]
    return int(dups), int(nulls)


def compare_with_server(
    clients: list[ClientState], port: int, v: Counter, samples: list[str]
) -> None:
    """What the server holds against what each client believes it saved: counts in ``v``
    (lost, duplicated, mismatched...), examples in ``samples``."""
    for c in clients:
        server, revisions, problems = read_back(c, port)
        samples += problems + c.unexpected
        v["unexpected"] += len(problems) + len(c.unexpected)
        v["gave_up"] += c.gave_up
        v["spans_server"] += len(server)
        v["spans_believed"] += len(c.alive)
        for sid, b in c.alive.items():
            span = server.get(sid)
            if span is None:
                v["lost"] += 1
                samples.append(f"client {c.index}: LOST span {sid} {b}")
            elif not same_fields(b, span) or span["revision"] != b.revision:
                v["mismatched"] += 1
                samples.append(f"client {c.index}: span {sid} is {span}, believed {b}")
        for sid, span in server.items():
            if sid in c.deleted:
                v["resurrected"] += 1
                samples.append(f"client {c.index}: deleted span {sid} is back: {span}")
            elif sid not in c.alive:
                v["duplicated"] += 1
                samples.append(f"client {c.index}: span {sid} nobody created: {span}")
        for doc, ann in c.annotations.items():
            if doc in revisions and revisions[doc] != ann["base"] + ann["applied"]:
                v["revision_off"] += 1
                samples.append(
                    f"client {c.index}: annotation of document {doc} at revision "
                    f"{revisions[doc]}, expected {ann['base']} + {ann['applied']} writes"
                )


def classify_failures(clients: list[ClientState], timeline: Timeline) -> tuple[Counter, list[str]]:
    """Failed attempts by kind (inside a restart window, on a socket a restart or idling
    closed, or outside: a fault), and the ones outside the windows."""
    failed = Counter()
    outside: list[str] = []
    last_up = max((up for _, _, up in timeline.windows), default=None)
    for c in clients:
        for op, a in c.failed:
            if timeline.inside(a.t0, a.t1):
                failed[f"{a.status or a.error} inside a window"] += 1
            elif (
                a.status is None
                and last_up is not None
                and a.conn_opened < (timeline.last_up_before(a.t0) or -1)
            ):
                failed[f"{a.error} on a keep-alive socket opened before a restart"] += 1
            elif a.status is None and a.idle is not None and a.idle >= IDLE_KEEPALIVE_S:
                # gunicorn closes keep-alive sockets idle for more than its keepalive (2 s by
                # default); a browser re-sends on a new socket without telling anyone
                failed[f"{a.error} on a keep-alive socket idle {IDLE_KEEPALIVE_S}+ s"] += 1
            else:
                failed[f"{a.status or a.error} OUTSIDE the windows"] += 1
                outside.append(f"{op}: {a.status or a.error} at {a.t0 - timeline.origin:.2f} s")
    return failed, outside


def latencies(clients: list[ClientState], timeline: Timeline) -> dict[str, Any]:
    """Latency per operation outside the restart windows, and of a save with its retries."""
    latency = {}
    for op in sorted({op for c in clients for op in c.latency} - {"start"}):
        latency[op] = latency_summary(
            [
                t1 - t0
                for c in clients
                for t0, t1 in c.latency.get(op, [])
                if not timeline.inside(t0, t1)
            ]
        )
    latency["save incl. retries"] = latency_summary([x for c in clients for x in c.save_latency])
    return latency


VERDICT_KEYS = (
    "spans_server",
    "spans_believed",
    "lost",
    "duplicated",
    "mismatched",
    "resurrected",
    "revision_off",
    "gave_up",
    "unexpected",
)


def summarise(
    *,
    clients: list[ClientState],
    fx: Fixture,
    timeline: Timeline,
    db_url: str,
    port: int,
    wall: float,
    windows_expected: int = 2,
) -> dict[str, Any]:
    v = Counter()
    samples: list[str] = []
    compare_with_server(clients, port, v, samples)
    dup_ids, null_ids = duplicate_client_ids(db_url)
    v["duplicated"] += dup_ids + null_ids
    failed, outside = classify_failures(clients, timeline)
    conflicts = sum((c.conflicts for c in clients), Counter())
    saves = sum(c.saves_done for c in clients)
    verdict = {k: v[k] for k in VERDICT_KEYS}
    ok = (
        not any(verdict[k] for k in verdict if k not in ("spans_server", "spans_believed"))
        and not outside
        and conflicts["wrong"] == 0
        and len(timeline.windows) == windows_expected
    )
    return {
        "ok": ok,
        "saves": saves,
        "wall_s": round(wall, 1),
        "saves_per_s": round(saves / wall, 1) if wall else None,
        "ops": dict(sum((c.ops for c in clients), Counter())),
        "windows": [
            {
                "name": n,
                "from_s": round(b - timeline.origin, 2),
                "to_s": round(u - timeline.origin, 2),
                "length_s": round(u - b, 2),
            }
            for n, b, u in timeline.windows
        ],
        "failed_attempts": dict(failed),
        "errors_outside_windows": outside[:20] or 0,
        "ambiguous_resolved": dict(sum((c.resolved for c in clients), Counter())),
        "conflicts": {
            "deliberate": conflicts["deliberate"],
            "got_409": conflicts["got_409"],
            "wrong": conflicts["wrong"],
        },
        "replays": dict(sum((c.replays for c in clients), Counter())),
        "verdict": verdict,
        "duplicate_client_ids": dup_ids,
        "spans_without_client_id": null_ids,
        "samples": samples[:50],
        "latency": latencies(clients, timeline),
    }


def print_report(r: dict[str, Any]) -> None:
    """The report of ``summarise`` as text: the load, the restart windows, the retries and
    conflicts, the read-back's verdict and the latencies."""
    m = r["machine"]
    print(f"machine: {m['cpu']}, {m['cores']} cores, Python {m['python']}, ", end="")
    print(f"PostgreSQL {m['postgresql']}")
    print(f"server:  gunicorn {r['server']}")
    s = r["settings"]
    print(
        f"load:    {s['annotators']} annotators x {s['saves_per_annotator']} saves "
        f"({r['saves']} saves in {r['wall_s']} s, {r['saves_per_s']} saves/s); "
        f"ops {r['ops']}"
    )
    for w in r["windows"]:
        print(f"window:  {w['name']}: {w['from_s']} s .. {w['to_s']} s ({w['length_s']} s down)")
    print(f"retries: {r['failed_attempts']}")
    print(f"         server errors outside the windows: {r['errors_outside_windows']}")
    print(f"ambiguous saves resolved by retry: {r['ambiguous_resolved']}")
    c = r["conflicts"]
    print(
        f"conflicts: {c['deliberate']} deliberate, {c['got_409']} answered 409 with the saved "
        f"span, {c['wrong']} not; replays {r['replays']}"
    )
    v = r["verdict"]
    print(
        f"read-back: {v['spans_server']} spans on the server, {v['spans_believed']} believed; "
        f"lost {v['lost']}, duplicated {v['duplicated']}, mismatched {v['mismatched']}, "
        f"resurrected {v['resurrected']}, annotation revisions off {v['revision_off']}, "
        f"gave up {v['gave_up']}, unexpected answers {v['unexpected']}"
    )
    for sample in r["samples"][:10]:
        print(f"  - {sample}")
    heads = ("n", "p50_ms", "p95_ms", "p99_ms", "max_ms")
    print(f"latency (answered at the first attempt, outside the windows): {' '.join(heads)}")
    for op, lat in r["latency"].items():
        print(f"  {op:>16} " + " ".join(str(lat[h]) for h in heads))
    print("RESULT: " + ("OK, 0 lost" if r["ok"] else "FAILED"))
