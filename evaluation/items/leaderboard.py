"""The results of an item project: models, prompt variants and humans on the form's tasks.

``item_leaderboard(project=)`` reads what is stored and computes nothing expensive:

- **rows** of kind ``model``: every finished item run (status ``done``, a form field, not a
  judge task) with its stored report (``RunScore`` profile ``items``, no gold version),
  grouped by model (backend + model name) and prompt variant (name, kind, shots). A row has
  one cell per form field (``tasks``): the report's primary figure, the metric's name, the
  unparseable count and, for a free-text field, the mean ``judge_mean`` of the finished
  judge runs judging that run (``ModelRun.judged_run``). When a model and variant answered a
  field more than once, the latest finished run counts (``runs`` says how many there were).
  A finished run without a stored report is listed in ``unscored``, not in a row. An
  imported run (published outputs, no prompt variant) is a row of kind ``imported``,
  named by its run name when it has no model name;
- rows of kind ``human``: every annotator with submitted responses, scored by
  ``evaluation.scoring.items.score_answers`` against the items' answer key
  (``Document.metadata["gold"]``) on the items they answered, for the answer kinds with a
  gold answer (multiple-choice, classification, ranked, detection, segmentation);
- per row, ``skills`` (macro over the tasks of a skill: ``FormField.skill_name``) and
  ``overall`` (the form's ``aggregate``: macro, or FLUB's geometric mean), both from
  ``evaluation.scoring.items.aggregate_skills``. Rows are sorted by ``overall``, best
  first (rows without one last), then by name;
- **comparisons**: per model, chain-of-thought vs direct (zero-shot) and few-shot vs
  zero-shot, per task and overall: both figures, the delta and a mark (``up``, ``down``, or
  ``same`` when the delta rounds to 0.000);
- **label_bias**: per task whose reports count labels, each row's predicted distribution
  and the gold distribution of the items it was scored on (``predicted_counts`` /
  ``gold_counts``); the task's ``gold`` is that of the row scored on the most items.

``to_csv`` renders the rows (plain function, no Django).
"""

from __future__ import annotations

import io
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from django.db.models.functions import Coalesce

from annotations.importing.formats.cells import csv_writer
from annotations.items import Form, FormField, parse_form
from annotations.models import Annotation, Document, Project
from evaluation.items.runs import JUDGE_PREFIX, field_labels
from evaluation.items.runs import PROFILE as ITEM_PROFILE
from evaluation.models import ModelRun, RunScore
from evaluation.scoring.items import aggregate_skills, score_answers

#: Answer kinds with a gold answer: the kinds humans are scored on.
HUMAN_KINDS = ("multiple-choice", "classification", "ranked", "detection", "segmentation")
#: Field kinds a model run answers (rating kinds are judged, not answered).
RUN_KINDS = (*HUMAN_KINDS, "free-text")
#: A delta smaller than this shows as 0.000: the mark is "same".
SAME_TOLERANCE = 0.0005
HUMAN_NOTE = "free-text answers of annotators are not scored"


# --- helpers --------------------------------------------------------------------------------


def _primary(report: dict[str, Any] | None) -> tuple[str | None, float | None]:
    primary = (report or {}).get("primary") or {}
    value = primary.get("value")
    return primary.get("name"), (float(value) if isinstance(value, int | float) else None)


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


def _aggregate(
    tasks: dict[str, dict[str, Any]], form: Form
) -> tuple[dict[str, float | None], float | None]:
    """Per-skill and overall figures of a row's task cells (``aggregate_skills``)."""
    scores = {name: cell["value"] for name, cell in tasks.items() if cell["value"] is not None}
    if not scores:
        return {}, None
    skills = {f.name: f.skill_name for f in form.fields if f.name in scores}
    result = aggregate_skills(scores, skills, form.aggregate)
    return dict(result["skills"]), result["overall"]


def _sort_key(row: dict[str, Any]) -> tuple[Any, ...]:
    overall = row["overall"]
    human = row["kind"] == "human"
    return (overall is None, -(overall or 0.0), human, row["name"], row["key"])


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
        _, value = _primary(reports.get(judge.pk))
        if value is not None:
            found[judge.judged_run_id].append((judge.pk, value))
    return {
        run_id: {"mean": sum(v for _, v in pairs) / len(pairs), "runs": [pk for pk, _ in pairs]}
        for run_id, pairs in found.items()
    }


