"""A span write's cost inside the web process: Django's WSGI handler called directly.

No socket, no gunicorn, no client: the request as ``bench/annotate_api.py`` sends it (token
auth, JSON, create then change a span) goes through the middleware, DRF and the services
against a scratch PostgreSQL database, one after the other in this process. Prints wall and
CPU milliseconds per write (wall minus CPU is the wait on PostgreSQL's three round trips),
and with ``--profile`` the CPU profile (cProfile on ``time.process_time``) summed by layer
as ``bench/profiles.py`` names them, with the functions of most own CPU time.

    .venv/bin/python bench/span_write_inprocess.py [--writes 600] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import sys
import time
import uuid
from collections import Counter
from collections.abc import Callable
from typing import Any

from annotate_api import build_fixture  # bench/ is the script's folder
from annotate_clients import Fixture
from machine import describe_machine
from profiles import layer_of_path
from servers import add_db_url_argument, create_database, drop_database


class Caller:
    """Calls the WSGI application as gunicorn would, with one annotator's token."""

    def __init__(self, token: str) -> None:
        from django.core.handlers.wsgi import WSGIHandler

        self.app = WSGIHandler()
        self.token = token

    def __call__(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = json.dumps(body).encode() if body is not None else b""
        environ = {
            "REQUEST_METHOD": method,
            "PATH_INFO": path,
            "QUERY_STRING": "",
            "SERVER_NAME": "127.0.0.1",
            "SERVER_PORT": "8000",
            "SERVER_PROTOCOL": "HTTP/1.1",
            "HTTP_HOST": "127.0.0.1",
            "REMOTE_ADDR": "127.0.0.1",
            "CONTENT_TYPE": "application/json",
            "CONTENT_LENGTH": str(len(data)),
            "HTTP_AUTHORIZATION": f"Token {self.token}",
            "wsgi.input": io.BytesIO(data),
            "wsgi.errors": sys.stderr,
            "wsgi.url_scheme": "http",
        }
        status: list[str] = []
        answer = b"".join(self.app(environ, lambda s, headers, exc_info=None: status.append(s)))
        return int(status[0].split()[0]), json.loads(answer) if answer else None


STDLIB = "Python (stdlib and builtins)"


def layer_of_file(filename: str) -> str:
    return layer_of_path(filename) or STDLIB


def own_time_by_layer(stats: dict) -> Counter[str]:
    """cProfile's own times by layer; the standard library's and builtins' own time goes to
    the layers of their callers (in proportion to the time each caller spent in them,
    followed up through standard-library callers), as ``bench/profiles.py`` does."""
    layers: Counter[str] = Counter()

    def give(function: tuple, seconds: float, depth: int = 0) -> None:
        layer = layer_of_file(function[0])
        callers = stats[function][4] if function in stats else {}
        share_total = sum(c[2] for c in callers.values())
        if layer != STDLIB or depth > 8 or not callers or share_total <= 0:
            layers[layer] += seconds
            return
        for caller, c in callers.items():
            give(caller, seconds * c[2] / share_total, depth + 1)

    for function, (_, _, own, _, _) in stats.items():
        give(function, own)
    return layers


def span_pair(fx: Fixture) -> Callable[[], None]:
    """One annotator's create-then-change of a span, through the WSGI handler, checked."""
    call = Caller(fx.tokens[0])
    status, annotation = call("POST", f"/api/documents/{fx.document}/my-annotation/")
    assert status in (200, 201), (status, annotation)
    spans = f"/api/annotations/{annotation['id']}/spans/"
    first, last = fx.sentences[0][0], fx.sentences[1][1]

    def pair() -> None:
        body = {"start": first, "end": last, "labels": fx.labels[:2]}
        status, span = call("POST", spans, {**body, "client_id": str(uuid.uuid4())})
        assert status == 201, (status, span)
        change = {"revision": span["revision"], "labels": fx.labels[2:3]}
        status, span = call("PATCH", f"/api/spans/{span['id']}/", change)
        assert status == 200, (status, span)

    return pair


def print_profile(pair: Callable[[], None], pairs: int) -> None:
    """``pairs`` more writes under cProfile: own CPU time by layer and the top functions."""
    profiler = cProfile.Profile(time.process_time)
    profiler.enable()
    for _ in range(pairs):
        pair()
    profiler.disable()
    stats = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    layers = own_time_by_layer(stats)
    functions: Counter[str] = Counter()
    for (filename, line, function), (_, _, own, _, _) in stats.items():
        where = filename.split("site-packages/")[-1].split("/work/main/")[-1]
        functions[f"{function} ({where}:{line})"] += own
    total = sum(layers.values())
    print(
        f"CPU profile (cProfile's own time by layer, the standard library's counted"
        f" for its callers; {total:.2f} s profiled):"
    )
    for layer, own in layers.most_common():
        print(f"  {own / total:6.1%}  {layer}")
    print("  functions of most own CPU time:")
    for function, own in functions.most_common(12):
        print(f"  {own / total:6.1%}  {function}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_db_url_argument(parser)
    parser.add_argument("--writes", type=int, default=600, help="timed writes (create+change)")
    parser.add_argument("--profile", action="store_true", help="CPU profile by layer")
    args = parser.parse_args()
    os.environ.update(ALLOWED_HOSTS="127.0.0.1", DB_CONN_MAX_AGE="60", LOG_LEVEL="ERROR")
    name = f"fallacy_bench_inprocess_{os.getpid()}"
    db_url = create_database(args.db_url, name)
    try:
        fx = build_fixture(db_url, 1)
        pair = span_pair(fx)
        for _ in range(30):  # warm-up: prepared statements, caches
            pair()
        pairs = max(1, args.writes // 2)
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in range(pairs):
            pair()
        wall_ms = (time.perf_counter() - wall) / (2 * pairs) * 1000
        cpu_ms = (time.process_time() - cpu) / (2 * pairs) * 1000
        print(f"machine: {describe_machine()}; PostgreSQL {fx.pg_version}")
        print(
            f"span write in process ({2 * pairs} writes, create and change alternating):"
            f" wall {wall_ms:.2f} ms, CPU {cpu_ms:.2f} ms, waiting on PostgreSQL"
            f" {wall_ms - cpu_ms:.2f} ms"
        )
        if args.profile:
            print_profile(pair, pairs)
    finally:
        from django.db import connections

        connections.close_all()
        drop_database(args.db_url, name)


if __name__ == "__main__":
    main()
