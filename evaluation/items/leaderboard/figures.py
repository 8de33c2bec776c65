"""Figures of the item results, read from the rows' reports.

- ``aggregate``: per row, ``skills`` and ``overall`` over the task cells whose primary
  figure is on the 0-1 scale (accuracy, precision, recall, F1, BERTScore: ``on_unit_scale``);
  a figure on another scale (the categorisation score S, a sum or a mean of ±1/i) is shown in
  its own column and left out, so the overall never averages S with F1. ``overall_basis``
  says how the overall was formed (method, included and excluded tasks, in words);
- ``figures``: every figure the reports hold, per task: each numeric entry of a report's
  ``metrics`` (kind ``scalar``: accuracy, P/R/F1, mean and summed S, top-k accuracy…) and each
  mapping of numbers there or in its ``counts`` (kind ``per-label``: per-type detection
  accuracy, a profile's yes/no answer counts…), with one entry per row and profile;
- ``label_bias``: per task whose reports count labels, each row's predicted distribution and
  the gold distribution of the items it was scored on;
- ``comparisons``: per model and profile, chain-of-thought vs direct (zero-shot) and few-shot
  vs zero-shot, per task and overall, with a mark (``up``, ``down``, ``same``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from annotations.items import Form, FormField
from annotations.labels import NO_FALLACY
from evaluation.items.runs import field_labels
from evaluation.scoring.items import aggregate_skills

#: A delta smaller than this shows as 0.000: the mark is "same".
SAME_TOLERANCE = 0.0005
#: Metric names (or their endings) of figures on the 0-1 scale.
UNIT_ENDINGS = ("accuracy", "precision", "recall", "f1")
#: Report entries that are not figures of the answers.
NOT_FIGURES = ("bertscore_unavailable", "bertscore_model")
#: Report entries beside ``metrics`` shown as figures too (a profile's detection counts).
EXTRA_FIGURES = ("counts",)


def on_unit_scale(metric: str | None) -> bool:
    return bool(metric) and str(metric).endswith(UNIT_ENDINGS)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


# --- skills and the overall -----------------------------------------------------------------


def aggregate(
    tasks: dict[str, dict[str, Any]], form: Form
) -> tuple[dict[str, float], float | None]:
    """Per-skill and overall figures of a row's task cells on the 0-1 scale."""
    scores = {
        name: cell["value"]
        for name, cell in tasks.items()
        if cell["value"] is not None and on_unit_scale(cell["metric"])
    }
    if not scores:
        return {}, None
    skills = {f.name: f.skill_name for f in form.fields if f.name in scores}
    result = aggregate_skills(scores, skills, form.aggregate)
    return dict(result["skills"]), result["overall"]


def overall_basis(rows: Sequence[dict[str, Any]], form: Form, columns: Sequence[str]) -> dict:
    """How the overall is formed: the method, the tasks it combines and those left out."""
    metrics: dict[str, str] = {}
    for row in rows:
        for name, cell in row["tasks"].items():
            metrics.setdefault(name, cell["metric"])
    included = [name for name in columns if on_unit_scale(metrics.get(name))]
    excluded = [
        {"field": name, "metric": metrics.get(name), "reason": "not on the 0-1 scale"}
        for name in columns
        if name not in included
    ]
    how = "geometric mean" if form.aggregate == "geometric" else "macro average"
    text = (
        f"Overall: the {how} of the skills, each the mean of its tasks' primary figures on "
        f"the 0-1 scale ({', '.join(f'{n} ({metrics[n]})' for n in included) or 'none'})."
    )
    if excluded:
        text += " Left out (another scale, shown on its own): " + ", ".join(
            f"{e['field']} ({e['metric']})" for e in excluded
        )
        text += "."
    return {"method": form.aggregate, "tasks": included, "excluded": excluded, "text": text}


# --- every figure ---------------------------------------------------------------------------


def _row_ref(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "row": row["key"],
        "name": row["name"],
        "kind": row["kind"],
        "variant": row["variant_label"],
        "profile": row["profile"],
    }


def figures(rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> list[dict[str, Any]]:
    """Every figure of every report (see the module docstring), in column then report order."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for name in columns:
        for row in rows:
            report = row["_reports"].get(name)
            if not report:
                continue
            extra = {k: report[k] for k in EXTRA_FIGURES if isinstance(report.get(k), dict)}
            for metric, value in {**(report.get("metrics") or {}), **extra}.items():
                if metric in NOT_FIGURES:
                    continue
                if isinstance(value, dict):
                    values = {str(k): float(v) for k, v in value.items() if _number(v)}
                    if not values:
                        continue
                    entry = {**_row_ref(row), "values": values}
                    kind = "per-label"
                elif _number(value) or value is None:
                    entry = {**_row_ref(row), "value": None if value is None else float(value)}
                    kind = "scalar"
                else:
                    continue
                figure = found.setdefault(
                    (name, metric),
                    {
                        "field": name,
                        "metric": metric,
                        "kind": kind,
                        "scale": "unit" if on_unit_scale(metric) else "score",
                        "labels": [],
                        "rows": [],
                    },
                )
                if kind == "per-label":
                    figure["labels"] = list(dict.fromkeys([*figure["labels"], *entry["values"]]))
                figure["rows"].append(entry)
    return list(found.values())


# --- label bias -----------------------------------------------------------------------------


def label_bias(
    rows: Sequence[dict[str, Any]], columns: Sequence[str], form: Form, project: Any = None
) -> list[dict[str, Any]]:
    """Per task: each row's predicted and gold label counts and the number of items it was
    scored on (``items``: its answer key's items; a ranked item has several gold labels);
    the task's ``gold`` is that of the row scored on the most items. ``spellings`` are the
    task's labels that are not the field's own (its labels, else the ``project``'s
    taxonomy types, and "no fallacy"; ranked and classification fields): an answer's raw
    pieces, as the authors' profile counts them; a row with no count for one has nothing
    to show for it."""
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
                    **_row_ref(row),
                    "run": row["tasks"][name].get("run"),
                    "items": report.get("scored"),
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
                "spellings": _spellings(labels, form_field, project),
                "gold": gold,
                "rows": entries,
            }
        )
    return bias


def _spellings(labels: Sequence[str], form_field: FormField, project: Any) -> list[str]:
    """The labels that are not the field's own (see ``label_bias``)."""
    if form_field.kind not in ("ranked", "classification"):
        return []
    own = list(form_field.labels)
    if not own and project is not None:
        own = [label.name for label in field_labels(project, form_field)]
    keys = {label.casefold() for label in (*own, NO_FALLACY)}
    return [label for label in labels if label.strip().casefold() not in keys]


# --- prompting comparisons ------------------------------------------------------------------


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
        "profile": other["profile"],
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


def comparisons(rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> list[dict[str, Any]]:
    """Per model and profile: each chain-of-thought and each few-shot row against its
    zero-shot row (the first by variant name when there are several)."""
    by_model: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        if row["kind"] == "model" and row["variant"] is not None:
            by_model[(row["profile"], row["backend"], row["model"])].append(row)
    found = []
    for _key, group in sorted(by_model.items()):
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
