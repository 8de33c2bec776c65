"""Writes on model runs after their launch (``runs.launch``): cancel, resume, rescore,
and the state changes of jobs.

Concurrency contract:
- State changes lock the run row (``select_for_update``): a shard's supervisor, the
  scoring task and a user's cancel or resume serialise on it, so two shards finishing
  at once queue the scoring exactly once, and a cancel is never lost.
- A resumed or rescored run's jobs are queued once the change commits; when the broker
  refuses them the run fails again (still resumable) and ``QueueUnavailable`` is raised.
- Liveness: a shard's supervisor writes the shard's ``heartbeat_at`` while it runs; a
  shard whose heartbeat is stale (its worker died) is queued again by the workers' sweep,
  a bounded number of times, then failed, resumable (``runs.liveness``). A redelivered task
  of a shard that is finished, failed, cancelled, or running with a fresh heartbeat does
  nothing.

States: created -> queued -> running (done/total) -> scoring -> done | failed | cancelled.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone
from fallacy_platform import dispatch
from fallacy_platform.liveness import Heartbeat, heartbeat_seconds, stale_seconds

from evaluation import queued
from evaluation.benchmarks import is_item_task
from evaluation.models import ModelRun, RunScore, RunShard
from evaluation.runs.launch import shard_message
from evaluation.runs.liveness import (
    beat_scoring,
    claim_scoring,
    stale_running,
    worker_gone,
)
from evaluation.runs.states import settle

Status = ModelRun.Status
logger = logging.getLogger(__name__)


class RunStateError(ValueError):
    """The run is not in a state that allows this (e.g. cancelling a finished run)."""


def _queue_again(run: ModelRun, *messages: dispatch.Message) -> None:
    """Queue a resumed or rescored run's jobs once this commits; when the broker refuses,
    the run fails again (still resumable) and ``QueueUnavailable`` is raised."""

    def fail(reason: str) -> None:
        ModelRun.objects.filter(pk=run.pk).update(
            status=Status.FAILED,
            error=f"could not be queued ({reason}); resume it again",
            finished_at=timezone.now(),
        )

    dispatch.send_on_commit(*messages, undo=fail)


def _locked(run_id: int) -> ModelRun:
    return ModelRun.objects.select_for_update().get(pk=run_id)


@transaction.atomic
def cancel_run(*, run: ModelRun) -> ModelRun:
    """Ask the run to stop: queued shards never start, running runners are killed by their
    supervisor (within a second); what was produced is kept, and ``resume_run`` goes on."""
    run = _locked(run.pk)
    if run.status not in (Status.CREATED, Status.QUEUED, Status.RUNNING):
        raise RunStateError(
            f"run {run.name!r} is {run.status}; only a queued or running run can be cancelled"
        )
    run.cancel_requested = True
    fields = ["cancel_requested"]
    # a shard whose supervisor stopped writing heartbeats is gone: cancelled now
    gone = timezone.now() - timedelta(seconds=3 * heartbeat_seconds())
    stale_running(run.run_shards.all(), before=gone).update(
        status=RunShard.Status.CANCELLED, runner_pid=None, finished_at=timezone.now()
    )
    if not run.run_shards.filter(status=RunShard.Status.RUNNING).exists():
        run.run_shards.filter(status=RunShard.Status.QUEUED).update(
            status=RunShard.Status.CANCELLED, finished_at=timezone.now()
        )
        run.status, run.finished_at = Status.CANCELLED, timezone.now()
        fields += ["status", "finished_at"]
    run.save(update_fields=fields)
    return run


@transaction.atomic
def resume_run(*, run: ModelRun) -> ModelRun:
    """Queue a failed or cancelled run again: its unfinished shards restart and skip every
    request already answered (the cache), or, if generation had finished, scoring."""
    run = _locked(run.pk)
    if run.imported:
        raise RunStateError(f"run {run.name!r} was imported; there is nothing to resume")
    if run.status not in (Status.FAILED, Status.CANCELLED):
        raise RunStateError(
            f"run {run.name!r} is {run.status}; only a failed or cancelled run resumes"
        )
    pending = list(
        run.run_shards.exclude(status=RunShard.Status.DONE).values_list("index", flat=True)
    )
    run.cancel_requested, run.error, run.finished_at = False, "", None
    if pending:
        run.run_shards.filter(index__in=pending).update(
            status=RunShard.Status.QUEUED, error="", finished_at=None, attempts=0, requeues=0
        )
        run.status = Status.QUEUED
        _queue_again(run, *(shard_message(run, index) for index in pending))
    else:
        run.status = Status.SCORING
        _queue_again(run, queued.score_run.s(run.pk))
    run.save(update_fields=["cancel_requested", "error", "finished_at", "status"])
    return run


@transaction.atomic
def rescore_run(*, run: ModelRun) -> ModelRun:
    """Score the stored outputs again (no model needed), e.g. after a parser change."""
    run = _locked(run.pk)
    scorable = run.gold_standard_id is not None or is_item_task(run.task)
    if run.status not in (Status.DONE, Status.FAILED) or not scorable:
        raise RunStateError(
            f"run {run.name!r} is {run.status}; only a finished run with a gold version is rescored"
        )
    if run.run_shards.exclude(status=RunShard.Status.DONE).exists():
        raise RunStateError(f"run {run.name!r} has unfinished shards; resume it instead")
    run.status, run.error = Status.SCORING, ""
    run.save(update_fields=["status", "error"])
    _queue_again(run, queued.score_run.s(run.pk))
    return run


# --- what the jobs write ----------------------------------------------------------------


@dataclass(frozen=True)
class ShardStart:
    run: ModelRun
    shard: RunShard
    go: bool  # False: cancelled, finished, failed, or running elsewhere


@transaction.atomic
def start_shard(*, run_id: int, index: int, worker: str = "", node: str = "") -> ShardStart | None:
    """Claim a shard for this worker's supervisor. ``None``: the run is gone (deleted, or
    withdrawn because its launch could not be queued). A shard starts when queued, or when
    running with a stale heartbeat (its worker died and the task was redelivered). A queued
    shard stays queued when a runner of the same Celery worker (``node``) is already
    running the run: that runner, its model loaded, takes it next."""
    run = ModelRun.objects.select_for_update().filter(pk=run_id).first()
    shard = RunShard.objects.select_for_update().filter(run_id=run_id, index=index).first()
    if run is None or shard is None:
        return None
    cutoff = timezone.now() - timedelta(seconds=stale_seconds())
    if shard.status == RunShard.Status.RUNNING:
        alive = not worker_gone(shard.worker)
        if (
            alive
            and not stale_running(RunShard.objects.filter(pk=shard.pk), before=cutoff).exists()
        ):
            return ShardStart(run, shard, go=False)  # its supervisor is alive
    elif shard.status != RunShard.Status.QUEUED:
        return ShardStart(run, shard, go=False)  # done, failed or cancelled: resume decides
    elif node and _node_runs(run, node, cutoff):
        return ShardStart(run, shard, go=False)  # this worker's runner takes it next
    if run.cancel_requested or run.status in (Status.CANCELLED, Status.DONE, Status.FAILED):
        if shard.status in (RunShard.Status.QUEUED, RunShard.Status.RUNNING):
            shard.status, shard.finished_at = RunShard.Status.CANCELLED, timezone.now()
            shard.save(update_fields=["status", "finished_at"])
        settle(run)
        return ShardStart(run, shard, go=False)
    _mark_running(shard, worker=worker, node=node)
    if run.status != Status.RUNNING:
        run.status = Status.RUNNING
        run.started_at = run.started_at or shard.started_at
        run.save(update_fields=["status", "started_at"])
    return ShardStart(run, shard, go=True)


def _node_runs(run: ModelRun, node: str, cutoff: datetime) -> bool:
    """Whether a runner of the Celery worker ``node`` is running the run (heartbeat fresh)."""
    running = run.run_shards.filter(status=RunShard.Status.RUNNING, node=node)
    return running.exists() and not stale_running(running, before=cutoff).exists()


def _mark_running(shard: RunShard, *, worker: str, node: str) -> None:
    now = timezone.now()
    shard.status, shard.worker, shard.node = RunShard.Status.RUNNING, worker, node
    shard.started_at = shard.heartbeat_at = now
    shard.save(update_fields=["status", "worker", "node", "started_at", "heartbeat_at"])


@transaction.atomic
def record_runner(*, run_id: int, index: int, pid: int | None, attempts: int) -> None:
    RunShard.objects.filter(run_id=run_id, index=index).update(
        runner_pid=pid, attempts=attempts, heartbeat_at=timezone.now()
    )


@transaction.atomic
def claim_next_shard(*, run_id: int, worker: str, node: str | None = None) -> int | None:
    """Take the run's lowest queued shard for the runner of ``worker`` that has its model
    loaded (its queued message then finds it running and does nothing), on the Celery
    worker ``node`` (by default that of the shard it holds); ``None`` when none is queued,
    or the run is being cancelled or has ended."""
    run = _locked(run_id)
    if run.cancel_requested or run.status != Status.RUNNING:
        return None
    shard = run.run_shards.filter(status=RunShard.Status.QUEUED).order_by("index").first()
    if shard is None:
        return None
    if node is None:
        held = run.run_shards.filter(status=RunShard.Status.RUNNING, worker=worker)
        node = held.values_list("node", flat=True).first() or ""
    _mark_running(shard, worker=worker, node=node)
    return shard.index


def running_shards_of(*, run_id: int, worker: str) -> list[int]:
    """The run's running shards that ``worker`` claimed, in order."""
    shards = RunShard.objects.filter(run_id=run_id, worker=worker, status=RunShard.Status.RUNNING)
    return list(shards.order_by("index").values_list("index", flat=True))