def _model_rows(project: Project, form: Form) -> tuple[list[dict[str, Any]], list[dict]]:
    fields = {f.name: f for f in form.fields if f.kind in RUN_KINDS}
    runs = list(
        ModelRun.objects.filter(project=project, status=ModelRun.Status.DONE, field__in=fields)
        .exclude(task__startswith=JUDGE_PREFIX)
        .select_related("prompt_variant")
        # the same order on every database: a run with no finish time counts from its creation
        .order_by(Coalesce("finished_at", "created_at"), "pk")
    )
    reports = {
        score.run_id: score.report
        for score in RunScore.objects.filter(
            run__in=[run.pk for run in runs], profile=ITEM_PROFILE, gold_standard__isnull=True
        )
    }
    judged = _judge_means(project)
    rows: dict[str, dict[str, Any]] = {}
    unscored = []
    for run in runs:  # oldest first: a later run of the same cell replaces an earlier one
        report = reports.get(run.pk)
        if report is None:
            unscored.append({"id": run.pk, "name": run.name, "field": run.field})
            continue
        variant = _variant(run)
        # an imported run without a model name is a row of its own
        model = run.model_name or (run.name if run.imported else "")
        key = f"{run.backend}|{model}|{variant['name'] if variant else ''}"
        row = rows.setdefault(
            key,
            {
                "kind": "imported" if run.imported else "model",
                "key": key,
                "name": run.model_name or run.name,
                "model": run.model_name,
                "backend": run.backend,
                "variant": variant,
                "variant_label": variant_label(variant),
                "tasks": {},
            },
        )
        metric, value = _primary(report)
        earlier = row["tasks"].get(run.field)
        cell: dict[str, Any] = {
            "value": value,
            "metric": metric,
            "run": run.pk,
            "run_name": run.name,
            "runs": (earlier["runs"] + 1) if earlier else 1,
            "items": report.get("items"),
            "scored": report.get("scored"),
            "unparseable": (report.get("unparseable") or {}).get("count"),
        }
        if fields[run.field].kind == "free-text":
            cell["judge"] = judged.get(run.pk)
        row["tasks"][run.field] = cell
        row.setdefault("_reports", {})[run.field] = report
    return list(rows.values()), unscored


# --- human rows -----------------------------------------------------------------------------


def _human_rows(project: Project, form: Form) -> list[dict[str, Any]]:
    fields = [f for f in form.fields if f.kind in HUMAN_KINDS]
    if not fields:
        return []
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
    rows = []
    for annotator_id, responses in answers.items():
        tasks: dict[str, dict[str, Any]] = {}
        reports: dict[str, dict[str, Any]] = {}
        for form_field in fields:
            labels = [label.name for label in field_labels(project, form_field)]
            report = _score_human(form_field, responses, labels)
            if report is None:
                continue
            metric, value = _primary(report)
            tasks[form_field.name] = {
                "value": value,
                "metric": metric,
                "items": report.get("items"),
                "scored": report.get("scored"),
                "unparseable": (report.get("unparseable") or {}).get("count"),
            }
            reports[form_field.name] = report
        if not tasks:
            continue
        rows.append(
            {
                "kind": "human",
                "key": f"human|{annotator_id}",
                "id": annotator_id,
                "name": names[annotator_id],
                "model": None,
                "backend": None,
                "variant": None,
                "variant_label": "human",
                "tasks": tasks,
                "_reports": reports,
                **({"note": HUMAN_NOTE} if form.of_kind("free-text") else {}),
            }
        )
    return rows


def _score_human(
    form_field: FormField,
    responses: Sequence[tuple[Document, dict[str, Any]]],
    labels: Sequence[str],
) -> dict[str, Any] | None:
    """An annotator's report on one field: the items they answered, against the gold
    (the field's labels as the runs use them: ``items.runs.field_labels``)."""
    golds, predictions, options = [], [], []
    for document, response in responses:
        value = response.get(form_field.name)
        if value is None:
            continue
        metadata = document.metadata or {}
        golds.append((metadata.get("gold") or {}).get(form_field.name))
        predictions.append(value)
        options.append([str(key) for key in metadata.get("options") or {}])
    if not predictions or all(gold is None for gold in golds):
        return None
    return score_answers(
        form_field.kind,
        golds,
        predictions,
        labels=labels,
        options=options,
    )


# --- comparisons and label bias -------------------------------------------------------------


def delta_mark(base: float | None, value: float | None) -> dict[str, Any] | None:
    """``{"base", "value", "delta", "mark"}``; ``None`` unless both figures exist."""
    if base is None or value is None:
        return None
    delta = value - base
    mark = "same" if abs(delta) < SAME_TOLERANCE else ("up" if delta > 0 else "down")
    return {"base": base, "value": value, "delta": delta, "mark": mark}


def _compare(
    base: dict[str, Any], other: dict[str, Any], columns: Sequence[str], comparison: str
) -> dict[str, Any]:
    tasks = {}
    for name in columns:
        base_cell, cell = base["tasks"].get(name), other["tasks"].get(name)
        entry = delta_mark(base_cell and base_cell["value"], cell and cell["value"])
        if entry is not None:
            tasks[name] = entry
    return {
        "comparison": comparison,
        "model": other["model"],
        "backend": other["backend"],
        "row": other["key"],
        "baseline_row": base["key"],
        "variant": other["variant_label"],
        "variant_name": other["variant"]["name"],
        "baseline": base["variant"]["name"],
        "tasks": tasks,
        "overall": delta_mark(base["overall"], other["overall"]),
    }


