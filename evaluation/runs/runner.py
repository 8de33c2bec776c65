"""The runner: the process that runs a run's shards through a model.

It is started by a shard's Celery task (``evaluation.runs.supervisor``) as a separate
process (``manage.py run_generation RUN --shard I --worker HOST:PID``), because CUDA and
vLLM do not survive Celery's forked, daemonic pool children; only this process imports
torch or vLLM. Once its shard is done it takes the run's next queued shard, and so on,
with the model loaded once: a run cut into many shards is shared by every worker that
takes one of its tasks (a worker added mid-run joins at its next task), one model load
per worker.

Resumable and idempotent (see ``runs.outputs``): it builds every request of the
run once, keeps those of its shard (shard k of K holds the k-th of K consecutive ranges of
requests, so a text's sentences stay together), skips the ones the run
already has an output for, serves the ones whose key is in the cache without sending
them, and sends only the rest, each distinct key once. It loads the model only when
something is left to send. Outputs are written batch by batch as they complete.
"""

from __future__ import annotations

import os
import platform
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.utils import timezone

from evaluation.backends import (
    GenerationParams,
    GenerationRequest,
    GenerationResult,
    ModelSpec,
    failures,
    get_backend,
)
from evaluation.backends.base import Backend, BackendError, package_versions, request_key
from evaluation.backends.registry import hide_model_paths, may_choose_any_model, resolve
from evaluation.benchmarks import get_task, is_item_task
from evaluation.models import GenerationCache, ModelRun, RunOutput, RunShard
from evaluation.runs.outputs import (
    PendingUnit,
    outputs_for,
    record_cached,
    record_environment,
    record_generated,
)
from evaluation.runs.progress import GENERATING, LOADING
from evaluation.runs.prompts import item_answer_parser, parse_answer, run_parser, run_prompts
from evaluation.runs.services import claim_next_shard, finish_shard, running_shards_of
from evaluation.runs.stored import taxonomy_mapping

KEY_CHUNK = 500


@dataclass
class ShardSummary:
    requests: int = 0
    already_done: int = 0
    from_cache: int = 0
    generated: int = 0
    seconds: float = 0.0


def clean(result: GenerationResult) -> GenerationResult:
    """An output the database can store: PostgreSQL text refuses NUL characters, which
    models (random ones especially) can emit; they become U+FFFD."""
    if "\x00" not in result.output:
        return result
    return GenerationResult(result.key, result.output.replace("\x00", "\ufffd"), result.seconds)


def git_commit() -> str:
    if settings.GIT_COMMIT:
        return settings.GIT_COMMIT
    try:
        return subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=settings.BASE_DIR,
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def platform_environment() -> dict[str, Any]:
    return {
        "hostname": socket.gethostname(),
        "pid": os.getpid(),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "git_commit": git_commit(),
        "packages": package_versions("fallacy-platform", "django", "celery", "numpy"),
    }


def _cached_outputs(keys: list[str]) -> dict[str, tuple[str, float]]:
    found: dict[str, tuple[str, float]] = {}
    for start in range(0, len(keys), KEY_CHUNK):
        rows = GenerationCache.objects.filter(key__in=keys[start : start + KEY_CHUNK])
        found.update((key, (output, 0.0)) for key, output in rows.values_list("key", "output"))
    return found


def _output_readers(run: ModelRun) -> tuple[Callable[[str], str], Callable[[str], Any]]:
    """How the run reads a raw output: the answer in it, then that answer's prediction."""
    task = get_task(run.prompt_variant.task)
    variant = run.prompt_variant.spec()

    def answer_of(raw: str) -> str:
        return task.answer(variant, raw)

    if is_item_task(run.task):
        return answer_of, item_answer_parser(run)
    parser = run_parser(run)
    mapping = taxonomy_mapping(run.project.taxonomy)

    def labels_of(answer: str) -> Any:
        return parse_answer(parser, answer, run=run, mapping=mapping)

    return answer_of, labels_of


