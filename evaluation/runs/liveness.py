"""Liveness of run shards and of a run's scoring: heartbeats written by a shard's supervisor
(or the scoring task), and the sweep that fails the shards (or the scoring) whose worker
died (see ``fallacy_platform.liveness``).

A shard that is ``running`` has a supervisor (a Celery task) writing ``heartbeat_at``
every ``JOB_HEARTBEAT_SECONDS``. When the worker is killed (or its machine lost), the
heartbeat stops; the next sweep, in any worker, finds it older than ``JOB_STALE_SECONDS``
and queues the shard again (any worker takes it; its runner skips every request answered),
up to ``JOB_REQUEUE_LIMIT`` times; then it fails the shard (cancels it, if the run was being
cancelled), and the run's state follows its shards (failed: Resume continues from the
stored outputs). Only the requests that were in flight in the dead runner had no output:
they are the only ones sent again.

The scoring task of a ``scoring`` run claims it (``claim_scoring``) and writes the run's
``scoring_heartbeat_at`` while it scores; when it dies, the sweep fails the run and Resume
queues the scoring again. A scoring run no task has claimed yet (still queued) is left alone.
"""

from __future__ import annotations

import logging
import os
import socket
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone
from fallacy_platform import dispatch
from fallacy_platform.liveness import fail_each, stale_seconds

from evaluation import queued
from evaluation.models import ModelRun, RunShard
from evaluation.runs.states import settle

logger = logging.getLogger(__name__)

REQUEUE_PATIENCE_SECONDS = 60.0  # how long the sweep waits for a broker that refuses


def stale_running(shards: QuerySet[RunShard], *, before: datetime) -> QuerySet[RunShard]:
    """The running ones of ``shards`` with no heartbeat since ``before`` (rows from before
    heartbeats count from their start)."""
    return shards.filter(status=RunShard.Status.RUNNING).filter(
        Q(heartbeat_at__lt=before)
        | Q(heartbeat_at__isnull=True, started_at__lt=before)
        | Q(heartbeat_at__isnull=True, started_at__isnull=True)
    )


def worker_gone(worker: str) -> bool:
    """Whether the worker process named ``host:pid`` is known dead: it ran on this host
    and its pid is gone (a pool process that was killed; its task is redelivered at once)."""
    host, _, pid = worker.rpartition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False


def beat_shard(*, run_id: int, index: int) -> bool:
    """Write the shard's heartbeat; False when it is no longer running (failed by a sweep,
    or cancelled): its supervisor then stops the runner."""
    return bool(
        RunShard.objects.filter(run_id=run_id, index=index, status=RunShard.Status.RUNNING).update(
            heartbeat_at=timezone.now()
        )
    )


def beat_worker_shards(*, run_id: int, index: int, worker: str) -> bool:
    """Write the heartbeat of every shard of the run that ``worker``'s runner holds (its
    own, started for ``index``, and those it pulled: it keeps the last one running until it
    exits); False when it holds none: a sweep or a cancel took them, and its supervisor
    stops the runner."""
    if not worker:
        return beat_shard(run_id=run_id, index=index)
    held = RunShard.objects.filter(run_id=run_id, worker=worker, status=RunShard.Status.RUNNING)
    return bool(held.update(heartbeat_at=timezone.now()))


def fail_stale_shards(*, stale_after: float) -> list[str]:
    """Queue again every running shard whose heartbeat is older than ``stale_after`` seconds
    (its worker died: any worker takes it and skips what was answered), up to
    ``JOB_REQUEUE_LIMIT`` times a shard; past that, fail it (Resume continues), or cancel it
    when the run was being cancelled. Returns what it did, one line each."""
    cutoff = timezone.now() - timedelta(seconds=stale_after)
    run_ids = sorted(
        set(stale_running(RunShard.objects.all(), before=cutoff).values_list("run_id", flat=True))
    )
    return [line for run_id in run_ids for line in _fail_stale_of_run(run_id, stale_after)]


