"""The Celery workers of ``scale_out.py``: each a process with its own data folder and
HOME, as on a machine of its own; started, pinged until ready, stopped; their CPU time and
the runner processes they started, read from ``/proc`` and the shards' logs; their job
liveness settings and the broker keys they leave.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from netns import Namespace  # bench/ is the script's folder
from servers import ROOT

sys.path.insert(0, str(ROOT))
from tests.support.processes import PYTHON  # noqa: E402

BROKER = "redis://127.0.0.1:6379/9"
TICKS = os.sysconf("SC_CLK_TCK")


@dataclass
class Worker:
    name: str
    process: subprocess.Popen
    home: Path
    log: Path


def start_worker(
    env: dict[str, str], name: str, tmp: Path, prefix: list[str] | None = None
) -> Worker:
    """A worker with its own data folder and HOME, its output in ``<home>/worker.log``
    (``prefix``: what its command runs under, e.g. its network namespace)."""
    home = tmp / name
    home.mkdir()
    own = {**env, "FALLACY_DATA_DIR": str(home / "data"), "HOME": str(home)}
    log = home / "worker.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [*(prefix or []), PYTHON, "-m", "celery", "-A", "fallacy_platform", "worker"]
            + ["-Q", "default,gpu", "--pool", "solo", "--without-gossip", "--without-mingle"]
            + ["--loglevel", "warning", "-n", f"{name}@%h"],
            cwd=ROOT,
            env=own,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    return Worker(name, process, home, log)


class Hosts:
    """Where the workers run: each in a network namespace of its own (``isolated``) that
    reaches only ``ports`` of this host (and those ``forward`` adds later), or all here."""

    def __init__(self, isolated: bool, ports: list[int]) -> None:
        self.isolated, self.ports = isolated, list(ports)
        self.spaces: list[Namespace] = []

    def start(self, env: dict[str, str], name: str, tmp: Path) -> Worker:
        if not self.isolated:
            return start_worker(env, name, tmp)
        space = Namespace(len(self.spaces))
        self.spaces.append(space)
        space.create()
        for port in self.ports:
            space.forward(port)
        return start_worker(env, name, tmp, space.prefix)

    def forward(self, port: int) -> None:
        self.ports.append(port)
        for space in self.spaces:
            space.forward(port)

    def close(self) -> None:
        for space in self.spaces:
            space.close()
        self.spaces.clear()


def ping_app(prefix: str) -> Any:
    """A Celery app on the workers' broker and key prefix, to ping them."""
    from celery import Celery

    app = Celery("scale-ping", broker=BROKER)
    app.conf.broker_transport_options = {"global_keyprefix": prefix}
    return app


def wait_ready(app: Any, workers: list[Worker], timeout: float = 180) -> None:
    """Until every worker answers a ping (SystemExit with a log tail if one exits)."""
    wanted = {w.name for w in workers}
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for worker in workers:
            if worker.process.poll() is not None:
                raise SystemExit(f"{worker.name} exited:\n{worker.log.read_text()[-4000:]}")
        replies = app.control.ping(timeout=1.0) or []
        answered = {name.split("@")[0] for reply in replies for name in reply}
        if wanted <= answered:
            return
    raise SystemExit(f"workers not ready in {timeout:.0f} s: {sorted(wanted)}")


def stop_worker(worker: Worker) -> None:
    if worker.process.poll() is None:
        os.killpg(worker.process.pid, signal.SIGTERM)
        try:
            worker.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(worker.process.pid, signal.SIGKILL)
            worker.process.wait()
    else:
        worker.process.wait()


def cpu_seconds(pid: int) -> float:
    """utime + stime + cutime + cstime of ``pid`` (0 when it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return sum(int(fields[i]) for i in (11, 12, 13, 14)) / TICKS


def runner_starts(workers: list[Worker], run_id: int) -> int:
    """Runner processes started for the run: ``--- attempt`` lines in the shards' logs."""
    return sum(
        log.read_text(errors="replace").count("--- attempt")
        for w in workers
        for log in (w.home / "data" / "runs").glob(f"run-{run_id}-shard-*.log")
    )


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return not Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"


def liveness_env(stale: float | None) -> dict[str, str]:
    """The workers' job liveness settings for ``stale`` seconds (heartbeat and sweep at the
    defaults' ratios); none without it: the deployment's defaults hold."""
    if not stale:
        return {}
    return {
        "JOB_STALE_SECONDS": str(stale),
        "JOB_HEARTBEAT_SECONDS": str(stale / 9),
        "JOB_SWEEP_SECONDS": str(stale / 3),
    }


def drop_broker_keys(prefix: str) -> None:
    """Delete what the workers left in Redis under their key prefix."""
    import redis

    client = redis.Redis.from_url(BROKER)
    keys = list(client.scan_iter(match=f"{prefix}*"))
    if keys:
        client.delete(*keys)
