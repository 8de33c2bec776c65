"""Where a server's time goes: py-spy samples of its worker processes, summed by layer.

Used by ``read_api.py --profile`` and ``annotate_api.py --profile``: while a step's requests
run, ``py-spy record`` samples every gunicorn worker (a process below the given master);
the samples (idle threads included, so waits on the database count) of threads inside a request
are attributed to the layer of the innermost frame that is not the standard library (a
``json`` or ``socket`` call counts for its caller; SQLite's C calls for the Django backend
frame that makes them; a wait on PostgreSQL for psycopg), and printed as shares with the
top functions. Threads waiting for a connection are left out.

py-spy comes with the dev extra (``.venv/bin/py-spy``); it needs ptrace rights on the
server (root, or ``kernel.yama.ptrace_scope=0``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

PY_SPY = Path(sys.executable).with_name("py-spy")
ROOT = Path(__file__).resolve().parents[1]

# (layer, path fragment of a frame's file), first match wins
LAYERS = [
    ("gunicorn", "/gunicorn/"),
    ("DRF", "/rest_framework/"),
    ("drf-spectacular", "/drf_spectacular/"),
    ("whitenoise", "/whitenoise/"),
    ("simple-history", "/simple_history/"),
    ("Django ORM", "/django/db/models/"),
    ("Django DB backend", "/django/db/"),
    ("Django request/middleware", "/django/core/handlers/"),
    ("Django request/middleware", "/django/middleware/"),
    ("Django request/middleware", "/django/contrib/sessions/"),
    ("Django request/middleware", "/django/contrib/auth/"),
    ("Django request/middleware", "/django/contrib/messages/"),
    ("Django request/middleware", "/django/http/"),
    ("Django request/middleware", "/django/urls/"),
    ("Django other", "/django/"),
    ("psycopg (driver)", "/psycopg/"),
    ("psycopg (driver)", "/psycopg_c/"),
    ("platform code", "/annotations/"),
    ("platform code", "/evaluation/"),
    ("platform code", "/fallacy_platform/"),
]


def _file(frame: str) -> str:
    """``"/"`` + the file of a py-spy frame ``"function (path:line)"`` (py-spy writes paths
    relative to ``sys.path`` where it can: ``django/db/...``)."""
    return "/" + frame.rsplit(" (", 1)[-1].rstrip(")")


def layer_of_path(path: str) -> str | None:
    """The layer of a source file, None for the standard library and unknown code."""
    for name, fragment in LAYERS:
        if fragment in path:
            return name
    return None


def layer_of(frames: list[str]) -> str:
    """The layer of a sample: its innermost frame in a known package (a stdlib frame on
    top of it, e.g. json or socket, counts for the caller's layer; the SQLite library's C
    calls count for the Django DB backend, whose frame makes them)."""
    for frame in reversed(frames):
        layer = layer_of_path(_file(frame))
        if layer is not None:
            return layer
    return "other"


def in_request(frames: list[str]) -> bool:
    """A sample taken while the thread handles a request (gunicorn's handler on the stack),
    not while it waits for one."""
    return any(
        f.split(" (")[0].rsplit(".", 1)[-1] in ("handle", "handle_request")
        and "/gunicorn/" in _file(f)
        for f in frames
    )


def record(
    pids: list[int], work: Callable[[], None], rate: int = 500
) -> list[tuple[list[str], int]]:
    """Run ``work()`` while py-spy samples ``pids`` (with their threads, native frames off);
    the collapsed stacks, each as (frames outermost first, count)."""
    if not PY_SPY.exists():
        raise SystemExit(f"{PY_SPY} not found: pip install py-spy (the dev extra has it)")
    stacks: list[tuple[list[str], int]] = []
    with tempfile.TemporaryDirectory(prefix="bench-profile-") as tmp:
        spies = []
        for pid in pids:
            out = Path(tmp) / f"{pid}.txt"
            spies.append(
                (
                    out,
                    subprocess.Popen(
                        [str(PY_SPY), "record", "--pid", str(pid), "--rate", str(rate)]
                        + ["--format", "raw", "--output", str(out), "--nonblocking", "--idle"],
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL,
                    ),
                )
            )
        time.sleep(0.5)  # py-spy attaches
        try:
            work()
        finally:
            for _, spy in spies:
                spy.send_signal(2)  # SIGINT: py-spy writes what it has
            for _, spy in spies:
                spy.wait(timeout=30)
        for out, _ in spies:
            if not out.exists():
                continue
            for line in out.read_text().splitlines():
                stack, _, count = line.rpartition(" ")
                if stack:
                    stacks.append((stack.split(";"), int(count)))
    return stacks


def summary(stacks: list[tuple[list[str], int]], top: int = 8) -> list[str]:
    """Lines: the busy share of each layer, then the top functions by own samples."""
    busy = [(frames, n) for frames, n in stacks if in_request(frames)]
    total = sum(n for _, n in busy)
    if not total:
        return ["    (no busy samples)"]
    layers: Counter[str] = Counter()
    leaves: Counter[str] = Counter()
    for frames, n in busy:
        layers[layer_of(frames)] += n
        leaves[frames[-1].split(" (")[0] + " (" + _short(frames[-1]) + ")"] += n
    lines = [f"    samples in requests: {total}"]
    lines += [f"    {share / total:6.1%}  {name}" for name, share in layers.most_common()]
    lines.append("    top functions (own samples):")
    lines += [f"    {n / total:6.1%}  {name}" for name, n in leaves.most_common(top)]
    return lines


def _short(frame: str) -> str:
    where = frame.split(" (", 1)[1].rstrip(")") if " (" in frame else frame
    return where.split("site-packages/")[-1].removeprefix(f"{ROOT}/")


def workers_of(master: int) -> list[int]:
    """The child processes of ``master`` (gunicorn's workers)."""
    children = Path(f"/proc/{master}/task/{master}/children")
    return [int(p) for p in children.read_text().split()] if children.exists() else []


# --- CPU time by party ---------------------------------------------------------------------------

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def _cpu_of(pid: int) -> float:
    """User + system CPU seconds of a process (all its threads), 0 if it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime, stime


def postgres_pids() -> list[int]:
    """Every PostgreSQL server process of this machine (the benchmarks' scratch databases
    live in the machine's cluster; run them on a quiet machine)."""
    pids = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if (proc / "comm").read_text().strip() == "postgres":
                    pids.append(int(proc.name))
            except OSError:
                continue
    return pids


class CpuMeter:
    """CPU seconds spent by the client (this process), the web server (a gunicorn master and
    its workers) and PostgreSQL between ``start()`` and ``stop()``."""

    def __init__(self, master: int) -> None:
        self.master = master

    def _sample(self) -> dict[str, dict[int, float]]:
        web = [self.master, *workers_of(self.master)]
        return {
            "client": {os.getpid(): sum(os.times()[:2])},
            "web": {pid: _cpu_of(pid) for pid in web},
            "postgresql": {pid: _cpu_of(pid) for pid in postgres_pids()},
        }

    def start(self) -> None:
        self.before = self._sample()

    def stop(self) -> dict[str, float]:
        after = self._sample()
        return {
            party: sum(cpu - self.before[party].get(pid, 0.0) for pid, cpu in now.items())
            for party, now in after.items()
        }
