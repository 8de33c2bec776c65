"""Item runs: models answering one form field of an item project (or judging its texts).

The kind of launch ``ItemLaunch`` supplies what differs from a span launch to the one
launch path (``runs.launch``, its validation, transaction and queueing): the project's
form field instead of a gold version, and variants of item tasks that answer that
field's kind. Item runs have no gold version: their answer key is the items' metadata
(``annotations.items``), read when the run is scored.

A run's ``total`` is its number of requests: one per item (the first ``limit``), times
the repeats of a judge variant.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from django.contrib.auth.models import AbstractBaseUser

from annotations.items import RATING_KINDS, FormError, parse_form
from annotations.models import Document, Project
from evaluation.backends import ModelSpec, SettingProblem
from evaluation.benchmarks import get_task, is_item_task
from evaluation.models import ModelRun, PromptVariant
from evaluation.runs.launch import PlannedRun, RunLaunch, decoding, launch, model_label


def _repeats(variant: PromptVariant, params: dict[str, Any] | None) -> int:
    task = get_task(variant.task)
    if task.answers != "judge":
        return 1
    value = (params or {}).get("repeats", (variant.decoding or {}).get("repeats", 1))
    return value if isinstance(value, int) and value >= 1 else 1


@dataclass(frozen=True, kw_only=True)
class ItemLaunch(RunLaunch):
    """Runs of an item project answering its form ``field``; ``judged_run``: a run of the
    same project whose answers a judge variant rates."""

    field: str
    judged_run: ModelRun | None = None

    def subject_problems(self) -> list[SettingProblem]:
        project = self.project
        problems: list[SettingProblem] = []
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
                parse_form(project.form).get(self.field)
            except FormError as error:
                for place, messages in error.problems.items():
                    place = "field" if place == "field" else f"project.form.{place}"
                    problems.extend(SettingProblem(place, message) for message in messages)
            if not Document.objects.filter(project=project).exists():
                problems.append(SettingProblem("project", f"project {project.name!r} has no items"))
        if self.judged_run is not None and self.judged_run.project_id != project.pk:
            problems.append(
                SettingProblem("judged_run", "the judged run belongs to another project")
            )
        return problems

    def variant_problem(self, variant: PromptVariant) -> str | None:
        """A variant of an item task that answers the field's kind of question (a judge:
        a rating or free-text field)."""
        if not is_item_task(variant.task):
            return (
                f"{variant}: the {variant.task} task is not an item task; an item "
                "project takes variants of multiple-choice, classification, ranked, "
                "detection, segmentation, free-text or judge tasks"
            )
        problem = super().variant_problem(variant)
        field_kind = self._field_kind
        if problem is not None or field_kind is None:
            return problem
        task = get_task(variant.task)
        if task.answers == "judge":
            if field_kind not in (*RATING_KINDS, "free-text"):
                return (
                    f"{variant}: a judge rates texts; the field is a {field_kind} question "
                    "(choose a likert, rubric or free-text field)"
                )
        elif task.answers != field_kind:
            return (
                f"{variant}: the {variant.task} task answers {task.answers} questions, "
                f"but the field is a {field_kind} question"
            )
        return None

    @cached_property
    def _field_kind(self) -> str | None:
        """The kind of question the field asks; ``None`` when there is no such field."""
        if self.project.kind != "items":
            return None
        try:
            return parse_form(self.project.form).get(self.field).kind
        except FormError:
            return None

    def plans(self) -> list[PlannedRun]:
        items = Document.objects.filter(project=self.project).count()
        items = min(items, self.limit) if self.limit else items
        plans: list[PlannedRun] = []
        for spec in self.models:
            for variant in self.variants:
                repeats = _repeats(variant, self.params)
                config: dict[str, Any] = {
                    "settings": dict(spec.settings),
                    "params": decoding(variant, self.params),
                }
                if get_task(variant.task).answers == "judge":
                    config["repeats"] = repeats
                label = f"{variant.task}/{variant.name} v{variant.version}"
                plans.append(
                    PlannedRun(
                        spec=spec,
                        variant=variant,
                        name=(self.name or f"{model_label(spec)} · {label} · {self.field}")[:180],
                        total=items * repeats,
                        config=config,
                        columns={
                            "gold_standard": None,
                            "field": self.field,
                            "judged_run": self.judged_run,
                        },
                    )
                )
        return plans


def launch_item_runs(
    *,
    project: Project,
    field: str,
    models: Sequence[ModelSpec],
    variants: Sequence[PromptVariant],
    limit: int | None = None,
    shards: int | None = None,
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
    request = ItemLaunch(
        project=project,
        field=field,
        models=models,
        variants=variants,
        limit=limit,
        shards=shards,
        params=params,
        created_by=created_by,
        name=name,
        judged_run=judged_run,
    )
    return launch(request, enqueue=enqueue)
