"""Writes on model runs: launch, cancel, resume, rescore, and the state changes of jobs.

Concurrency contract:
- ``launch_runs`` validates everything first (every problem named by its field, nothing
  created), then creates the runs and their shards in one transaction and queues the
  shard tasks only once it commits (``transaction.on_commit``), so a worker never sees a
  run that is not there yet. When they cannot be queued (the broker is down) the runs are
  deleted again and ``QueueUnavailable`` is raised (the API answers 503): no run is left
  queued that nothing will run.
- State changes lock the run row (``select_for_update``): a shard's supervisor, the
  scoring task and a user's cancel or resume serialise on it, so two shards finishing
  at once queue the scoring exactly once, and a cancel is never lost.
- Liveness: a shard's supervisor writes the shard's ``heartbeat_at`` while it runs; a
  shard whose heartbeat is stale (its worker died) is failed, resumable, by the workers'
  sweep (``runs.liveness``). A redelivered task of a shard that is finished,
  failed, cancelled, or running with a fresh heartbeat does nothing.
- A run's key secret (an API key) is never stored: ``settings.api_key`` is refused at
  launch (so is ``settings.api_key_env``); a run names one of the operator's credentials
  (``settings.credential``), which the workers read from their settings.

States: created -> queued -> running (done/total) -> scoring -> done | failed | cancelled.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone
from fallacy_platform.celery import BROKER_ERRORS
from fallacy_platform.liveness import Heartbeat, heartbeat_seconds, stale_seconds

from annotations.models import GoldStandard, Project, Sentence
from evaluation.backends import GenerationParams, ModelSpec, SettingProblem, check_spec
from evaluation.benchmarks import TaskError, get_task, is_item_task
from evaluation.models import ModelRun, PromptVariant, RunScore, RunShard
from evaluation.runs.liveness import (
    beat_scoring,
    claim_scoring,
    stale_running,
    worker_gone,
)

MAX_SHARDS = 64
# A worker publishing a run's next job waits this long (about 5 minutes) for the broker.
PATIENT_PUBLISH = {"max_retries": 60, "interval_start": 1, "interval_step": 1, "interval_max": 5}
SECRET_SETTINGS = frozenset({"api_key"})
Status = ModelRun.Status


class LaunchError(ValueError):
    """The launch is refused; ``problems`` name each bad field. Nothing was created."""

    def __init__(self, problems: Sequence[SettingProblem]) -> None:
        self.problems = list(problems)
        super().__init__("; ".join(str(problem) for problem in self.problems))

    def as_dict(self) -> dict[str, list[str]]:
        fields: dict[str, list[str]] = {}
        for problem in self.problems:
            fields.setdefault(problem.field, []).append(problem.message)
        return fields


class RunStateError(ValueError):
    """The run is not in a state that allows this (e.g. cancelling a finished run)."""


class QueueUnavailable(RuntimeError):
    """The job could not be queued (the broker is unreachable); nothing was launched."""


def _model_label(spec: ModelSpec) -> str:
    name = Path(spec.model).name if spec.model else spec.backend
    return name or spec.backend


def _unique_name(project: Project, base: str, taken: set[str]) -> str:
    name, number = base, 1
    while name in taken or ModelRun.objects.filter(project=project, name=name).exists():
        number += 1
        name = f"{base} #{number}"
    taken.add(name)
    return name


def spec_problems(spec: ModelSpec, where: str) -> list[SettingProblem]:
    """What is wrong with one model of a launch, named under ``where`` (secrets included)."""
    problems: list[SettingProblem] = []
    if not spec.model and spec.backend not in ("random", "silent"):
        problems.append(SettingProblem(f"{where}.model", "a model name or path is required"))
    for key in sorted(SECRET_SETTINGS & set(spec.settings)):
        problems.append(
            SettingProblem(
                f"{where}.settings.{key}",
                "secrets are never stored with a run: choose one of the operator's "
                "credentials by name (settings.credential)",
            )
        )
    problems.extend(
        SettingProblem(f"{where}.{problem.field}", problem.message) for problem in check_spec(spec)
    )
    return problems


def model_problems(models: Sequence[ModelSpec]) -> list[SettingProblem]:
    """What is wrong with the models of a launch (``models[i].field``)."""
    if not models:
        return [SettingProblem("models", "choose at least one model")]
    return [
        problem
        for index, spec in enumerate(models)
        for problem in spec_problems(spec, f"models[{index}]")
    ]


def _check_launch(
    *,
    project: Project,
    gold_standard: GoldStandard,
    models: Sequence[ModelSpec],
    variants: Sequence[PromptVariant],
    level: int,
    limit: int | None,
    shards: int,
) -> list[SettingProblem]:
    problems: list[SettingProblem] = []
    if gold_standard.project_id != project.pk:
        problems.append(
            SettingProblem(
                "gold_standard",
                f"gold version {gold_standard.version} belongs to another project "
                f"({gold_standard.project.name!r}), not {project.name!r}",
            )
        )
    elif not gold_standard.documents.exists():
        problems.append(SettingProblem("gold_standard", "the gold version has no documents"))
    if level not in (0, 1, 2):
        problems.append(SettingProblem("level", f"must be 0, 1 or 2, not {level!r}"))
    if limit is not None and limit < 1:
        problems.append(SettingProblem("limit", "must be at least 1"))
    if not 1 <= shards <= MAX_SHARDS:
        problems.append(SettingProblem("shards", f"must be between 1 and {MAX_SHARDS}"))
    problems.extend(model_problems(models))
    if not variants:
        problems.append(SettingProblem("prompt_variants", "choose at least one prompt variant"))
    for index, variant in enumerate(variants):
        where = f"prompt_variants[{index}]"
        try:
            get_task(variant.task).check(variant.spec())
        except TaskError as error:
            problems.append(SettingProblem(where, f"{variant}: {error}"))
    return problems


def _request_count(gold_standard: GoldStandard, limit: int | None) -> int:
    documents = gold_standard.documents.order_by("position", "id").values("id")
    if limit:
        documents = documents[:limit]
    return Sentence.objects.filter(
        document_id__in=list(documents.values_list("id", flat=True))
    ).count()


def launch_runs(
    *,
    project: Project,
    gold_standard: GoldStandard,
    models: Sequence[ModelSpec],
    variants: Sequence[PromptVariant],
    level: int = 2,
    limit: int | None = None,
    shards: int = 1,
    params: dict[str, Any] | None = None,
    created_by: AbstractBaseUser | None = None,
    name: str | None = None,
    enqueue: bool = True,
) -> list[ModelRun]:
    """One run per (model, variant), queued on the ``gpu`` queue (``LaunchError`` first
    when anything is wrong). ``params`` override the variant's decoding settings."""
    problems = _check_launch(
        project=project,
        gold_standard=gold_standard,
        models=models,
        variants=variants,
        level=level,
        limit=limit,
        shards=shards,
    )
    try:
        GenerationParams.from_dict(params)
    except (TypeError, ValueError) as error:
        problems.append(SettingProblem("params", str(error)))
    if problems:
        raise LaunchError(problems)
    total = _request_count(gold_standard, limit)
    runs: list[ModelRun] = []
    with transaction.atomic():
        taken: set[str] = set()
        for spec in models:
            for variant in variants:
                decoding = GenerationParams.from_dict({**variant.decoding, **(params or {})})
                base = (
                    name or f"{_model_label(spec)} · {variant.name} v{variant.version} · L{level}"
                )
                run = ModelRun.objects.create(
                    project=project,
                    gold_standard=gold_standard,
                    name=_unique_name(project, base, taken),
                    backend=spec.backend,
                    model_name=spec.model,
                    task=variant.task,
                    prompt_variant=variant,
                    level=level,
                    limit=limit,
                    shards=shards,
                    config={"settings": dict(spec.settings), "params": decoding.to_dict()},
                    status=Status.QUEUED,
                    total=total,
                    created_by=created_by,
                )
                RunShard.objects.bulk_create(
                    RunShard(run=run, index=index) for index in range(shards)
                )
                runs.append(run)
        if enqueue:
            transaction.on_commit(lambda: _queue_or_withdraw(runs))
    return runs


