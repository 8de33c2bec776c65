"""``manage.py serve`` (what ``make demo`` runs): a standard-library supervisor (no Django
process lingering), a standard-library front server on the public port, one gunicorn worker
and one Celery worker process by default, none of them with scipy/torch/transformers loaded
at idle, and SIGTERM stops every process (``bench/memory_idle.py`` imports a file through
its worker). A worker or gunicorn killed by a signal is started again and the site keeps
answering (tests/platform/test_slow_clients.py: the front against slow clients)."""

from __future__ import annotations

import json
import os
import signal
import time
import urllib.request
from pathlib import Path

import pytest

from tests.support.jobs import DatabaseTemplates, wait_for
from tests.support.processes import embedded_env, free_port, manage
from tests.support.slow_clients import serve

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
    with serve(env, free_port(), tmp_path / "serve.log") as supervisor:
        time.sleep(3)  # the Celery worker finishes starting
        pids = tree(supervisor.pid)
        commands = {
            pid: Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            for pid in pids
        }
        assert "supervise.py" in commands[supervisor.pid]  # manage.py exec'd the supervisor
        served = [c for pid, c in commands.items() if pid != supervisor.pid]
        assert sum("gunicorn" in c for c in served) == 2  # master + 1 worker
        assert sum("celery" in c for c in served) == 1  # a thread pool
        assert sum("front.py" in c for c in served) == 1  # the public port
        assert len(pids) == 5, commands
        for pid in pids:
            maps = Path(f"/proc/{pid}/maps").read_text()
            loaded = [m for m in HEAVY if f"/site-packages/{m}/" in maps]
            assert not loaded, (commands[pid], loaded)
    deadline = time.monotonic() + 30
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not [pid for pid in pids if alive(pid)]


def children(pid: int) -> dict[int, str]:
    """The supervisor's children: process id -> command line."""
    found = {}
    for child in tree(pid)[1:]:
        try:
            stat = Path(f"/proc/{child}/stat").read_text()
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid and alive(child):
                found[child] = Path(f"/proc/{child}/cmdline").read_bytes().decode()
        except OSError:
            continue
    return found


def one(pid: int, marker: str) -> int:
    matching = [child for child, command in children(pid).items() if marker in command]
    return matching[0] if len(matching) == 1 else 0


def answers(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/auth/csrf/", timeout=5) as r:
            return r.status == 200
    except OSError:
        return False


PING = (
    "from fallacy_platform.tasks import ping; import json; "
    "print(json.dumps(ping.delay().get(timeout=90)))"
)


def test_a_killed_worker_or_web_server_is_started_again(
    tmp_path: Path, database_templates: DatabaseTemplates
) -> None:
    env = embedded_env(tmp_path)
    database_templates.sqlite_copy("migrated", tmp_path)
    port = free_port()
    with serve(env, port, tmp_path / "serve.log") as supervisor:
        worker = wait_for(lambda: one(supervisor.pid, "celery"), timeout=30)
        os.kill(worker, signal.SIGKILL)  # an out-of-memory kill
        checked = []
        for _ in range(10):
            checked.append(answers(port))
            time.sleep(0.3)
        assert all(checked), checked  # the site stayed up
        restarted = wait_for(lambda: one(supervisor.pid, "celery"), timeout=30)
        assert restarted != worker
        result = manage("shell", "-c", PING, env=env, timeout=150)
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout.strip().splitlines()[-1])["pid"] == str(restarted)

        web = one(supervisor.pid, "gunicorn")
        os.kill(web, signal.SIGKILL)
        assert wait_for(lambda: one(supervisor.pid, "gunicorn") not in (0, web), timeout=30)
        wait_for(lambda: answers(port), timeout=60, interval=0.5)
        assert supervisor.poll() is None
        log = (tmp_path / "serve.log").read_text()
        assert "worker exited with status -9" in log and "web exited with status -9" in log