def _comparisons(rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> list[dict[str, Any]]:
    """Per model: each chain-of-thought and each few-shot row against its zero-shot row
    (the first by variant name when there are several)."""
    by_model: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        if row["kind"] == "model" and row["variant"] is not None:
            by_model[(row["backend"], row["model"])].append(row)
    found = []
    for (_backend, _model), group in sorted(by_model.items()):
        group = sorted(group, key=lambda r: (r["variant"]["name"], r["key"]))
        direct = [r for r in group if r["variant"]["kind"] == "zero-shot"]
        if not direct:
            continue
        for row in group:
            kind = row["variant"]["kind"]
            if kind == "chain-of-thought":
                found.append(_compare(direct[0], row, columns, "cot-vs-direct"))
            elif kind == "few-shot":
                found.append(_compare(direct[0], row, columns, "few-shot-vs-zero-shot"))
    return found


def _label_bias(
    rows: Sequence[dict[str, Any]], columns: Sequence[str], form: Form
) -> list[dict[str, Any]]:
    bias = []
    for name in columns:
        gold: dict[str, int] = {}
        gold_items = -1
        entries = []
        order: list[str] = []
        for row in rows:
            report = row["_reports"].get(name)
            if not report or "predicted_counts" not in report:
                continue
            predicted = {str(k): int(v) for k, v in (report.get("predicted_counts") or {}).items()}
            row_gold = {str(k): int(v) for k, v in (report.get("gold_counts") or {}).items()}
            if (report.get("scored") or 0) > gold_items:  # the widest report's answer key
                gold, gold_items = row_gold, report.get("scored") or 0
            order = list(dict.fromkeys([*order, *row_gold, *predicted]))
            entries.append(
                {
                    "row": row["key"],
                    "name": row["name"],
                    "kind": row["kind"],
                    "variant": row["variant_label"],
                    "run": row["tasks"][name].get("run"),
                    "predicted": predicted,
                    "gold": row_gold,
                }
            )
        if not entries:
            continue
        form_field = form.get(name)
        known = list(form_field.labels)
        if form_field.kind == "multiple-choice":
            order.sort()  # option keys: A, B, C…
        labels = [x for x in known if x in order] + [x for x in order if x not in known]
        bias.append(
            {
                "field": name,
                "kind": form_field.kind,
                "labels": labels,
                "gold": gold,
                "rows": entries,
            }
        )
    return bias


# --- the board ------------------------------------------------------------------------------


def item_leaderboard(*, project: Project) -> dict[str, Any]:
    """The results of an item project (see the module docstring)."""
    form = parse_form(project.form)
    model_rows, unscored = _model_rows(project, form)
    rows = model_rows + _human_rows(project, form)
    for row in rows:
        row["skills"], row["overall"] = _aggregate(row["tasks"], form)
    rows.sort(key=_sort_key)
    columns = [f.name for f in form.fields if any(f.name in row["tasks"] for row in rows)]
    skills: list[str] = []
    for form_field in form.fields:
        if form_field.name in columns and form_field.skill_name not in skills:
            skills.append(form_field.skill_name)
    comparisons = _comparisons(rows, columns)
    bias = _label_bias(rows, columns, form)
    for row in rows:
        del row["_reports"]
    return {
        "project": {"id": project.pk, "name": project.name, "kind": project.kind},
        "aggregate": form.aggregate,
        "tasks": [
            {
                "field": f.name,
                "kind": f.kind,
                "title": f.title or f.name,
                "skill": f.skill_name,
            }
            for f in form.fields
            if f.name in columns
        ],
        "skills": skills,
        "rows": rows,
        "comparisons": comparisons,
        "label_bias": bias,
        "unscored": unscored,
    }


# --- export ---------------------------------------------------------------------------------


def _number(value: float | None, digits: int = 4) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def to_csv(board: dict[str, Any]) -> str:
    """One line per row: who, then each task's primary figure (and a free-text field's
    judge mean), each skill, the overall figure."""
    out = io.StringIO()
    writer = csv_writer(out)
    task_columns: list[str] = []
    for task in board["tasks"]:
        task_columns.append(task["field"])
        if task["kind"] == "free-text":
            task_columns.append(f"{task['field']}_judge")
    writer.writerow(
        [
            "kind",
            "name",
            "model",
            "backend",
            "variant",
            "variant_kind",
            "shots",
            *task_columns,
            *(f"skill_{skill}" for skill in board["skills"]),
            f"overall_{board['aggregate']}",
        ]
    )
    for row in board["rows"]:
        variant = row["variant"] or {}
        cells = []
        for task in board["tasks"]:
            cell = row["tasks"].get(task["field"]) or {}
            cells.append(_number(cell.get("value")))
            if task["kind"] == "free-text":
                cells.append(_number((cell.get("judge") or {}).get("mean")))
        writer.writerow(
            [
                row["kind"],
                row["name"],
                row["model"] or "",
                row["backend"] or "",
                variant.get("name", ""),
                variant.get("kind", ""),
                variant.get("shots", ""),
                *cells,
                *(_number(row["skills"].get(skill)) for skill in board["skills"]),
                _number(row["overall"]),
            ]
        )
    return out.getvalue()