@transaction.atomic
def _fail_stale_of_run(run_id: int, stale_after: float) -> list[str]:
    run = ModelRun.objects.select_for_update().filter(pk=run_id).first()
    if run is None:
        return []
    cutoff = timezone.now() - timedelta(seconds=stale_after)
    stale = list(stale_running(run.run_shards.all(), before=cutoff).order_by("index"))
    requeued: list[int] = []
    for shard in stale:
        last = shard.heartbeat_at or shard.started_at
        since = f"since {last:%Y-%m-%d %H:%M:%S} UTC" if last else "ever"
        died = f"no heartbeat from {shard.worker or 'it'} {since}, over {stale_after:.0f} s"
        shard.error, shard.finished_at = "", timezone.now()
        if run.cancel_requested:
            shard.status = RunShard.Status.CANCELLED
        elif shard.requeues < settings.JOB_REQUEUE_LIMIT:
            shard.status, shard.finished_at = RunShard.Status.QUEUED, None
            shard.requeues += 1
            shard.heartbeat_at = shard.started_at = None
            requeued.append(shard.index)
        else:
            shard.status = RunShard.Status.FAILED
            shard.error = (
                f"the worker running it died ({died}) after it had been queued again"
                f" {shard.requeues} times; Resume continues from the stored outputs"
            )
        shard.runner_pid = None
        shard.save(
            update_fields=[
                "status", "error", "runner_pid", "finished_at", "requeues", "heartbeat_at",
                "started_at",
            ]
        )  # fmt: skip
    if stale:
        settle(run)
    if requeued:
        transaction.on_commit(lambda: _queue_requeued(run_id, requeued))
    return [f"run {run_id} shard {shard.index}: {shard.status}" for shard in stale]


def _queue_requeued(run_id: int, indexes: list[int]) -> None:
    """Queue the shards the sweep put back; when the broker stays away, they fail (Resume
    queues them)."""

    @transaction.atomic
    def fail(reason: str) -> None:
        run = ModelRun.objects.select_for_update().filter(pk=run_id).first()
        if run is None:
            return
        run.run_shards.filter(index__in=indexes, status=RunShard.Status.QUEUED).update(
            status=RunShard.Status.FAILED,
            error=f"its worker died and it could not be queued again ({reason});"
            " Resume continues from the stored outputs",
            finished_at=timezone.now(),
        )
        settle(run)

    messages = [queued.gpu_generate.s(run_id, index) for index in indexes]
    try:
        dispatch.send_patiently(*messages, undo=fail, patience=REQUEUE_PATIENCE_SECONDS)
    except dispatch.QueueUnavailable:
        logger.warning("run %s: shards %s could not be queued again", run_id, indexes)


# --- the scoring stage ----------------------------------------------------------------------


def _dead_scorer(*, before: datetime) -> Q:
    """A scoring run whose scorer started and has written no heartbeat since ``before`` (a
    run still waiting for its scoring task has none yet, and is left alone)."""
    return Q(status=ModelRun.Status.SCORING, scoring_heartbeat_at__lt=before)


def claim_scoring(*, run_id: int) -> bool:
    """Take the scoring of a run for this worker: True when the run is scoring and no live
    worker scores it (a redelivered task of a run failed by the sweep, finished, or scored
    elsewhere does nothing)."""
    now = timezone.now()
    free = Q(scoring_heartbeat_at__isnull=True) | _dead_scorer(
        before=now - timedelta(seconds=stale_seconds())
    )
    return bool(
        ModelRun.objects.filter(free, pk=run_id, status=ModelRun.Status.SCORING).update(
            scoring_heartbeat_at=now
        )
    )


def beat_scoring(*, run_id: int) -> None:
    ModelRun.objects.filter(pk=run_id, status=ModelRun.Status.SCORING).update(
        scoring_heartbeat_at=timezone.now()
    )


def fail_stale_scoring(*, stale_after: float) -> list[str]:
    """Fail every scoring run whose scorer's heartbeat is older than ``stale_after``
    seconds (its outputs are stored: Resume queues the scoring again); returns what it did,
    one line each. Each run is failed by a conditional update."""
    dead = _dead_scorer(before=timezone.now() - timedelta(seconds=stale_after))
    error = (
        f"scoring: the worker scoring it died (no heartbeat for over {stale_after:.0f} s);"
        " Resume queues the scoring"
    )
    return fail_each(
        ModelRun.objects.all(),
        dead,
        line="run {pk} scoring: failed",
        status=ModelRun.Status.FAILED,
        error=error,
        finished_at=timezone.now(),
        scoring_heartbeat_at=None,
    )
