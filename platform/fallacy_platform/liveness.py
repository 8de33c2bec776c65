"""Liveness of long jobs (run shards, a run's scoring, generation jobs, import jobs) through
heartbeats on their rows.

- ``Heartbeat(beat)``: while a job runs, a daemon thread calls ``beat()`` (which writes the
  job's ``heartbeat_at``) every ``JOB_HEARTBEAT_SECONDS``, on its own database connection;
  a failed write (the database away for a moment) is logged and tried again next time.
- ``fail_each``: how a sweep fails the stale rows of one kind of job, one conditional update
  a row. The sweep itself, across the apps, is ``fallacy_platform.sweeper``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from types import TracebackType

from django.conf import settings
from django.db import DatabaseError, connection
from django.db.models import Q, QuerySet

logger = logging.getLogger(__name__)


def heartbeat_seconds() -> float:
    return float(getattr(settings, "JOB_HEARTBEAT_SECONDS", 10))


def stale_seconds() -> float:
    return float(getattr(settings, "JOB_STALE_SECONDS", 90))


class Heartbeat:
    """``with Heartbeat(beat):`` calls ``beat()`` every ``JOB_HEARTBEAT_SECONDS`` in a
    daemon thread until the block ends."""

    def __init__(self, beat: Callable[[], object], interval: float | None = None) -> None:
        self.beat = beat
        self.interval = heartbeat_seconds() if interval is None else interval
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, name="job-heartbeat", daemon=True)

    def _run(self) -> None:
        try:
            while not self.stopped.wait(self.interval):
                try:
                    self.beat()
                except DatabaseError as error:
                    logger.warning("job heartbeat not written: %s", error)
                    connection.close()
        finally:
            connection.close()

    def __enter__(self) -> Heartbeat:
        self.thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stopped.set()
        self.thread.join(timeout=max(5.0, self.interval))


def fail_each(rows: QuerySet, condition: Q, *, line: str, **fields: object) -> list[str]:
    """Give each row of ``rows`` matching ``condition`` the ``fields``, one conditional update
    a row (a row that changed meanwhile, e.g. finished, keeps its own state); returns
    ``line`` (formatted with the row's ``pk``) for each row changed."""
    changed: list[str] = []
    for pk in rows.filter(condition).values_list("pk", flat=True):
        if rows.filter(condition, pk=pk).update(**fields):
            changed.append(line.format(pk=pk))
    return changed