@transaction.atomic
def finish_worker_shards(
    *, run_id: int, index: int, worker: str, status: str, error: str = ""
) -> ModelRun:
    """Record the end of the runner of ``worker`` (started for shard ``index``): every
    shard of the run it still holds running gets ``status`` (a runner pulls further queued
    shards once its own is done, marking each done as it goes). Without a worker, the
    shard ``index`` alone. A failed runner cancels the run's shards still queued, so the
    run fails once the running ones end instead of starting a runner for each (Resume
    queues them again)."""
    run = _locked(run_id)
    held = run.run_shards.filter(status=RunShard.Status.RUNNING, worker=worker)
    if not worker or not held.exists():
        held = run.run_shards.filter(index=index)
    now = timezone.now()
    held.update(status=status, error=error, runner_pid=None, finished_at=now)
    if status == RunShard.Status.FAILED:
        run.run_shards.filter(status=RunShard.Status.QUEUED).update(
            status=RunShard.Status.CANCELLED, finished_at=now
        )
    return settle(run)


@transaction.atomic
def finish_shard(*, run_id: int, index: int, status: str, error: str = "") -> ModelRun:
    """Record a shard's end; the last shard decides the run: all done -> scoring (queued
    once), any failed -> failed (with the errors), else cancelled."""
    run = _locked(run_id)
    RunShard.objects.filter(run=run, index=index).update(
        status=status, error=error, runner_pid=None, finished_at=timezone.now()
    )
    return settle(run)


