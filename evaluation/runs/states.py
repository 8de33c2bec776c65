"""A run's state derived from its shards' (used by the shard services and the sweep).

When the last shard is done the run goes on to scoring, whose task the worker queues
patiently (it waits out a broker restart); past that, the run fails and Resume queues the
scoring again.
"""

from __future__ import annotations

import contextlib

from django.db import transaction
from django.utils import timezone
from fallacy_platform import dispatch

from evaluation import queued
from evaluation.models import ModelRun, RunShard

Status = ModelRun.Status


def settle(run: ModelRun) -> ModelRun:
    """Derive the run's state from its shards (the run row is locked by the caller)."""
    statuses = dict(run.run_shards.values_list("index", "status"))
    active = {RunShard.Status.QUEUED, RunShard.Status.RUNNING}
    if any(status in active for status in statuses.values()) or run.status in (
        Status.SCORING,
        Status.DONE,
    ):
        return run
    failed = run.run_shards.filter(status=RunShard.Status.FAILED)
    if failed.exists():
        run.status = Status.FAILED
        run.error = "\n".join(
            f"shard {i}: {e}" if run.shards > 1 else e
            for i, e in failed.values_list("index", "error")
        )
        run.finished_at = timezone.now()
    elif all(status == RunShard.Status.DONE for status in statuses.values()):
        run.status = Status.SCORING
        transaction.on_commit(lambda: _queue_scoring_patiently(run))
    else:
        run.status, run.finished_at = Status.CANCELLED, timezone.now()
    run.save(update_fields=["status", "error", "finished_at"])
    return run


def _queue_scoring_patiently(run: ModelRun) -> None:
    def fail(reason: str) -> None:
        ModelRun.objects.filter(pk=run.pk, status=Status.SCORING).update(
            status=Status.FAILED,
            error=f"scoring could not be queued ({reason}); Resume queues it",
            finished_at=timezone.now(),
        )

    with contextlib.suppress(dispatch.QueueUnavailable):  # the run says so; Resume
        dispatch.send_patiently(queued.score_run.s(run.pk), undo=fail)
