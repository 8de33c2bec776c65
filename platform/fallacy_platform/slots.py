"""Server-wide counting semaphores that never wait.

``hold(name, limit=N, ...)`` takes one of the ``N`` slots called ``name`` at once, or raises
``SlotsBusy`` at once (the API answers it 429 with ``Retry-After``: ``fallacy_platform.errors``);
the slot is freed when the ``with`` block ends. The slots are shared by every thread and
process of the server:

- Redis, when Django's default cache is Redis (``CACHE_URL``): slot ``i`` is the cache key
  ``slots:<name>:<i>``, taken with ``SET NX`` and an expiry (``expiry_s``, so that a process
  that died holding it frees it then) and freed by deleting it while it still holds this
  holder's token. Every host that shares the Redis shares the bound.
- Otherwise files: slot ``i`` is an exclusive, non-blocking ``flock`` on
  ``<DATA_DIR>/slots/<name>.<i>``; the kernel frees it when the holder closes the file or its
  process dies. One host (the embedded default).
"""

from __future__ import annotations

import fcntl
import math
import os
import re
import secrets
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from django.conf import settings
from django.core.cache import BaseCache, caches
from django.core.cache.backends.redis import RedisCache

NAME = re.compile(r"[a-z0-9][a-z0-9-]*")


class SlotsBusy(Exception):
    """Every slot is taken; ``retry_after_s``: when to try again (the ``Retry-After``)."""

    def __init__(self, message: str, *, retry_after_s: int) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


def _take_cached(
    cache: BaseCache, name: str, limit: int, expiry_s: float
) -> Callable[[], None] | None:
    token = secrets.token_hex(16)
    for index in range(limit):
        key = f"slots:{name}:{index}"
        if cache.add(key, token, timeout=math.ceil(expiry_s)):

            def free(key: str = key) -> None:
                if cache.get(key) == token:
                    cache.delete(key)

            return free
    return None


def _take_file(name: str, limit: int) -> Callable[[], None] | None:
    folder = settings.DATA_DIR / "slots"
    folder.mkdir(parents=True, exist_ok=True)
    for index in range(limit):
        fd = os.open(folder / f"{name}.{index}", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        return lambda fd=fd: os.close(fd)  # closing the file releases its lock
    return None


@contextmanager
def hold(
    name: str, *, limit: int, expiry_s: float, busy: str, retry_after_s: int
) -> Iterator[None]:
    """One of ``limit`` slots ``name`` for the block; ``SlotsBusy(busy)`` when all are
    taken. ``expiry_s``: how long a Redis slot outlives a holder that never freed it (longer
    than any holder keeps it)."""
    if not NAME.fullmatch(name):
        raise ValueError(f"slot name {name!r}: lower-case letters, digits and '-' only")
    cache = caches["default"]
    if isinstance(cache, RedisCache):
        free = _take_cached(cache, name, limit, expiry_s)
    else:
        free = _take_file(name, limit)
    if free is None:
        raise SlotsBusy(busy, retry_after_s=retry_after_s)
    try:
        yield
    finally:
        free()