def _queue_or_withdraw(runs: Sequence[ModelRun]) -> None:
    """Queue the new runs' shards; if the broker refuses, delete the runs again (a shard
    queued before that finds no run and does nothing) and raise ``QueueUnavailable``."""
    try:
        for run in runs:
            _enqueue_shards(run)
    except BROKER_ERRORS as error:
        ModelRun.objects.filter(pk__in=[run.pk for run in runs]).delete()
        raise QueueUnavailable(f"the job queue is unavailable: {error}") from error


def _queue_or_fail(run: ModelRun, queue: Any) -> None:
    """Queue a resumed or rescored run's job; if the broker refuses, the run is failed
    again (still resumable) and ``QueueUnavailable`` raised."""
    try:
        queue()
    except BROKER_ERRORS as error:
        ModelRun.objects.filter(pk=run.pk).update(
            status=Status.FAILED,
            error=f"could not be queued (the job queue is unavailable: {error}); resume it again",
            finished_at=timezone.now(),
        )
        raise QueueUnavailable(f"the job queue is unavailable: {error}") from error


def _enqueue_shards(run: ModelRun, indexes: Sequence[int] | None = None) -> None:
    from evaluation.tasks import gpu_generate

    for index in range(run.shards) if indexes is None else indexes:
        gpu_generate.apply_async(args=[run.pk, index])


