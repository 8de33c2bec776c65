"""Reports of a project's suggestions (read only): ``suggestion_timing`` compares the time
per document of annotations with and without suggestions shown (``TIMING_MEASURE``), and
``suggestion_report`` counts suggestions, acceptances and rejections per run and label.
The suggestions and decisions themselves are written by ``evaluation.suggestions.services``.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from annotations.models import Annotation, Project
from evaluation.models import ModelRun, Suggestion, SuggestionDecision, SuggestionShown
from evaluation.suggestions.services import ACCEPT, REJECT

TIMING_MEASURE = (
    "Seconds from an annotation's start (its first saved change or accepted suggestion: "
    "opening a document creates nothing) to its submission, per submitted annotation of "
    "the project (a reopened one: to its latest submission). With suggestions: the API had "
    "served that annotator suggestions of the document before the submission (assisted "
    "project); without: every other submitted annotation. Per run: the annotations with "
    "suggestions of a document where the run has at least one."
)


def _timing(seconds: list[float]) -> dict[str, Any]:
    ordered = sorted(seconds)
    n = len(ordered)
    if not n:
        return {"annotations": 0, "mean_seconds": None, "median_seconds": None}
    middle = ordered[n // 2] if n % 2 else (ordered[n // 2 - 1] + ordered[n // 2]) / 2
    return {
        "annotations": n,
        "mean_seconds": round(sum(ordered) / n, 3),
        "median_seconds": round(middle, 3),
    }


def suggestion_timing(project: Project) -> dict[str, Any]:
    """Time per document with and without suggestions shown (``TIMING_MEASURE``):
    {measure, with_suggestions, without_suggestions, runs: [{run, run_name, ...}]}, each
    {annotations, mean_seconds, median_seconds} (null seconds when there is none)."""
    shown = {
        (doc, annotator): at
        for doc, annotator, at in SuggestionShown.objects.filter(
            document__project=project
        ).values_list("document_id", "annotator_id", "shown_at")
    }
    runs_of: dict[int, set[int]] = defaultdict(set)
    for doc, run_id in (
        Suggestion.objects.filter(document__project=project)
        .values_list("document_id", "run_id")
        .distinct()
    ):
        runs_of[doc].add(run_id)
    with_shown: list[float] = []
    without: list[float] = []
    per_run: dict[int, list[float]] = defaultdict(list)
    submitted = Annotation.objects.filter(
        document__project=project,
        status=Annotation.Status.SUBMITTED,
        submitted_at__isnull=False,
    ).values_list("document_id", "annotator_id", "created_at", "submitted_at")
    for doc, annotator, started, finished in submitted:
        seconds = max(0.0, (finished - started).total_seconds())
        at = shown.get((doc, annotator))
        if at is not None and at <= finished:
            with_shown.append(seconds)
            for run_id in runs_of[doc]:
                per_run[run_id].append(seconds)
        else:
            without.append(seconds)
    names = dict(ModelRun.objects.filter(pk__in=per_run).values_list("pk", "name"))
    runs = [
        {"run": run_id, "run_name": names.get(run_id, ""), **_timing(values)}
        for run_id, values in sorted(per_run.items(), key=lambda kv: (names.get(kv[0], ""), kv[0]))
    ]
    return {
        "measure": TIMING_MEASURE,
        "with_suggestions": _timing(with_shown),
        "without_suggestions": _timing(without),
        "runs": runs,
    }


def suggestion_report(project: Project) -> list[dict[str, Any]]:
    """Per run and label: suggestions, decisions, acceptances, rejections and the
    acceptance rate (accepted / decided; null when nothing was decided). A suggestion with
    several labels counts under each."""
    rows: dict[tuple[int, str], dict[str, Any]] = {}
    runs = dict(ModelRun.objects.filter(project=project).values_list("pk", "name"))
    suggestions = Suggestion.objects.filter(run__project=project).values_list(
        "pk", "run_id", "labels"
    )
    labels_of: dict[int, tuple[int, list[str]]] = {}
    for pk, run_id, labels in suggestions:
        labels_of[pk] = (run_id, list(labels))
        for label in labels:
            row = rows.setdefault(
                (run_id, label),
                {
                    "run": run_id,
                    "run_name": runs.get(run_id, ""),
                    "label": label,
                    "suggestions": 0,
                    "accepted": 0,
                    "rejected": 0,
                },
            )
            row["suggestions"] += 1
    counts: dict[tuple[int, str, str], int] = defaultdict(int)
    decisions = SuggestionDecision.objects.filter(suggestion__run__project=project).values_list(
        "suggestion_id", "decision"
    )
    for suggestion_id, decision in decisions:
        run_id, labels = labels_of[suggestion_id]
        for label in labels:
            counts[(run_id, label, decision)] += 1
    out = []
    for (run_id, label), row in sorted(rows.items(), key=lambda kv: (kv[1]["run_name"], kv[0][1])):
        row["accepted"] = counts[(run_id, label, ACCEPT)]
        row["rejected"] = counts[(run_id, label, REJECT)]
        decided = row["accepted"] + row["rejected"]
        row["acceptance_rate"] = row["accepted"] / decided if decided else None
        out.append(row)
    return out


__all__ = ["TIMING_MEASURE", "suggestion_report", "suggestion_timing"]
