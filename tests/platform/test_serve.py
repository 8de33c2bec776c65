"""``manage.py serve`` (what ``make demo`` runs): a standard-library supervisor (no Django
process lingering), one gunicorn worker and one Celery worker process by default, none of
them with scipy/torch/transformers loaded at idle, and SIGTERM stops every process
(``bench/memory_idle.py`` imports a file through its worker)."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.support.jobs import DatabaseTemplates
from tests.support.processes import PYTHON, ROOT, embedded_env, free_port, wait_for_http

pytestmark = pytest.mark.slow

HEAVY = ("scipy", "torch", "transformers", "nltk", "statsmodels", "sklearn", "vllm")


def tree(pid: int) -> list[int]:
    parent = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parent[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    out, frontier = [pid], [pid]
    while frontier:
        frontier = [p for p, pp in parent.items() if pp in frontier]
        out += frontier
    return out


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_serve_is_light_and_stops_cleanly(
    tmp_path: Path, database_templates: DatabaseTemplates
) -> None:
    env = embedded_env(tmp_path)
    database_templates.sqlite_copy("migrated", tmp_path)
    port = free_port()
    serve = subprocess.Popen(
        [PYTHON, "manage.py", "serve", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        wait_for_http(f"http://127.0.0.1:{port}/api/auth/csrf/", timeout=120)
        time.sleep(3)  # the Celery worker finishes starting
        pids = tree(serve.pid)
        commands = {
            pid: Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            for pid in pids
        }
        assert "supervise.py" in commands[serve.pid]  # manage.py exec'd the supervisor
        served = [c for pid, c in commands.items() if pid != serve.pid]
        assert sum("gunicorn" in c for c in served) == 2  # master + 1 worker
        assert sum("celery" in c for c in served) == 1  # a thread pool
        assert len(pids) == 4, commands
        for pid in pids:
            maps = Path(f"/proc/{pid}/maps").read_text()
            loaded = [m for m in HEAVY if f"/site-packages/{m}/" in maps]
            assert not loaded, (commands[pid], loaded)
    finally:
        serve.send_signal(signal.SIGTERM)
        serve.wait(timeout=60)
    deadline = time.monotonic() + 30
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not [pid for pid in pids if alive(pid)]
