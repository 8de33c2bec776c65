"""Helpers for tests that start real processes (workers, servers)."""

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYTHON = str(ROOT / ".venv" / "bin" / "python") if (ROOT / ".venv").exists() else sys.executable
SERVICE_VARIABLES = ("DATABASE_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND")
# vLLM's CPU platform, once imported by an earlier test in this process, sets LD_PRELOAD to
# torch's libgomp: every process started afterwards would map part of torch.
LEAKED_VARIABLES = ("LD_PRELOAD",)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def embedded_env(data_dir: Path, **extra: str) -> dict[str, str]:
    """The environment of the embedded default: no service variables, a fresh data dir."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in SERVICE_VARIABLES and k not in LEAKED_VARIABLES
    }
    env.update(
        FALLACY_DATA_DIR=str(data_dir),
        PYTHONPATH=os.pathsep.join([str(ROOT / "platform"), str(ROOT)]),
        PYTHONUNBUFFERED="1",
        **extra,
    )
    return env


def manage(*args: str, env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [PYTHON, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@contextmanager
def celery_worker(
    env: dict[str, str], queues: str = "default,gpu", pool: str = "solo", concurrency: int = 0
) -> Iterator[subprocess.Popen]:
    """A Celery worker (``concurrency``: its pool's processes, 0: Celery's default)."""
    process = start(
        [
            PYTHON,
            "-m",
            "celery",
            "-A",
            "fallacy_platform",
            "worker",
            "-Q",
            queues,
            "--pool",
            pool,
            "--loglevel",
            "warning",
            "--without-gossip",
            "--without-mingle",
            *(["--concurrency", str(concurrency)] if concurrency else []),
        ],
        env,
    )
    try:
        yield process
    finally:
        stop(process)


def start(command: list[str], env: dict[str, str]) -> subprocess.Popen:
    """``command`` run from the repository root in a session of its own (``stop`` ends its
    whole group), its output and errors together on ``stdout`` as text."""
    return subprocess.Popen(
        command,
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


@contextmanager
def one_worker_gunicorn(env: dict[str, str], timeout: float = 90) -> Iterator[tuple[int, int]]:
    """gunicorn serving fallacy_platform.wsgi with one gthread worker (2 threads) on a free
    port, answering within ``timeout`` seconds: (port, the worker's pid)."""
    port = free_port()
    process = start(
        [str(Path(PYTHON).with_name("gunicorn")), "fallacy_platform.wsgi", "-b"]
        + [f"127.0.0.1:{port}", "-w", "1", "--threads", "2", "--log-level", "warning"],
        env,
    )
    try:
        wait_for_http(f"http://127.0.0.1:{port}/api/auth/csrf/", timeout=timeout, process=process)
        children = Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text().split()
        yield port, int(children[0])
    finally:
        stop(process)


def peak_rss(pid: int) -> int:
    """The process's peak resident set (VmHWM), in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM")


def stop(process: subprocess.Popen, timeout: float = 20) -> None:
    if process.poll() is None:
        try:
            os.killpg(process.pid, 15)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, 9)
            process.wait()


def wait_for_http(url: str, timeout: float = 90, process: subprocess.Popen | None = None) -> str:
    deadline = time.monotonic() + timeout
    last_error: Exception | None = None
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            output = process.stdout.read() if process.stdout else ""
            raise RuntimeError(f"server exited with {process.returncode}:\n{output}")
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                return response.read().decode()
        except Exception as error:  # noqa: BLE001 - keep polling until the deadline
            last_error = error
            time.sleep(0.5)
    raise TimeoutError(f"{url} did not answer within {timeout}s: {last_error}")
