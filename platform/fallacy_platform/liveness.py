"""Liveness of long jobs (run shards, a run's scoring, generation jobs, import jobs) through
heartbeats on their rows.

- ``Heartbeat(beat)``: while a job runs, a daemon thread calls ``beat()`` (which writes the
  job's ``heartbeat_at``) every ``JOB_HEARTBEAT_SECONDS``, on its own database connection;
  a failed write (the database away for a moment) is logged and tried again next time.
- ``sweep()``: fails the jobs whose heartbeat is older than ``JOB_STALE_SECONDS`` (their
  process died: a killed worker or web process, a lost machine), through the sweeps each app
  registers in its ``AppConfig.ready()`` (``register_sweep``; this module imports no app):
  run shards fail resumable (``evaluation.runs.liveness.fail_stale_shards``), so
  does a run's scoring (``fail_stale_scoring``: Resume queues it), generation jobs fail
  (``evaluation.synthesis.liveness``: launched again, the cache answers what
  they sent), import jobs fail (``annotations.importing.liveness.fail_stale_import_jobs``).
- ``start_sweeper()``: every Celery worker sweeps when it is ready and then every
  ``JOB_SWEEP_SECONDS`` (``fallacy_platform.celery``); sweeps are idempotent (each job is
  failed under a conditional update or a row lock), so workers may sweep at once.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from types import TracebackType

from django.conf import settings
from django.db import DatabaseError, connection
from django.db.models import Q, QuerySet

logger = logging.getLogger(__name__)

_sweeper: threading.Thread | None = None
_sweeper_lock = threading.Lock()


def heartbeat_seconds() -> float:
    return settings.JOB_HEARTBEAT_SECONDS


def stale_seconds() -> float:
    return settings.JOB_STALE_SECONDS


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


Sweep = Callable[..., list[str]]  # fail_stale(*, stale_after: float) -> what it did
_sweeps: list[Sweep] = []


def register_sweep(*fail_stale: Sweep) -> None:
    """Add sweeps (each ``fail_stale(stale_after=seconds)``) to ``sweep()``, once each."""
    _sweeps.extend(each for each in fail_stale if each not in _sweeps)


def sweep() -> None:
    """Fail every job whose heartbeat is stale (see the module docstring)."""
    for fail_stale in tuple(_sweeps):
        try:
            found = fail_stale(stale_after=stale_seconds())
        except DatabaseError as error:
            logger.warning("job sweep (%s) failed: %s", fail_stale.__name__, error)
            connection.close()
            continue
        if found:
            logger.warning("%s: %s", fail_stale.__name__, found)


def _sweep_forever(interval: float) -> None:
    while True:
        try:
            sweep()
        except Exception:  # noqa: BLE001 - the sweeper must outlive any one failure
            logger.exception("job sweep failed")
        finally:
            connection.close()
        time.sleep(interval)


def start_sweeper() -> threading.Thread:
    """Start this process's sweeper thread (once): a sweep now, then periodically."""
    global _sweeper
    with _sweeper_lock:
        if _sweeper is None or not _sweeper.is_alive():
            interval = settings.JOB_SWEEP_SECONDS
            _sweeper = threading.Thread(
                target=_sweep_forever, args=(interval,), name="job-sweeper", daemon=True
            )
            _sweeper.start()
        return _sweeper
