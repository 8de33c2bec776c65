"""Launching an LLM-as-judge run: a model rating texts with a judge rubric.

A judge run is an ordinary ``ModelRun`` on the runs machinery (shards on the ``gpu``
queue, the generation cache, cancel/resume/rescore, the scoring task): its ``task`` is
the variant's judge task (``judge-reference``, ``judge-fidelity``), ``judged_run`` the
finished free-text run whose outputs it rates (or none: the items' own candidates),
``field`` the judged free-text field (its gold is the reference answer). Each item is
judged ``repeats`` times (``config["repeats"]``, default the variant's
``settings["repeats"]``) at temperature 0; the raw judgements are the run's
``RunOutput`` rows and their parse failures are counted in the score
(``evaluation.benchmarks.judges``).

Concurrency contract: everything is validated first (each problem named by its field,
nothing created; ``LaunchError``); then one transaction locks the judged run
(``select_for_update``), checks again that it is done (a rescore or a resume may have
started meanwhile), creates the run and its shard, and queues the shard only once it
commits (``transaction.on_commit``), as ``runs.services.launch_runs`` does.
"""

from __future__ import annotations

from dataclasses import replace

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from annotations.items import FormError, parse_form
from annotations.models import Document, Project
from evaluation.backends import GenerationParams, ModelSpec, SettingProblem
from evaluation.benchmarks import ITEM_TASKS, TaskError, get_task
from evaluation.benchmarks.judges import MAX_REPEATS, repeats_of
from evaluation.models import ModelRun, PromptVariant, RunShard
from evaluation.runs.services import (
    LaunchError,
    Status,
    _model_label,
    _queue_or_withdraw,
    _unique_name,
    spec_problems,
)

FREE_TEXT = "free-text"


def is_judge_task(name: str) -> bool:
    task = ITEM_TASKS.get(name)
    return task is not None and getattr(task, "answers", "") == "judge"


def _free_text_fields(project: Project) -> list[str] | None:
    """The names of the form's free-text fields; ``None`` when the form is invalid."""
    try:
        return [f.name for f in parse_form(project.form).of_kind(FREE_TEXT)]
    except FormError:
        return None


def _check_judged_run(
    judged_run: ModelRun, project: Project, free_text: list[str]
) -> list[SettingProblem]:
    problems = []
    if judged_run.project_id != project.pk:
        problems.append(
            SettingProblem(
                "judged_run",
                f"run {judged_run.name!r} belongs to another project "
                f"({judged_run.project.name!r}), not {project.name!r}",
            )
        )
        return problems
    if is_judge_task(judged_run.task):
        problems.append(
            SettingProblem("judged_run", f"run {judged_run.name!r} is a judge run itself")
        )
    elif judged_run.field not in free_text:
        answered = judged_run.field or "no form field"
        problems.append(
            SettingProblem(
                "judged_run",
                f"run {judged_run.name!r} answers {answered!r}, not a free-text field "
                f"(the form's free-text fields: {', '.join(free_text) or 'none'})",
            )
        )
    if judged_run.status != Status.DONE:
        problems.append(
            SettingProblem(
                "judged_run",
                f"run {judged_run.name!r} is {judged_run.status}; only a finished (done) run "
                "is judged",
            )
        )
    return problems


