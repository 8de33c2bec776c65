"""Server-wide slots (fallacy_platform/slots.py): a slot held by another process (flock files
in the embedded default, Redis keys when the cache is Redis) is busy here; a crashed
holder's slot frees itself (at once for a file lock, at the expiry for Redis)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.test import override_settings
from fallacy_platform.slots import SlotsBusy, hold

from tests.support.processes import PYTHON, ROOT

REDIS = os.environ.get("SLOTS_TEST_REDIS", "redis://127.0.0.1:6379/4")
HOLDER = """
import django, sys, time
django.setup()
from fallacy_platform.slots import hold
with hold(sys.argv[1], limit=1, expiry_s=float(sys.argv[2]), busy="busy", retry_after_s=1):
    print("held", flush=True)
    time.sleep(600)
"""


def take(name: str, limit: int = 1, expiry_s: float = 60):
    return hold(name, limit=limit, expiry_s=expiry_s, busy="all taken", retry_after_s=3)


@contextmanager
def holder(name: str, expiry_s: float = 60, **env: str) -> Iterator[subprocess.Popen]:
    """Another process holding the slot ``name`` (killed with SIGKILL by the caller)."""
    environment = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "fallacy_platform.settings",
        "PYTHONPATH": f"{ROOT / 'platform'}:{ROOT}",
        **env,
    }
    process = subprocess.Popen(
        [PYTHON, "-c", HOLDER, name, str(expiry_s)],
        env=environment,
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert process.stdout.readline().strip() == "held"
        yield process
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def test_a_thread_of_the_same_process_cannot_take_a_taken_slot() -> None:
    with take("same-process", limit=2), take("same-process", limit=2):
        with pytest.raises(SlotsBusy) as busy:
            with take("same-process", limit=2):
                pass
        assert busy.value.retry_after_s == 3 and str(busy.value) == "all taken"
    with take("same-process"):  # freed when the blocks ended
        pass


def test_a_file_slot_held_by_another_process_is_busy_until_it_dies() -> None:
    with holder("other-process") as other:
        with pytest.raises(SlotsBusy):
            with take("other-process"):
                pass
        with take("other-process", limit=2):  # the second slot is free
            pass
        os.killpg(other.pid, signal.SIGKILL)
        other.wait()
        with take("other-process"):
            pass


def redis_reachable() -> bool:
    host, port = REDIS.split("//")[1].split("/")[0].split(":")
    try:
        socket.create_connection((host, int(port)), timeout=1).close()
    except OSError:
        return False
    return True


@pytest.mark.skipif(not redis_reachable(), reason=f"no Redis at {REDIS}")
def test_a_redis_slot_is_shared_across_processes_and_expires_after_a_crash() -> None:
    redis = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache"}}
    redis["default"]["LOCATION"] = REDIS
    name = f"redis-{os.getpid()}-{time.monotonic_ns()}"
    with override_settings(CACHES=redis):
        with holder(name, expiry_s=2, CACHE_URL=REDIS) as other:
            crashed = time.monotonic()
            os.killpg(other.pid, signal.SIGKILL)
            other.wait()
            with pytest.raises(SlotsBusy):  # nobody freed it
                with take(name):
                    pass
            with take(name, limit=2):
                pass
        time.sleep(max(0.0, crashed + 2.5 - time.monotonic()))
        with take(name):  # expired
            with pytest.raises(SlotsBusy):
                with take(name):
                    pass
        with take(name):  # freed by its holder
            pass
