"""The one launch path of model runs: span runs over a gold version, item runs answering
a form field (``evaluation.items.launch``) and judge runs (``evaluation.judging.launch``).

A kind of launch (a ``RunLaunch``) supplies only what differs: its problems and the runs
it plans (which items or texts, which task, the judge's inputs). ``launch`` does the rest:

- it asks for every problem once (each named by its field: ``models[0].backend``,
  ``prompt_variants[1]``, ``limit``…) and raises ``LaunchError`` with all of them,
  nothing created;
- it creates the runs and their shards in one transaction (after the kind's ``recheck``,
  which locks and reads again what may have changed since the check). Unless the launch
  names a number of shards, a run is cut into parts of about the backend's
  ``chunk_requests`` (``RUN_CHUNK_REQUESTS`` overrides it), at most ``MAX_SHARDS``: every
  worker that frees up takes the next part, its model kept loaded between parts;
- it queues the shard tasks (``queued.gpu_generate``) through ``fallacy_platform.dispatch``
  once that transaction commits, so a worker never sees a run that is not there yet. When
  they cannot be queued (the broker is down) the runs are deleted again and
  ``QueueUnavailable`` is raised (the API answers 503): no run is left queued that nothing
  will run.

A run's key secret (an API key) is never stored: ``settings.api_key`` is refused here and
the backends refuse ``settings.api_key_env`` and servers outside the chosen credential's
allow-list (``evaluation.backends.check_spec``); a run names one of the operator's
credentials (``settings.credential``), which the workers read from their settings.

Which models and settings a launch may name is ``evaluation.backends.registry``'s rule: a
project admin chooses the operator's registered models (and allowed hub ids) and only the
backend's ``tenant_settings``; a superuser or a command-line launch may also name paths.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from fallacy_platform import dispatch

from annotations.models import GoldStandard, Project, Sentence
from evaluation import queued
from evaluation.backends import GenerationParams, ModelSpec, SettingProblem, get_backend
from evaluation.backends.model_names import model_display_name
from evaluation.backends.registry import launch_problems, may_choose_any_model
from evaluation.benchmarks import TaskError, get_task
from evaluation.models import ModelRun, PromptVariant, RunShard

MAX_SHARDS = 64
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


# --- the checks every kind of launch shares -------------------------------------------------


def spec_problems(
    spec: ModelSpec, where: str, *, launched_by: AbstractBaseUser | None, project: Any
) -> list[SettingProblem]:
    """What is wrong with one model of a launch by ``launched_by`` (None: the operator's
    command line) in ``project``, named under ``where``: secrets, then what the registry
    allows this launcher (``backends.registry``), then the backend's own checks."""
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
    named = {problem.field for problem in problems}
    operator = may_choose_any_model(launched_by)
    problems.extend(
        SettingProblem(f"{where}.{problem.field}", problem.message)
        for problem in launch_problems(spec, operator=operator, project=project)
        if f"{where}.{problem.field}" not in named
    )
    return problems


def model_problems(
    models: Sequence[ModelSpec], *, launched_by: AbstractBaseUser | None, project: Any
) -> list[SettingProblem]:
    """What is wrong with the models of a launch (``models[i].field``)."""
    if not models:
        return [SettingProblem("models", "choose at least one model")]
    return [
        problem
        for index, spec in enumerate(models)
        for problem in spec_problems(
            spec, f"models[{index}]", launched_by=launched_by, project=project
        )
    ]


def size_problems(limit: int | None, shards: int | None) -> list[SettingProblem]:
    """What is wrong with how much a launch runs: the first ``limit`` texts, in ``shards``
    (``None``: parts of the backend's size)."""
    problems: list[SettingProblem] = []
    if limit is not None and limit < 1:
        problems.append(SettingProblem("limit", "must be at least 1"))
    if shards is not None and not 1 <= shards <= MAX_SHARDS:
        problems.append(SettingProblem("shards", f"must be between 1 and {MAX_SHARDS}"))
    return problems


def params_problems(params: dict[str, Any] | None) -> list[SettingProblem]:
    """What is wrong with the decoding settings that override the variants'."""
    try:
        GenerationParams.from_dict(params)
    except (TypeError, ValueError) as error:
        return [SettingProblem("params", str(error))]
    return []


