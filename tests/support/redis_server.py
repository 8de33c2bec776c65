"""A ``redis-server`` of a test's own on a free port (never the shared one)."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.support.jobs import wait_for
from tests.support.processes import free_port


@contextmanager
def scratch_redis(folder: Path) -> Iterator[dict]:
    """A redis-server of our own on a free port (never the shared one), restartable."""
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed")
    port = free_port()
    folder.mkdir(parents=True, exist_ok=True)
    state: dict = {"port": port, "process": None}

    def start() -> None:
        state["process"] = subprocess.Popen(
            [
                binary,
                "--port",
                str(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--dir",
                str(folder),
            ],
            stdout=subprocess.DEVNULL,
        )
        wait_for(lambda: _redis_answers(port), timeout=20)

    def halt() -> None:
        state["process"].terminate()
        state["process"].wait(timeout=20)

    state.update(start=start, stop=halt)
    start()
    try:
        yield state
    finally:
        if state["process"].poll() is None:
            halt()


def _redis_answers(port: int) -> bool:
    import redis

    try:
        return bool(redis.Redis(port=port, socket_connect_timeout=0.5).ping())
    except redis.exceptions.ConnectionError:
        return False