def _enqueue_scoring(run: ModelRun, retry_policy: dict[str, Any] | None = None) -> None:
    from evaluation.tasks import score_run

    score_run.apply_async(args=[run.pk], retry_policy=retry_policy)


def _queue_scoring_patiently(run: ModelRun) -> None:
    """Queue the scoring of a run whose generation ended (in a worker): waits out a broker
    restart; past that, the run fails and Resume queues the scoring."""
    try:
        _enqueue_scoring(run, retry_policy=PATIENT_PUBLISH)
    except BROKER_ERRORS as error:
        ModelRun.objects.filter(pk=run.pk, status=Status.SCORING).update(
            status=Status.FAILED,
            error=f"scoring could not be queued ({error}); Resume queues it",
            finished_at=timezone.now(),
        )


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
            status=RunShard.Status.QUEUED, error="", finished_at=None, attempts=0
        )
        run.status = Status.QUEUED
        transaction.on_commit(lambda: _queue_or_fail(run, lambda: _enqueue_shards(run, pending)))
    else:
        run.status = Status.SCORING
        transaction.on_commit(lambda: _queue_or_fail(run, lambda: _enqueue_scoring(run)))
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
    transaction.on_commit(lambda: _queue_or_fail(run, lambda: _enqueue_scoring(run)))
    return run


# --- what the jobs write ----------------------------------------------------------------


@dataclass(frozen=True)
class ShardStart:
    run: ModelRun
    shard: RunShard
    go: bool  # False: cancelled, finished, failed, or running elsewhere


@transaction.atomic
def start_shard(*, run_id: int, index: int, worker: str = "") -> ShardStart | None:
    """Claim a shard for this worker's supervisor. ``None``: the run is gone (deleted, or
    withdrawn because its launch could not be queued). A shard starts when queued, or when
    running with a stale heartbeat (its worker died and the task was redelivered)."""
    run = ModelRun.objects.select_for_update().filter(pk=run_id).first()
    shard = RunShard.objects.select_for_update().filter(run_id=run_id, index=index).first()
    if run is None or shard is None:
        return None
    if shard.status == RunShard.Status.RUNNING:
        cutoff = timezone.now() - timedelta(seconds=stale_seconds())
        alive = not worker_gone(shard.worker)
        if (
            alive
            and not stale_running(RunShard.objects.filter(pk=shard.pk), before=cutoff).exists()
        ):
            return ShardStart(run, shard, go=False)  # its supervisor is alive
    elif shard.status != RunShard.Status.QUEUED:
        return ShardStart(run, shard, go=False)  # done, failed or cancelled: resume decides
    if run.cancel_requested or run.status in (Status.CANCELLED, Status.DONE, Status.FAILED):
        if shard.status in (RunShard.Status.QUEUED, RunShard.Status.RUNNING):
            shard.status, shard.finished_at = RunShard.Status.CANCELLED, timezone.now()
            shard.save(update_fields=["status", "finished_at"])
        _settle(run)
        return ShardStart(run, shard, go=False)
    now = timezone.now()
    shard.status, shard.worker, shard.started_at = RunShard.Status.RUNNING, worker, now
    shard.heartbeat_at = now
    shard.save(update_fields=["status", "worker", "started_at", "heartbeat_at"])
    if run.status != Status.RUNNING:
        run.status = Status.RUNNING
        run.started_at = run.started_at or now
        run.save(update_fields=["status", "started_at"])
    return ShardStart(run, shard, go=True)