def launch_judge_run(
    *,
    project: Project,
    judge_model: ModelSpec,
    variant: PromptVariant,
    judged_run: ModelRun | None = None,
    field: str | None = None,
    repeats: int | None = None,
    limit: int | None = None,
    created_by: AbstractBaseUser | None = None,
    name: str | None = None,
    enqueue: bool = True,
) -> ModelRun:
    """One judge run over the project's items (the first ``limit``; by default as many as
    the judged run answered), queued on the ``gpu`` queue; ``LaunchError`` first when
    anything is wrong."""
    problems: list[SettingProblem] = []
    if project.kind != "items":
        problems.append(
            SettingProblem("project", f"{project.name!r} is a {project.kind} project, not items")
        )
    free_text = _free_text_fields(project)
    if free_text is None:
        problems.append(SettingProblem("project", "the project's form is invalid"))
        free_text = []
    task_name = variant.task
    if not is_judge_task(task_name):
        judges = sorted(name for name in ITEM_TASKS if is_judge_task(name))
        problems.append(
            SettingProblem(
                "prompt_variant",
                f"{variant} is a prompt of task {task_name!r}, not a judge ({', '.join(judges)})",
            )
        )
    spec = variant.spec()
    if repeats is not None:
        if (
            isinstance(repeats, bool)
            or not isinstance(repeats, int)
            or not (1 <= repeats <= MAX_REPEATS)
        ):
            problems.append(
                SettingProblem("repeats", f"must be a whole number from 1 to {MAX_REPEATS}")
            )
            repeats = None
        else:
            spec = replace(spec, settings={**spec.settings, "repeats": repeats})
    if is_judge_task(task_name):
        try:
            get_task(task_name).check(spec)
            repeats = repeats_of(spec)
        except TaskError as error:
            problems.append(SettingProblem("prompt_variant", f"{variant}: {error}"))
    problems.extend(spec_problems(judge_model, "judge_model"))
    if judged_run is not None:
        problems.extend(_check_judged_run(judged_run, project, free_text))
        if field not in (None, "", judged_run.field):
            problems.append(
                SettingProblem(
                    "field",
                    f"the judged run answers {judged_run.field!r}; leave field empty or "
                    f"give {judged_run.field!r}, not {field!r}",
                )
            )
        field = judged_run.field
        if limit is None:
            limit = judged_run.limit
        elif judged_run.limit is not None and limit > judged_run.limit:
            problems.append(
                SettingProblem(
                    "limit",
                    f"the judged run answered only the first {judged_run.limit} items, not {limit}",
                )
            )
    else:
        field = field or ""
        if field and field not in free_text:
            problems.append(
                SettingProblem(
                    "field",
                    f"{field!r} is not a free-text field of the form "
                    f"(free-text fields: {', '.join(free_text) or 'none'})",
                )
            )
        elif not field and "reference" in getattr(ITEM_TASKS.get(task_name), "required", ()):
            problems.append(
                SettingProblem(
                    "field",
                    f"{task_name} compares with a reference answer: name the free-text field "
                    "whose gold is the reference",
                )
            )
        documents = Document.objects.filter(project=project).order_by("position", "id")
        if not any(
            (metadata or {}).get("candidate")
            for metadata in documents.values_list("metadata", flat=True)[:limit]
        ):
            problems.append(
                SettingProblem(
                    "judged_run",
                    "the items have no candidate texts to judge; choose a finished "
                    "free-text run to judge",
                )
            )
    if limit is not None and limit < 1:
        problems.append(SettingProblem("limit", "must be at least 1"))
    if problems:
        raise LaunchError(problems)

    items = Document.objects.filter(project=project).count()
    total = min(items, limit) * repeats if limit else items * repeats
    decoding = GenerationParams.from_dict({**variant.decoding, "temperature": 0.0})
    base = name or (
        f"judge {_model_label(judge_model)} · {variant.name} v{variant.version} · "
        + (judged_run.name if judged_run is not None else field or "candidates")
    )
    with transaction.atomic():
        if judged_run is not None:
            locked = ModelRun.objects.select_for_update().get(pk=judged_run.pk)
            if locked.status != Status.DONE:
                raise LaunchError(
                    [
                        SettingProblem(
                            "judged_run",
                            f"run {locked.name!r} is {locked.status}; only a finished (done) "
                            "run is judged",
                        )
                    ]
                )
        run = ModelRun.objects.create(
            project=project,
            gold_standard=None,
            name=_unique_name(project, base, set()),
            backend=judge_model.backend,
            model_name=judge_model.model,
            task=task_name,
            prompt_variant=variant,
            field=field,
            judged_run=judged_run,
            limit=limit,
            shards=1,
            config={
                "settings": dict(judge_model.settings),
                "params": decoding.to_dict(),
                "repeats": repeats,
            },
            status=Status.QUEUED,
            total=total,
            created_by=created_by,
        )
        RunShard.objects.create(run=run, index=0)
        if enqueue:
            transaction.on_commit(lambda: _queue_or_withdraw([run]))
    return run
