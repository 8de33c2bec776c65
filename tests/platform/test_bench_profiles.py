"""bench/profiles.py: py-spy samples summed by layer, only those taken inside a request, and
CPU time read from /proc (the benchmarks' "where the time goes")."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.paths import ROOT

sys.path.insert(0, str(ROOT / "bench"))
try:
    import profiles
finally:
    sys.path.remove(str(ROOT / "bench"))

HANDLE = "ThreadWorker.handle (gunicorn/workers/gthread.py:553)"
REQUEST = "WSGIHandler.__call__ (django/core/handlers/wsgi.py:124)"


def stack(*leaf: str) -> list[str]:
    return ["Thread.run (threading.py:982)", HANDLE, REQUEST, *leaf]


def test_samples_go_to_the_innermost_known_layer_and_waits_for_a_connection_are_left_out():
    stacks = [
        (stack("Connection.wait (psycopg/connection.py:495)"), 6),
        (
            stack(
                "document_page (annotations/selectors/document_page.py:80)",
                "loads (json/__init__.py:346)",
            ),
            3,
        ),
        (stack("APIView.dispatch (rest_framework/views.py:500)"), 1),
        # a worker thread waiting for the next connection: not a request
        (
            [
                "ThreadWorker.run (gunicorn/workers/gthread.py:425)",
                "EpollSelector.select (selectors.py:468)",
            ],
            90,
        ),
    ]
    lines = profiles.summary(stacks)
    assert lines[0].strip() == "samples in requests: 10"
    shares = {line.split("%", 1)[1].strip(): line.split("%")[0].strip() for line in lines[1:4]}
    assert shares == {"psycopg (driver)": "60.0", "platform code": "30.0", "DRF": "10.0"}
    assert "loads (json/__init__.py:346)" in "\n".join(lines)  # top functions: the leaf itself


def test_a_stdlib_leaf_counts_for_its_caller_and_unknown_code_is_other():
    assert profiles.layer_of(stack("sendall (socket.py:1)")) == "Django request/middleware"
    assert profiles.layer_of(["main (somewhere/else.py:1)"]) == "other"
    assert profiles.layer_of(stack("Query.get_compiler (django/db/models/sql/query.py:1)")) == (
        "Django ORM"
    )


def test_no_request_sample_says_so():
    idle = [(["ThreadWorker.run (gunicorn/workers/gthread.py:425)"], 5)]
    assert profiles.summary(idle) == ["    (no busy samples)"]


def test_cpu_meter_counts_a_busy_child_of_the_master():
    """A 'master' whose child burns CPU: the web share grows by about that much."""
    burn = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.8: pass\n"
    master = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import subprocess, sys; subprocess.run([sys.executable, '-c', {burn!r}])",
        ]
    )
    try:
        deadline = time.monotonic() + 10
        while not profiles.workers_of(master.pid) and time.monotonic() < deadline:
            time.sleep(0.01)
        if not Path(f"/proc/{master.pid}/task/{master.pid}/children").exists():
            pytest.skip("this kernel has no /proc/PID/task/TID/children")
        meter = profiles.CpuMeter(master.pid)
        meter.start()
        worker = profiles.workers_of(master.pid)[0]
        while os.path.exists(f"/proc/{worker}") and profiles._cpu_of(worker) < 0.3:
            time.sleep(0.01)
        used = meter.stop()
    finally:
        master.wait(timeout=30)
    assert used["web"] >= 0.1
    assert set(used) == {"client", "web", "postgresql"}
