"""Launching item runs: models answering one form field of an item project (or judging).

Concurrency contract (as ``runs.services.launch_runs``, whose helpers this reuses):
everything is validated first (every problem named by its field, nothing created), then
the runs and their shards are created in one transaction and the shard tasks are queued
only once it commits (``transaction.on_commit``). Item runs have no gold version: their
answer key is the items' metadata (``annotations.items``), read when the run is scored.

A run's ``total`` is its number of requests: one per item (the first ``limit``), times
the repeats of a judge variant.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from annotations.items import RATING_KINDS, FormError, parse_form
from annotations.models import Document, Project
from evaluation.backends import GenerationParams, ModelSpec, SettingProblem
from evaluation.benchmarks import TaskError, get_task, is_item_task
from evaluation.models import ModelRun, PromptVariant, RunShard
from evaluation.runs.services import (
    MAX_SHARDS,
    LaunchError,
    _model_label,
    _queue_or_withdraw,
    _unique_name,
    model_problems,
)

Status = ModelRun.Status


def _variant_problems(
    variants: Sequence[PromptVariant], field_kind: str | None
) -> list[SettingProblem]:
    problems: list[SettingProblem] = []
    if not variants:
        problems.append(SettingProblem("prompt_variants", "choose at least one prompt variant"))
    for index, variant in enumerate(variants):
        where = f"prompt_variants[{index}]"
        if not is_item_task(variant.task):
            problems.append(
                SettingProblem(
                    where,
                    f"{variant}: the {variant.task} task is not an item task; an item "
                    "project takes variants of multiple-choice, classification, ranked, "
                    "detection, segmentation, free-text or judge tasks",
                )
            )
            continue
        task = get_task(variant.task)
        try:
            task.check(variant.spec())
        except TaskError as error:
            problems.append(SettingProblem(where, f"{variant}: {error}"))
            continue
        if field_kind is None:
            continue
        judge = task.answers == "judge"
        if judge and field_kind not in (*RATING_KINDS, "free-text"):
            problems.append(
                SettingProblem(
                    where,
                    f"{variant}: a judge rates texts; the field is a {field_kind} question "
                    "(choose a likert, rubric or free-text field)",
                )
            )
        elif not judge and task.answers != field_kind:
            problems.append(
                SettingProblem(
                    where,
                    f"{variant}: the {variant.task} task answers {task.answers} questions, "
                    f"but the field is a {field_kind} question",
                )
            )
    return problems


def _repeats(variant: PromptVariant, params: dict[str, Any] | None) -> int:
    task = get_task(variant.task)
    if task.answers != "judge":
        return 1
    value = (params or {}).get("repeats", (variant.decoding or {}).get("repeats", 1))
    return value if isinstance(value, int) and value >= 1 else 1


def launch_item_runs(
    *,
    project: Project,
    field: str,
    models: Sequence[ModelSpec],
    variants: Sequence[PromptVariant],
    limit: int | None = None,
    shards: int = 1,
    params: dict[str, Any] | None = None,
    created_by: AbstractBaseUser | None = None,
    enqueue: bool = True,
    name: str | None = None,
    judged_run: ModelRun | None = None,
) -> list[ModelRun]:
    """One run per (model, variant) answering ``field`` of the item ``project``, queued on
    the ``gpu`` queue (``LaunchError`` first when anything is wrong). ``params`` override
    the variants' decoding settings (``repeats``: a judge's repeats per item);
    ``judged_run``: a run of the same project whose answers a judge rates."""
    problems: list[SettingProblem] = []
    field_kind: str | None = None
    if project.kind != "items":
        problems.append(
            SettingProblem(
                "project",
                f"project {project.name!r} is a {project.kind} project; item runs need an "
                "items project (span projects are run over a gold version)",
            )
        )
    else:
        try:
            form_field = parse_form(project.form).get(field)
            field_kind = form_field.kind
        except FormError as error:
            for place, messages in error.problems.items():
                place = "field" if place == "field" else f"project.form.{place}"
                problems.extend(SettingProblem(place, message) for message in messages)
        if not Document.objects.filter(project=project).exists():
            problems.append(SettingProblem("project", f"project {project.name!r} has no items"))
    if judged_run is not None and judged_run.project_id != project.pk:
        problems.append(SettingProblem("judged_run", "the judged run belongs to another project"))
    if limit is not None and limit < 1:
        problems.append(SettingProblem("limit", "must be at least 1"))
    if not 1 <= shards <= MAX_SHARDS:
        problems.append(SettingProblem("shards", f"must be between 1 and {MAX_SHARDS}"))
    problems += model_problems(models)
    problems += _variant_problems(variants, field_kind)
    try:
        GenerationParams.from_dict(params)
    except (TypeError, ValueError) as error:
        problems.append(SettingProblem("params", str(error)))
    if problems:
        raise LaunchError(problems)
    items = Document.objects.filter(project=project).count()
    items = min(items, limit) if limit else items
    runs: list[ModelRun] = []
    with transaction.atomic():
        taken: set[str] = set()
        for spec in models:
            for variant in variants:
                repeats = _repeats(variant, params)
                decoding = GenerationParams.from_dict({**variant.decoding, **(params or {})})
                config: dict[str, Any] = {
                    "settings": dict(spec.settings),
                    "params": decoding.to_dict(),
                }
                if get_task(variant.task).answers == "judge":
                    config["repeats"] = repeats
                label = f"{variant.task}/{variant.name} v{variant.version}"
                base = (name or f"{_model_label(spec)} · {label} · {field}")[:180]
                run = ModelRun.objects.create(
                    project=project,
                    gold_standard=None,
                    name=_unique_name(project, base, taken),
                    backend=spec.backend,
                    model_name=spec.model,
                    task=variant.task,
                    prompt_variant=variant,
                    field=field,
                    judged_run=judged_run,
                    limit=limit,
                    shards=shards,
                    config=config,
                    status=Status.QUEUED,
                    total=items * repeats,
                    created_by=created_by,
                )
                RunShard.objects.bulk_create(
                    RunShard(run=run, index=index) for index in range(shards)
                )
                runs.append(run)
        if enqueue:
            transaction.on_commit(lambda: _queue_or_withdraw(runs))
    return runs
