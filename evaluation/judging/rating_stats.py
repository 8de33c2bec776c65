"""Agreement of an item project's rating fields (reads only; the math is in
``evaluation.scoring.ratings``).

For every rating field of the form (``likert``, ``rubric``): the submitted responses of
every rater (an ``Annotation`` with status ``submitted``; an in-progress one does not
count, a field left out of a response is a missing rating) give a raters x items matrix,
and from it Krippendorff's α at the interval and the ordinal level, and each item's mean
human rating. Given a judge run of the project, Spearman's ρ between the human means and
the judge's per-item scores (the ``per_item`` table of its stored ``items`` report; for a
run not scored yet, the mean of its parsed outputs per item), over the items both rated.

Items are the project's documents in project order; item keys in the answer are document
ids as strings (the judge report's keys). Three queries plus one for the judge.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from typing import Any

from annotations.items import FormError, FormField, parse_form
from annotations.models import Annotation, Document, Project
from evaluation.models import ModelRun, RunOutput, RunScore
from evaluation.scoring.ratings import RATING_LEVELS, rating_alpha, spearman

ITEMS_PROFILE = "items"


class RatingStatsError(ValueError):
    """The request cannot be answered; ``field`` names what is wrong."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(message)


def judge_scores(run: ModelRun) -> dict[str, float | None]:
    """The judge run's score of each item (document id as a string)."""
    stored = RunScore.objects.filter(
        run=run, profile=ITEMS_PROFILE, gold_standard__isnull=True
    ).first()
    if stored is not None and isinstance(stored.report.get("per_item"), dict):
        return dict(stored.report["per_item"])
    values: dict[str, list[float]] = defaultdict(list)
    for document_id, parsed in RunOutput.objects.filter(run=run).values_list(
        "document_id", "parsed_labels"
    ):
        if isinstance(parsed, int | float) and not isinstance(parsed, bool):
            values[str(document_id)].append(float(parsed))
    return {key: statistics.fmean(found) for key, found in values.items()}


def _judge_run(project: Project, judge_run_id: int) -> ModelRun:
    from evaluation.judging.launch import is_judge_task

    run = ModelRun.objects.filter(pk=judge_run_id, project=project).first()
    if run is None:
        raise RatingStatsError("judge_run", f"no run {judge_run_id} in project {project.name!r}")
    if not is_judge_task(run.task):
        raise RatingStatsError("judge_run", f"run {run.name!r} is not a judge run ({run.task})")
    return run


def _field_stats(
    form_field: FormField,
    items: list[str],
    responses: dict[int, dict[str, dict[str, Any]]],
    scores: dict[str, float | None] | None,
) -> dict[str, Any]:
    """One rating field's figures: the raters x items matrix of its integer ratings gives
    α at each level, each item's human mean and count, and ρ with the judge's scores."""
    matrix = []
    for rater in sorted(responses):
        row = []
        for item in items:
            value = responses[rater].get(item, {}).get(form_field.name)
            valid = isinstance(value, int) and not isinstance(value, bool)
            row.append(value if valid else None)
        matrix.append(row)
    columns = list(zip(*matrix, strict=True)) if matrix else [() for _ in items]
    means: dict[str, float | None] = {}
    counts: dict[str, int] = {}
    for item, column in zip(items, columns, strict=True):
        present = [value for value in column if value is not None]
        counts[item] = len(present)
        means[item] = statistics.fmean(present) if present else None
    active = [row for row in matrix if any(value is not None for value in row)]
    entry: dict[str, Any] = {
        "name": form_field.name,
        "kind": form_field.kind,
        "title": form_field.title,
        "min": form_field.low,
        "max": form_field.high,
        "raters": len(active),
        "ratings": sum(counts.values()),
        "rated_items": sum(1 for n in counts.values() if n),
        "alpha": {level: rating_alpha(active, level) for level in RATING_LEVELS},
        "human_means": means,
        "ratings_per_item": counts,
    }
    if scores is not None:
        entry["judge"] = spearman(means, scores).to_dict()
    return entry


def rating_stats(*, project: Project, judge_run_id: int | None = None) -> dict[str, Any]:
    """Per rating field: α (interval, ordinal), the human mean of each item, and the
    Spearman correlation with the judge run when one is given."""
    if project.kind != "items":
        raise RatingStatsError("project", f"{project.name!r} is not an item project")
    try:
        form = parse_form(project.form)
    except FormError as error:
        raise RatingStatsError("project", f"the project's form is invalid: {error}") from None
    judge = _judge_run(project, judge_run_id) if judge_run_id is not None else None
    items = [
        str(pk)
        for pk in Document.objects.filter(project=project)
        .order_by("position", "id")
        .values_list("pk", flat=True)
    ]
    responses: dict[int, dict[str, dict[str, Any]]] = defaultdict(dict)
    for annotator_id, document_id, response in Annotation.objects.filter(
        document__project=project, status=Annotation.Status.SUBMITTED
    ).values_list("annotator_id", "document_id", "response"):
        responses[annotator_id][str(document_id)] = response or {}
    scores = judge_scores(judge) if judge is not None else None
    answer: dict[str, Any] = {
        "project": project.pk,
        "items": len(items),
        "raters": len(responses),
        "fields": [
            _field_stats(form_field, items, responses, scores)
            for form_field in form.fields
            if form_field.rating
        ],
    }
    if judge is not None:
        answer["judge_run"] = {
            "id": judge.pk,
            "name": judge.name,
            "task": judge.task,
            "status": judge.status,
            "scores": scores,
        }
    return answer
