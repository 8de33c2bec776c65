"""The rows of an item project's results: model runs (launched or imported) and human
annotators, one row per party and scoring profile.

- kind ``model`` / ``imported``: every finished item run (status ``done``, a form field, not
  a judge task) with a stored report (``RunScore`` without a gold version; its profile names
  the row's profile, the stored name ``items`` reads as ``definition``), grouped by model
  (backend + model name) and prompt variant. An imported run (published outputs, no prompt
  variant) has kind ``imported``, named by its run name when it has no model name. When a
  model and variant answered a field more than once, the latest finished run counts
  (``runs`` says how many there were). A finished run without a stored report is listed
  in ``unscored``. ``baseline`` is true for a baseline backend's run (random, silent);
- kind ``human``: every annotator with submitted responses, scored by the pure scorer
  against the items' answer key on the items they answered, for the answer kinds with a
  gold answer, under each profile of the board.

Without a subset a model cell's figures are the stored report's; with one, the run's stored
parsed outputs are scored again on the subset's items (nothing is written; free-text fields
are left out: their BERTScore is not recomputed on a read).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection
from typing import Any

from django.db.models.functions import Coalesce

from annotations.items import Form, FormField
from annotations.models import Annotation, Document, Project
from evaluation.backends import is_baseline
from evaluation.items.leaderboard.answers import (
    DEFAULT_PROFILE,
    Answers,
    human_answers,
    profile_name,
    run_answers,
)
from evaluation.items.runs import JUDGE_PREFIX, field_labels, label_aliases, project_benchmark
from evaluation.models import ModelRun, RunScore
from evaluation.scoring.core import ScoringInputError
from evaluation.scoring.item_profiles import profiles_for

#: Answer kinds with a gold answer: the kinds humans are scored on.
HUMAN_KINDS = ("multiple-choice", "classification", "ranked", "detection", "segmentation")
#: Field kinds a model run answers (rating kinds are judged, not answered).
RUN_KINDS = (*HUMAN_KINDS, "free-text")
HUMAN_NOTE = "free-text answers of annotators are not scored"


def primary(report: dict[str, Any] | None) -> tuple[str | None, float | None]:
    found = (report or {}).get("primary") or {}
    value = found.get("value")
    return found.get("name"), (float(value) if isinstance(value, int | float) else None)


def _variant(run: ModelRun) -> dict[str, Any] | None:
    variant = run.prompt_variant
    if variant is None:
        return None
    return {"name": variant.name, "kind": variant.kind, "shots": variant.shots}


def variant_label(variant: dict[str, Any] | None) -> str:
    """``zero-shot``, ``few-shot (k=3)``, ``chain-of-thought``…; ``imported`` without one."""
    if variant is None:
        return "imported"
    if variant["kind"] == "few-shot":
        return f"few-shot (k={variant['shots']})"
    return variant["kind"]


def project_profiles(project: Project) -> list[str]:
    """The profiles a project's fields are scored under: ``definition``, then its
    benchmark's (``authors-smartypat`` for a SmartyPat project)."""
    return profiles_for(project_benchmark(project))


def field_aliases(project: Project, form_field: FormField) -> tuple[tuple[str, str], ...]:
    """The taxonomy's aliases of the field's labels (a field with labels of its own: none),
    as the run scoring reads them."""
    if form_field.labels or form_field.kind not in ("ranked", "classification"):
        return ()
    labels = [label.name for label in field_labels(project, form_field)]
    return tuple(sorted(label_aliases(project, labels).items()))


def ordered_profiles(names: Collection[str]) -> list[str]:
    """``definition`` first, then the others by name."""
    return sorted(set(names), key=lambda name: (name != DEFAULT_PROFILE, name))


def _cell(report: dict[str, Any]) -> dict[str, Any]:
    metric, value = primary(report)
    return {
        "value": value,
        "metric": metric,
        "items": report.get("items"),
        "scored": report.get("scored"),
        "unparseable": (report.get("unparseable") or {}).get("count"),
    }


# --- model rows -----------------------------------------------------------------------------


def _judge_means(project: Project) -> dict[int, dict[str, Any]]:
    """Per judged run: the mean of its finished judge runs' ``judge_mean`` and their ids."""
    judges = list(
        ModelRun.objects.filter(
            project=project,
            status=ModelRun.Status.DONE,
            task__startswith=JUDGE_PREFIX,
            judged_run__isnull=False,
        ).order_by("pk")
    )
    reports: dict[int, dict[str, Any]] = {}
    for score in RunScore.objects.filter(
        run__in=[j.pk for j in judges], gold_standard__isnull=True
    ).order_by("profile"):
        reports.setdefault(score.run_id, score.report)
    found: dict[int, list[tuple[int, float]]] = defaultdict(list)
    for judge in judges:
        _, value = primary(reports.get(judge.pk))
        if value is not None:
            found[judge.judged_run_id].append((judge.pk, value))
    return {
        run_id: {"mean": sum(v for _, v in pairs) / len(pairs), "runs": [pk for pk, _ in pairs]}
        for run_id, pairs in found.items()
    }


def stored_reports(runs: Collection[ModelRun]) -> dict[int, dict[str, dict[str, Any]]]:
    """Per run, its stored item reports by profile name (a report stored under the profile's
    own name wins over one whose column ``STORED_AS`` reads as that profile)."""
    found: dict[int, dict[str, dict[str, Any]]] = defaultdict(dict)
    scores = RunScore.objects.filter(run__in=[run.pk for run in runs], gold_standard__isnull=True)
    for score in scores.order_by("run_id", "profile"):
        name = profile_name(score.profile)
        if name == score.profile or name not in found[score.run_id]:
            found[score.run_id][name] = score.report
    return found