def shard_range(total: int, shard: int, shards: int) -> range:
    """The requests of shard ``shard`` of ``shards``: the shard-th of that many consecutive
    ranges as equal as can be (a text's sentences stay together in most shards)."""
    return range(shard * total // shards, (shard + 1) * total // shards)


def _shard_units(context: RunContext, shard: int) -> list[PendingUnit]:
    """The shard's requests with their cache keys."""
    run, units = context.run, context.units()
    return [
        PendingUnit(
            unit,
            request_key(
                backend=run.backend,
                model=run.model_name,
                fingerprint=context.fingerprint,
                prompt=unit.prompt,
                guided_labels=unit.labels if unit.guided else (),
                params=context.params,
            ),
        )
        for unit in (units[i] for i in shard_range(len(units), shard, run.shards))
    ]


def _loading_record(run: ModelRun, shard: int) -> dict[str, Any]:
    """When the model load begins, and the runner's start-up before it (since its shard
    started: the process, Django, the requests, the cache)."""
    now = timezone.now()
    started = (
        RunShard.objects.filter(run=run, index=shard).values_list("started_at", flat=True).first()
    )
    start_seconds = max((now - started).total_seconds(), 0.0) if started else 0.0
    return {"loading_since": now.isoformat(), "start_seconds": round(start_seconds, 3)}


class LoadedModel:
    """The run's backend, built and loaded on first use and kept for every shard this
    runner takes (one load per runner); ``close()`` at the end."""

    def __init__(self, run: ModelRun, loaded: ModelSpec, params: GenerationParams) -> None:
        self.run, self.loaded, self.params = run, loaded, params
        self.backend: Backend | None = None

    def get(self, shard: int, environment: dict[str, Any]) -> Backend:
        """The loaded backend; the first call loads it, the environment saying ``phase:
        loading`` (since when) during the load (and the runner's start-up since its shard
        started), then the backend's facts, ``phase: generating`` and the load's seconds."""
        if self.backend is not None:
            return self.backend
        run = self.run
        try:
            backend = get_backend(run.backend)(self.loaded, self.params)
        except BackendError as error:  # the settings' problems, as the launch names them
            raise failures.ModelFailure(f"the run's settings were refused: {error}") from error
        loading = _loading_record(run, shard)
        record_environment(
            run=run,
            shard=shard,
            environment={**environment, "model_loaded": False, "phase": LOADING, **loading},
        )
        began = time.monotonic()
        self.backend = backend
        with failures.failing_as(failures.LOAD, f"loading {run.model_name}"):
            backend.load()
        facts = hide_model_paths(
            backend.environment(), name=run.model_name, source=self.loaded.model
        )
        record_environment(
            run=run,
            shard=shard,
            environment={
                **environment,
                **facts,
                "model_loaded": True,
                "phase": GENERATING,
                **loading,
                "load_seconds": round(time.monotonic() - began, 3),
            },
        )
        return backend

    def close(self) -> None:
        if self.backend is not None:
            self.backend.close()


def _generate(
    run: ModelRun,
    shard: int,
    backend: Backend,
    remaining: list[PendingUnit],
    *,
    summary: ShardSummary,
    readers: tuple[Callable[[str], str], Callable[[str], Any]],
    log: Callable[[str], None],
) -> None:
    """Send each distinct key of ``remaining`` once and record the outputs batch by batch."""
    answer_of, labels_of = readers
    requests: dict[str, GenerationRequest] = {}
    by_key: dict[str, list[PendingUnit]] = {}
    for p in remaining:
        by_key.setdefault(p.key, []).append(p)
        requests.setdefault(
            p.key, GenerationRequest(p.key, p.unit.prompt, p.unit.labels, p.unit.guided)
        )
    sent = 0
    for results in _model_batches(backend, list(requests.values())):
        results = [clean(result) for result in results]
        outputs = {r.key: (r.output, r.seconds) for r in results}
        batch_units = [p for r in results for p in by_key.get(r.key, ())]
        rows = outputs_for(
            run,
            batch_units,
            outputs,
            from_cache=False,
            answer_of=answer_of,
            labels_of=labels_of,
        )
        record_generated(
            run=run, results=results, rows=rows, backend=run.backend, model_name=run.model_name
        )
        sent += len(results)
        summary.generated += len(results)
        log(f"run {run.pk} shard {shard}: {sent}/{len(requests)} generated")


def _model_batches(
    backend: Backend, requests: list[GenerationRequest]
) -> Iterator[list[GenerationResult]]:
    """``backend.generate(requests)``, a failure of the model's (not a ``ModelFailure``
    already) becoming ``failures.GENERATE`` for the run's users."""
    batches = backend.generate(requests)
    try:
        while True:
            with failures.failing_as(failures.GENERATE, "generating"):
                results = next(batches, None)
            if results is None:
                return
            yield results
    finally:
        batches.close()


def loaded_spec(run: ModelRun, spec: ModelSpec) -> ModelSpec:
    """What the backend loads for ``run``: its registered model's files, or its own spec
    when its launcher (``created_by``; none: the operator's command line) may name any model.
    A run whose model or settings its launcher may not choose (a row edited in the database,
    a registry entry since removed) is refused (``ModelRefused``) before any file is read."""
    operator = may_choose_any_model(run.created_by)
    return resolve(spec, operator=operator, project=run.project)


@dataclass
class RunContext:
    """What every shard of a run needs: the run, how its outputs are read, the model it
    loads (not loaded yet), the request keys' fingerprint and the environment recorded."""

    run: ModelRun
    readers: tuple[Callable[[str], str], Callable[[str], Any]]
    params: GenerationParams
    fingerprint: str
    environment: dict[str, Any]
    model: LoadedModel
    _units: list[Any] | None = None

    def units(self) -> list[Any]:
        """Every request of the run, built once for all the shards this runner takes."""
        if self._units is None:
            self._units = list(run_prompts(self.run))
        return self._units

    @classmethod
    def of(cls, run_id: int) -> RunContext:
        run = ModelRun.objects.select_related(
            "gold_standard__project__taxonomy", "prompt_variant", "project__taxonomy"
        ).get(pk=run_id)
        spec = ModelSpec(run.backend, run.model_name, dict(run.config.get("settings", {})))
        loaded = loaded_spec(run, spec)
        params = GenerationParams.from_dict(run.config.get("params"))
        fingerprint = get_backend(run.backend).fingerprint(loaded)
        environment = {
            **platform_environment(),
            "backend": run.backend,
            "model": run.model_name,
            "fingerprint": fingerprint,
            "settings": spec.settings,
            "params": params.to_dict(),
            "seed": params.seed,
            "variant": str(run.prompt_variant),
        }
        model = LoadedModel(run, loaded, params)
        return cls(run, _output_readers(run), params, fingerprint, environment, model)


def _run_one(context: RunContext, shard: int, log: Callable[[str], None]) -> ShardSummary:
    """One shard: skip what the run has, serve what the cache has, send the rest."""
    run, (answer_of, labels_of) = context.run, context.readers
    pending = _shard_units(context, shard)
    summary = ShardSummary(requests=len(pending))
    have = set(RunOutput.objects.filter(run=run).values_list("document_id", "unit_index"))
    todo = [p for p in pending if (p.unit.document_id, p.unit.unit_index) not in have]
    summary.already_done = len(pending) - len(todo)
    cached = _cached_outputs(sorted({p.key for p in todo}))
    if cached:
        rows = outputs_for(
            run, todo, cached, from_cache=True, answer_of=answer_of, labels_of=labels_of
        )
        summary.from_cache = record_cached(run=run, rows=rows)
    remaining = [p for p in todo if p.key not in cached]
    log(
        f"run {run.pk} shard {shard}/{run.shards}: {summary.requests} requests, "
        f"{summary.already_done} already done, {len(cached)} cached, {len(remaining)} to send"
    )
    if not remaining:
        if context.model.backend is None:
            environment = {**context.environment, "model_loaded": False}
            record_environment(run=run, shard=shard, environment=environment)
        return summary
    backend = context.model.get(shard, context.environment)
    _generate(run, shard, backend, remaining, summary=summary, readers=context.readers, log=log)
    return summary


def run_shard(
    run_id: int, shard: int, *, worker: str = "", log: Callable[[str], None] = print
) -> ShardSummary:
    """Run shard ``shard``; with the ``worker`` whose supervisor started this runner, every
    shard that worker holds (a restarted runner goes on with them), then the run's queued
    shards one by one (``claim_next_shard``) with the model loaded once. Each shard but the
    last is marked done as soon as the next is claimed; the supervisor ends the last."""
    started = time.monotonic()
    context = RunContext.of(run_id)
    total = ShardSummary()
    held = running_shards_of(run_id=run_id, worker=worker) if worker else []
    index: int | None = held.pop(0) if held else shard
    try:
        while index is not None:
            one = _run_one(context, index, log)
            for field in ("requests", "already_done", "from_cache", "generated"):
                setattr(total, field, getattr(total, field) + getattr(one, field))
            if not worker:
                break
            following = held.pop(0) if held else claim_next_shard(run_id=run_id, worker=worker)
            if following is not None:
                finish_shard(run_id=run_id, index=index, status=RunShard.Status.DONE)
            index = following
    finally:
        context.model.close()
    total.seconds = time.monotonic() - started
    return total


def failure_path(run_id: int, shard: int) -> Path:
    """Where a runner that fails writes its error as the run's users read it (the class of
    failure, ``failures.public_message``); its log keeps the traceback."""
    folder = Path(settings.DATA_DIR) / "runs"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"run-{run_id}-shard-{shard}.failure"


def record_failure(run_id: int, shard: int, error: BaseException) -> None:
    failure_path(run_id, shard).write_text(failures.public_message(error), encoding="utf-8")


def runner_command(run_id: int, shard: int, *, worker: str = "") -> list[str]:
    """The command line of a runner process (``worker``: the supervisor's, whose shards it
    holds)."""
    python = settings.EVALUATION_RUNNER_PYTHON or sys.executable
    command = [python, str(Path(settings.BASE_DIR) / "manage.py"), "run_generation"]
    command += [str(run_id), "--shard", str(shard)]
    return command + (["--worker", worker] if worker else [])