def decoding(variant: PromptVariant, params: dict[str, Any] | None) -> dict[str, Any]:
    """The variant's decoding settings with ``params`` over them, as a run stores them."""
    return GenerationParams.from_dict({**variant.decoding, **(params or {})}).to_dict()


def model_label(spec: ModelSpec) -> str:
    """A model's name in run names: its readable name (``backends.model_names``: from its
    config, GGUF file or folder, never a package folder), else the backend."""
    return model_display_name(spec.model, spec.settings) or spec.backend


# --- the launch itself ----------------------------------------------------------------------


@dataclass(frozen=True)
class PlannedRun:
    """One run a launch creates: its model and variant, its name (before it is made unique
    in the project), its number of requests, its config, and the kind's own columns
    (``gold_standard`` and ``level``, or ``field`` and ``judged_run``; a ``limit`` other
    than the request's)."""

    spec: ModelSpec
    variant: PromptVariant
    name: str
    total: int
    config: dict[str, Any]
    columns: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class RunLaunch:
    """What every launch names; a kind of launch adds its inputs, its ``problems`` and the
    runs it ``plans``. The default ``problems`` are those of a launch of one run per
    (model, variant): the kind's subject, the size, the models, its variants, the params."""

    project: Project
    models: Sequence[ModelSpec] = ()
    variants: Sequence[PromptVariant] = ()
    limit: int | None = None
    shards: int | None = None
    params: dict[str, Any] | None = None
    name: str | None = None
    created_by: AbstractBaseUser | None = None

    def problems(self) -> list[SettingProblem]:
        return [
            *self.subject_problems(),
            *size_problems(self.limit, self.shards),
            *model_problems(self.models, launched_by=self.created_by, project=self.project),
            *self.variant_problems(),
            *params_problems(self.params),
        ]

    def subject_problems(self) -> list[SettingProblem]:
        """What is wrong with what the runs run over (a gold version, a form field…)."""
        return []

    def variant_problems(self) -> list[SettingProblem]:
        """What is wrong with the chosen prompt variants (``prompt_variants[i]``)."""
        problems: list[SettingProblem] = []
        if not self.variants:
            problems.append(SettingProblem("prompt_variants", "choose at least one prompt variant"))
        for index, variant in enumerate(self.variants):
            message = self.variant_problem(variant)
            if message is not None:
                problems.append(SettingProblem(f"prompt_variants[{index}]", message))
        return problems

    def variant_problem(self, variant: PromptVariant) -> str | None:
        """What is wrong with one chosen variant (``None``: nothing): its task refuses it."""
        try:
            get_task(variant.task).check(variant.spec())
        except TaskError as error:
            return f"{variant}: {error}"
        return None

    def plans(self) -> list[PlannedRun]:
        """The runs to create, once ``problems`` found nothing."""
        raise NotImplementedError

    def recheck(self) -> None:
        """Inside the launch's transaction, before anything is created: lock and read again
        what may have changed since the check (``LaunchError`` when it did)."""


def launch(request: RunLaunch, *, enqueue: bool = True) -> list[ModelRun]:
    """Create the runs the request plans, each with its shards, in one transaction, and
    queue every shard on the ``gpu`` queue once it commits; ``LaunchError`` first when
    anything is wrong, ``QueueUnavailable`` (no run left) when the broker refuses."""
    problems = request.problems()
    if problems:
        raise LaunchError(problems)
    plans = request.plans()
    runs: list[ModelRun] = []
    with transaction.atomic():
        request.recheck()
        taken: set[str] = set()
        for plan in plans:
            columns = {"limit": request.limit, **plan.columns}
            run = ModelRun.objects.create(
                project=request.project,
                name=_unique_name(request.project, plan.name, taken),
                backend=plan.spec.backend,
                model_name=plan.spec.model,
                task=plan.variant.task,
                prompt_variant=plan.variant,
                shards=request.shards or part_count(plan.total, plan.spec.backend),
                config=plan.config,
                status=Status.QUEUED,
                total=plan.total,
                created_by=request.created_by,
                **columns,
            )
            RunShard.objects.bulk_create(
                RunShard(run=run, index=index) for index in range(run.shards)
            )
            runs.append(run)
        if enqueue:
            _queue_launched(runs)
    return runs


