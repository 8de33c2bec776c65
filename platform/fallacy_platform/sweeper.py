"""The workers' sweep for jobs whose process died (see ``fallacy_platform.liveness``).

- ``sweep()``: fails the jobs whose heartbeat is older than ``JOB_STALE_SECONDS`` (their
  process died: a killed worker or web process, a lost machine), through their services:
  run shards fail resumable (``evaluation.runs.liveness.fail_stale_shards``), so
  does a run's scoring (``fail_stale_scoring``: Resume queues it), generation jobs fail
  (``evaluation.synthesis.liveness``: launched again, the cache answers what
  they sent), import jobs fail (``annotations.importing.liveness.fail_stale_import_jobs``).
- ``start_sweeper()``: every Celery worker sweeps when it is ready and then every
  ``JOB_SWEEP_SECONDS``; sweeps are idempotent (each job is failed under a conditional
  update or a row lock), so workers may sweep at once. The Celery app imports this module
  in its workers by name (``imports``), so it does not import the apps' services itself.
"""

from __future__ import annotations

import logging
import threading
import time

from celery.signals import worker_ready
from django.conf import settings
from django.db import DatabaseError, connection

from annotations.importing.liveness import fail_stale_import_jobs
from evaluation.runs.liveness import fail_stale_scoring, fail_stale_shards
from evaluation.synthesis.liveness import fail_stale_generation_jobs
from fallacy_platform.liveness import stale_seconds

logger = logging.getLogger(__name__)

_sweeper: threading.Thread | None = None
_sweeper_lock = threading.Lock()


def sweep() -> None:
    """Fail every job whose heartbeat is stale (see the module docstring)."""
    for fail_stale in (
        fail_stale_shards,
        fail_stale_scoring,
        fail_stale_generation_jobs,
        fail_stale_import_jobs,
    ):
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
            interval = float(getattr(settings, "JOB_SWEEP_SECONDS", 30))
            _sweeper = threading.Thread(
                target=_sweep_forever, args=(interval,), name="job-sweeper", daemon=True
            )
            _sweeper.start()
        return _sweeper


@worker_ready.connect
def start_job_sweeper(sender: object = None, **kwargs: object) -> None:
    start_sweeper()