def _latest_runs(project: Project, form: Form) -> list[ModelRun]:
    fields = [f.name for f in form.fields if f.kind in RUN_KINDS]
    return list(
        ModelRun.objects.filter(project=project, status=ModelRun.Status.DONE, field__in=fields)
        .exclude(task__startswith=JUDGE_PREFIX)
        .select_related("prompt_variant", "project")
        # the same order on every database: a run with no finish time counts from its creation
        .order_by(Coalesce("finished_at", "created_at"), "pk")
    )


def _model_row(run: ModelRun, key: str, profile: str) -> dict[str, Any]:
    variant = _variant(run)
    return {
        "kind": "imported" if run.imported else "model",
        "key": key,
        "name": run.model_label or run.name,
        "model": run.model_label,
        "backend": run.backend,
        "baseline": is_baseline(run.backend),
        "variant": variant,
        "variant_label": variant_label(variant),
        "profile": profile,
        "tasks": {},
        "_reports": {},
        "_answers": {},
    }


def model_rows(
    project: Project, form: Form, profiles: list[str] | None, subset: frozenset[int] | None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[str]]:
    """The model rows under ``profiles`` (``None``: every stored one), the unscored runs and
    the profiles the stored reports hold."""
    runs = _latest_runs(project, form)
    reports = stored_reports(runs)
    found = ordered_profiles({p for by_profile in reports.values() for p in by_profile})
    wanted = found if profiles is None else [p for p in profiles if p in found]
    judged = _judge_means(project)
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    counts: dict[tuple[str, str], int] = defaultdict(int)
    unscored = []
    for run in runs:  # oldest first: a later run of the same cell replaces an earlier one
        if not reports.get(run.pk):
            unscored.append({"id": run.pk, "name": run.name, "field": run.field})
            continue
        variant = _variant(run)
        # an imported run without a model name is a row of its own
        model = run.model_name or (run.name if run.imported else "")
        key = f"{run.backend}|{model}|{variant['name'] if variant else ''}"
        counts[(key, run.field)] += 1
        form_field = form.get(run.field)
        answers = run_answers(run, form_field, field_aliases(project, form_field))
        for profile in wanted:
            report = reports[run.pk].get(profile)
            if report is None:
                continue
            if subset is not None:
                if form_field.kind == "free-text":
                    continue
                answers_here = answers.restricted(subset)
                report = {**answers_here.report(profile), "subset": True}
            else:
                answers_here = answers
            row = rows.setdefault((profile, key), _model_row(run, key, profile))
            cell = {**_cell(report), "run": run.pk, "run_name": run.name}
            cell["runs"] = counts[(key, run.field)]
            if form_field.kind == "free-text":
                cell["judge"] = judged.get(run.pk)
            row["tasks"][run.field] = cell
            row["_reports"][run.field] = report
            row["_answers"][run.field] = answers_here
    return list(rows.values()), unscored, found


# --- human rows -----------------------------------------------------------------------------


def _responses(project: Project) -> tuple[dict[int, list[tuple[Document, dict]]], dict[int, str]]:
    answers: dict[int, list[tuple[Document, dict[str, Any]]]] = defaultdict(list)
    names: dict[int, str] = {}
    submitted = (
        Annotation.objects.filter(document__project=project, status=Annotation.Status.SUBMITTED)
        .select_related("document", "annotator")
        .order_by("document__position", "document_id")
    )
    for annotation in submitted:
        answers[annotation.annotator_id].append((annotation.document, annotation.response or {}))
        names[annotation.annotator_id] = annotation.annotator.get_username()
    return answers, names


def _human_row(annotator: int, name: str, profile: str, form: Form) -> dict[str, Any]:
    return {
        "kind": "human",
        "key": f"human|{annotator}",
        "id": annotator,
        "name": name,
        "model": None,
        "backend": None,
        "baseline": False,
        "variant": None,
        "variant_label": "human",
        "profile": profile,
        "tasks": {},
        "_reports": {},
        "_answers": {},
        **({"note": HUMAN_NOTE} if form.of_kind("free-text") else {}),
    }


def human_rows(
    project: Project, form: Form, profiles: list[str], subset: frozenset[int] | None
) -> list[dict[str, Any]]:
    """Each annotator's row under each profile that can score their answers."""
    fields = [f for f in form.fields if f.kind in HUMAN_KINDS]
    if not fields:
        return []
    responses, names = _responses(project)
    labels = {f.name: [label.name for label in field_labels(project, f)] for f in fields}
    aliases = {f.name: field_aliases(project, f) for f in fields}
    rows = []
    for profile in profiles:
        for annotator, answered in responses.items():
            row = _human_row(annotator, names[annotator], profile, form)
            for form_field in fields:
                name = form_field.name
                answers = human_answers(form_field, answered, labels[name], aliases[name])
                if answers is not None and subset is not None:
                    answers = answers.restricted(subset)
                if answers is None or not answers.scored_ids():
                    continue
                try:
                    report = answers.report(profile)
                except ScoringInputError:
                    continue  # a profile that does not score this kind of answer
                row["tasks"][form_field.name] = _cell(report)
                row["_reports"][form_field.name] = report
                row["_answers"][form_field.name] = answers
            if row["tasks"]:
                rows.append(row)
    return rows


def cell_answers(row: dict[str, Any], field: str) -> Answers | None:
    return row["_answers"].get(field)