@transaction.atomic
def record_runner(*, run_id: int, index: int, pid: int | None, attempts: int) -> None:
    RunShard.objects.filter(run_id=run_id, index=index).update(
        runner_pid=pid, attempts=attempts, heartbeat_at=timezone.now()
    )


@transaction.atomic
def finish_shard(*, run_id: int, index: int, status: str, error: str = "") -> ModelRun:
    """Record a shard's end; the last shard decides the run: all done -> scoring (queued
    once), any failed -> failed (with the errors), else cancelled."""
    run = _locked(run_id)
    RunShard.objects.filter(run=run, index=index).update(
        status=status, error=error, runner_pid=None, finished_at=timezone.now()
    )
    return _settle(run)


def _settle(run: ModelRun) -> ModelRun:
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


def score_and_store(*, run: ModelRun) -> list[RunScore]:
    """Score the run against its gold version under each profile that applies and store
    the reports (all levels up to the run's, per-label tables); one transaction."""
    from evaluation.runs.selectors import score_run as score_stored_run

    if is_item_task(run.task):
        from evaluation.items.runs import score_item_run

        return score_item_run(run)
    gold = run.gold_standard
    if gold is None:
        raise RunStateError(f"run {run.name!r} has no gold version to be scored against")
    parser = run.prompt_variant.parser if run.prompt_variant_id else "keyword"
    levels = list(range(run.level + 1))
    profiles = ["paper", "mafalda-2024"] if run.level == 2 else ["paper"]
    reports = {
        profile: score_stored_run(
            gold_standard=gold, run=run, profile=profile, levels=levels, parser=parser
        ).to_dict()
        for profile in profiles
    }
    with transaction.atomic():
        stored = [
            RunScore.objects.update_or_create(
                run=run,
                gold_standard=gold,
                profile=profile,
                defaults={"parser": parser, "report": report},
            )[0]
            for profile, report in reports.items()
        ]
    return stored


def complete_scoring(*, run_id: int) -> ModelRun:
    """The scoring task: claim the scoring run, score it while writing its heartbeat
    (``runs.liveness``), then mark it done (or failed with the error). A run that is
    not scoring, or that a live worker scores, is left as it is."""
    if not claim_scoring(run_id=run_id):
        return ModelRun.objects.get(pk=run_id)
    run = ModelRun.objects.select_related("gold_standard__project__taxonomy", "prompt_variant").get(
        pk=run_id
    )
    try:
        with Heartbeat(lambda: beat_scoring(run_id=run_id)):
            score_and_store(run=run)
    except Exception as error:  # noqa: BLE001 - the run shows what went wrong
        _end_scoring(run_id, Status.FAILED, f"scoring: {error}")
        raise
    return _end_scoring(run_id, Status.DONE, "")


@transaction.atomic
def _end_scoring(run_id: int, status: str, error: str) -> ModelRun:
    run = _locked(run_id)
    if run.status == Status.SCORING:
        run.status, run.finished_at, run.scoring_heartbeat_at = status, timezone.now(), None
        run.error = error or run.error
        run.save(update_fields=["status", "error", "finished_at", "scoring_heartbeat_at"])
    return run