def score_and_store(*, run: ModelRun) -> list[RunScore]:
    """Score the run under each profile that applies and store the reports, in one
    transaction, through the scorer of its task kind (``runs.scorers``: span runs against
    their gold version, item runs against their items' answer key)."""
    from evaluation.runs.scorers import RunNotScorable, run_scorer

    try:
        return run_scorer(run).store(run)
    except RunNotScorable as error:
        raise RunStateError(str(error)) from error


def complete_scoring(*, run_id: int) -> ModelRun:
    """The scoring task: claim the scoring run, score it while writing its heartbeat
    (``runs.liveness``), then mark it done (or failed with the error); a run done queues
    the storing of its result boards (``warm_boards``). A run that is not scoring, or
    that a live worker scores, is left as it is."""
    if not claim_scoring(run_id=run_id):
        return ModelRun.objects.get(pk=run_id)
    run = ModelRun.objects.select_related("gold_standard__project__taxonomy", "prompt_variant").get(
        pk=run_id
    )
    try:
        with Heartbeat(lambda: beat_scoring(run_id=run_id)):
            score_and_store(run=run)
    except RunStateError as error:  # the run's own state, named for its users
        _end_scoring(run_id, Status.FAILED, f"scoring: {error}")
        raise
    except Exception as error:  # the run shows its class; the worker's log the details
        logger.exception("run %s: scoring failed", run_id)
        _end_scoring(
            run_id,
            Status.FAILED,
            f"scoring: an internal error ({type(error).__name__}; the operator's log has the"
            " details); Rescore tries again",
        )
        raise
    run = _end_scoring(run_id, Status.DONE, "")
    if run.status == Status.DONE:
        warm_boards(run_id)
    return run


def warm_boards(run_id: int) -> None:
    """Queue the storing of the result boards that show the run (best-effort: a refusing
    queue is logged; ``results.warm_run_boards`` never raises)."""
    try:
        dispatch.send(queued.warm_results.s(run_id))
    except dispatch.QueueUnavailable:
        logger.warning("run %s: the result boards could not be warmed", run_id)


@transaction.atomic
def _end_scoring(run_id: int, status: str, error: str) -> ModelRun:
    run = _locked(run_id)
    if run.status == Status.SCORING:
        run.status, run.finished_at, run.scoring_heartbeat_at = status, timezone.now(), None
        run.error = error or run.error
        run.save(update_fields=["status", "error", "finished_at", "scoring_heartbeat_at"])
    return run
