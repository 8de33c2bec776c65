"""Liveness of run shards: heartbeats written by a shard's supervisor, and the sweep that
fails the shards whose worker died (see ``fallacy_platform.liveness``).

A shard that is ``running`` has a supervisor (a Celery task) writing ``heartbeat_at``
every ``JOB_HEARTBEAT_SECONDS``. When the worker is killed (or its machine lost), the
heartbeat stops; the next sweep, in any worker, finds it older than ``JOB_STALE_SECONDS``
and fails the shard (cancels it, if the run was being cancelled), and the run's state
follows its shards (failed: Resume continues from the stored outputs). Only the requests
that were in flight in the dead runner had no output: Resume sends those again.
"""

from __future__ import annotations

import os
import socket
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from evaluation.models import RunShard


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


def fail_stale_shards(*, stale_after: float) -> list[str]:
    """Fail (or cancel, when the run was being cancelled) every running shard whose
    heartbeat is older than ``stale_after`` seconds; returns what it did, one line each."""
    cutoff = timezone.now() - timedelta(seconds=stale_after)
    run_ids = sorted(
        set(stale_running(RunShard.objects.all(), before=cutoff).values_list("run_id", flat=True))
    )
    return [line for run_id in run_ids for line in _fail_stale_of_run(run_id, stale_after)]


@transaction.atomic
def _fail_stale_of_run(run_id: int, stale_after: float) -> list[str]:
    from evaluation.models import ModelRun
    from evaluation.services.runs import _settle

    run = ModelRun.objects.select_for_update().filter(pk=run_id).first()
    if run is None:
        return []
    cutoff = timezone.now() - timedelta(seconds=stale_after)
    stale = list(stale_running(run.run_shards.all(), before=cutoff).order_by("index"))
    for shard in stale:
        last = shard.heartbeat_at or shard.started_at
        since = f"since {last:%Y-%m-%d %H:%M:%S} UTC" if last else "ever"
        if run.cancel_requested:
            shard.status, shard.error = RunShard.Status.CANCELLED, ""
        else:
            shard.status = RunShard.Status.FAILED
            shard.error = (
                f"the worker running it died (no heartbeat from {shard.worker or 'it'} {since},"
                f" over {stale_after:.0f} s); Resume continues from the stored outputs"
            )
        shard.runner_pid, shard.finished_at = None, timezone.now()
        shard.save(update_fields=["status", "error", "runner_pid", "finished_at"])
    if stale:
        _settle(run)
    return [f"run {run_id} shard {shard.index}: {shard.status}" for shard in stale]