def part_count(requests: int, backend: str) -> int:
    """How many parts a run of ``requests`` is cut into when the launch does not say."""
    size = settings.RUN_CHUNK_REQUESTS or get_backend(backend).chunk_requests
    return min(MAX_SHARDS, max(1, math.ceil(requests / size)))


def _unique_name(project: Project, base: str, taken: set[str]) -> str:
    name, number = base, 1
    while name in taken or ModelRun.objects.filter(project=project, name=name).exists():
        number += 1
        name = f"{base} #{number}"
    taken.add(name)
    return name


def shard_message(run: ModelRun, index: int) -> dispatch.Message:
    """The task that supervises one shard of a run."""
    return queued.gpu_generate.s(run.pk, index)


def _queue_launched(runs: Sequence[ModelRun]) -> None:
    """Queue every shard of the runs just created once the launch commits; when the broker
    refuses, the runs are deleted again (a shard queued before that finds no run and does
    nothing) and ``QueueUnavailable`` is raised."""
    pks = [run.pk for run in runs]
    dispatch.send_on_commit(
        *(shard_message(run, index) for run in runs for index in range(run.shards)),
        undo=lambda reason: ModelRun.objects.filter(pk__in=pks).delete(),
    )


# --- span runs: a gold version's sentences ---------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class GoldLaunch(RunLaunch):
    """Runs of a span project over a gold version, scored up to ``level``."""

    gold_standard: GoldStandard
    level: int = 2

    def subject_problems(self) -> list[SettingProblem]:
        problems: list[SettingProblem] = []
        gold, project = self.gold_standard, self.project
        if gold.project_id != project.pk:
            problems.append(
                SettingProblem(
                    "gold_standard",
                    f"gold version {gold.version} belongs to another project "
                    f"({gold.project.name!r}), not {project.name!r}",
                )
            )
        elif not gold.documents.exists():
            problems.append(SettingProblem("gold_standard", "the gold version has no documents"))
        if self.level not in (0, 1, 2):
            problems.append(SettingProblem("level", f"must be 0, 1 or 2, not {self.level!r}"))
        return problems

    def plans(self) -> list[PlannedRun]:
        total = self._request_count()
        return [
            PlannedRun(
                spec=spec,
                variant=variant,
                name=self.name
                or f"{model_label(spec)} · {variant.name} v{variant.version} · L{self.level}",
                total=total,
                config={"settings": dict(spec.settings), "params": decoding(variant, self.params)},
                columns={"gold_standard": self.gold_standard, "level": self.level},
            )
            for spec in self.models
            for variant in self.variants
        ]

    def _request_count(self) -> int:
        return gold_request_count(self.gold_standard, self.limit)


def gold_texts(gold_standard: GoldStandard, limit: int | None) -> list[int]:
    """The ids of the texts a run over ``gold_standard`` reads (its first ``limit``)."""
    documents = gold_standard.documents.order_by("position", "id").values_list("id", flat=True)
    return list(documents[:limit] if limit else documents)


def gold_request_count(gold_standard: GoldStandard, limit: int | None) -> int:
    """The requests a run over ``gold_standard`` sends: one per sentence of its texts."""
    return Sentence.objects.filter(document_id__in=gold_texts(gold_standard, limit)).count()


def launch_runs(
    *,
    project: Project,
    gold_standard: GoldStandard,
    models: Sequence[ModelSpec],
    variants: Sequence[PromptVariant],
    level: int = 2,
    limit: int | None = None,
    shards: int | None = None,
    params: dict[str, Any] | None = None,
    created_by: AbstractBaseUser | None = None,
    name: str | None = None,
    enqueue: bool = True,
) -> list[ModelRun]:
    """One run per (model, variant) over the gold version, queued on the ``gpu`` queue
    (``LaunchError`` first when anything is wrong). ``params`` override the variant's
    decoding settings."""
    request = GoldLaunch(
        project=project,
        gold_standard=gold_standard,
        models=models,
        variants=variants,
        level=level,
        limit=limit,
        shards=shards,
        params=params,
        created_by=created_by,
        name=name,
    )
    return launch(request, enqueue=enqueue)
