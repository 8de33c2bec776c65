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

The kind of launch ``JudgeLaunch`` supplies the judge's inputs to the one launch path
(``runs.launch``): everything is validated first (each problem named by its field,
nothing created; ``LaunchError``); then the launch's transaction locks the judged run
(``select_for_update``) and checks again that it is done (a rescore or a resume may have
started meanwhile) before the run and its one shard are created and queued.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from django.contrib.auth.models import AbstractBaseUser

from annotations.items import FormError, parse_form
from annotations.models import Document, Project
from evaluation.backends import ModelSpec, SettingProblem
from evaluation.benchmarks import ITEM_TASKS, TaskError, VariantSpec, get_task
from evaluation.benchmarks.judges import MAX_REPEATS, repeats_of
from evaluation.models import ModelRun, PromptVariant
from evaluation.runs.launch import (
    LaunchError,
    PlannedRun,
    RunLaunch,
    decoding,
    launch,
    model_label,
    size_problems,
    spec_problems,
)

Status = ModelRun.Status
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


def _repeats_valid(repeats: int | None) -> bool:
    if repeats is None:
        return True
    return (
        not isinstance(repeats, bool) and isinstance(repeats, int) and 1 <= repeats <= MAX_REPEATS
    )


@dataclass(frozen=True, kw_only=True)
class JudgeLaunch(RunLaunch):
    """One judge run (one shard) rating the answers of ``judged_run`` to its free-text
    field, or, without one, the items' own candidates (``field``: the free-text field
    whose gold is the reference answer); ``repeats`` overrides the variant's."""

    judge_model: ModelSpec
    variant: PromptVariant
    judged_run: ModelRun | None = None
    field: str | None = None
    repeats: int | None = None

    def problems(self) -> list[SettingProblem]:
        problems: list[SettingProblem] = []
        project = self.project
        if project.kind != "items":
            problems.append(
                SettingProblem(
                    "project", f"{project.name!r} is a {project.kind} project, not items"
                )
            )
        free_text = _free_text_fields(project)
        if free_text is None:
            problems.append(SettingProblem("project", "the project's form is invalid"))
            free_text = []
        problems += self._variant_problems()
        problems += spec_problems(
            self.judge_model, "judge_model", launched_by=self.created_by, project=project
        )
        if self.judged_run is not None:
            problems += self._judged_run_problems(self.judged_run, free_text)
        else:
            problems += self._candidate_problems(free_text)
        return problems + size_problems(self._limit(), self.shards)

    def _spec(self) -> VariantSpec:
        """The judge variant's spec, with ``repeats`` over its own when given (and valid)."""
        spec = self.variant.spec()
        if self.repeats is None or not _repeats_valid(self.repeats):
            return spec
        return replace(spec, settings={**spec.settings, "repeats": self.repeats})

    def _variant_problems(self) -> list[SettingProblem]:
        problems: list[SettingProblem] = []
        task_name = self.variant.task
        if not is_judge_task(task_name):
            judges = sorted(name for name in ITEM_TASKS if is_judge_task(name))
            problems.append(
                SettingProblem(
                    "prompt_variant",
                    f"{self.variant} is a prompt of task {task_name!r}, not a judge "
                    f"({', '.join(judges)})",
                )
            )
        if not _repeats_valid(self.repeats):
            problems.append(
                SettingProblem("repeats", f"must be a whole number from 1 to {MAX_REPEATS}")
            )
        if is_judge_task(task_name):
            try:
                get_task(task_name).check(self._spec())
                repeats_of(self._spec())
            except TaskError as error:
                problems.append(SettingProblem("prompt_variant", f"{self.variant}: {error}"))
        return problems

    def _judged_run_problems(
        self, judged_run: ModelRun, free_text: list[str]
    ) -> list[SettingProblem]:
        problems = _check_judged_run(judged_run, self.project, free_text)
        if self.field not in (None, "", judged_run.field):
            problems.append(
                SettingProblem(
                    "field",
                    f"the judged run answers {judged_run.field!r}; leave field empty or "
                    f"give {judged_run.field!r}, not {self.field!r}",
                )
            )
        limit = self.limit
        if limit is not None and judged_run.limit is not None and limit > judged_run.limit:
            problems.append(
                SettingProblem(
                    "limit",
                    f"the judged run answered only the first {judged_run.limit} items, not {limit}",
                )
            )
        return problems

    def _candidate_problems(self, free_text: list[str]) -> list[SettingProblem]:
        problems: list[SettingProblem] = []
        field, task_name = self._field(), self.variant.task
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
        documents = Document.objects.filter(project=self.project).order_by("position", "id")
        metadata = documents.values_list("metadata", flat=True)
        if self.limit is not None:
            metadata = metadata[: max(self.limit, 0)]
        if not any((entry or {}).get("candidate") for entry in metadata):
            problems.append(
                SettingProblem(
                    "judged_run",
                    "the items have no candidate texts to judge; choose a finished "
                    "free-text run to judge",
                )
            )
        return problems

    def _field(self) -> str:
        """The judged free-text field: the judged run's, else the one named (or none)."""
        return self.judged_run.field if self.judged_run is not None else self.field or ""

    def _limit(self) -> int | None:
        """The first items judged: by default as many as the judged run answered."""
        if self.limit is None and self.judged_run is not None:
            return self.judged_run.limit
        return self.limit

    def plans(self) -> list[PlannedRun]:
        repeats, limit, field = repeats_of(self._spec()), self._limit(), self._field()
        items = Document.objects.filter(project=self.project).count()
        judged = self.judged_run.name if self.judged_run is not None else field or "candidates"
        label = f"{self.variant.name} v{self.variant.version}"
        return [
            PlannedRun(
                spec=self.judge_model,
                variant=self.variant,
                name=self.name or f"judge {model_label(self.judge_model)} · {label} · {judged}",
                total=(min(items, limit) if limit else items) * repeats,
                config={
                    "settings": dict(self.judge_model.settings),
                    "params": decoding(self.variant, {"temperature": 0.0}),
                    "repeats": repeats,
                },
                columns={
                    "gold_standard": None,
                    "field": field,
                    "judged_run": self.judged_run,
                    "limit": limit,
                },
            )
        ]

    def recheck(self) -> None:
        """The judged run is still done (a rescore or a resume may have started since)."""
        if self.judged_run is None:
            return
        locked = ModelRun.objects.select_for_update().get(pk=self.judged_run.pk)
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
    request = JudgeLaunch(
        project=project,
        judge_model=judge_model,
        variant=variant,
        judged_run=judged_run,
        field=field,
        repeats=repeats,
        limit=limit,
        created_by=created_by,
        name=name,
    )
    return launch(request, enqueue=enqueue)[0]
