"""The leaderboard of one gold version: models and humans on one yardstick, and its exports.

Rows (``leaderboard``):
- every run of the version with status ``done`` and a stored ``RunScore`` for the profile.
  An imported run (``import_run``: published raw outputs, a harness's log) is marked
  ``imported`` (with ``harness``, its name and version, for a harness's log) and a run of a
  baseline backend (random labels, silent) ``baseline``; an imported run has no
  score until someone asks: the first leaderboard that meets it scores it once and stores
  the reports (``runs.services.score_and_store``), so the published runs appear too. A run whose
  stored data cannot be scored shows with empty levels and a ``note``;
- every human annotator with a submitted annotation on the version's documents, scored
  on the documents they submitted (``runs.selectors.score_stored_annotator``). Humans produce
  spans, so only profile ``paper`` scores them; under ``mafalda-2024`` their rows have
  empty levels and a ``note``.
Rows are ranked only against rows scored on the same texts (``runs.comparable``): grouped
by the texts they were scored on (a run limited to N texts, an imported run covering part of
the version, an annotator who submitted part of it), each with its ``coverage`` (n of N
texts); within a group sorted by level-2 F1, best first (rows without one last), then by
name, and each row carries ``next``, the paired test against the row below it (difference of
level-2 F1, its 95% paired bootstrap interval, the approximate randomisation p-value and
whether it is significant at 0.05); a later group's first row carries ``versus``, the same
test against the first group's top row on their common texts; ``compare`` holds the same
test between any two rows asked for (``pair``: keys ``run:ID``, ``annotator:ID``, or names).
The tests compare per-text
F1 (the ``text`` average's units), stored with each score (``per_text``; computed on the
fly for a score stored without them).

Numbers come from the reports of the run's scorer (``runs.scorers.run_scorer``: for span
runs ``runs.scored.score_stored``), the one scoring path ``manage.py score``, ``manage.py
results`` and ``POST /api/evaluation/score/`` share (the project's taxonomy; a partial run
scored on the texts it covers, its coverage beside): P/R/F1 per level, the bootstrap 95%
interval of F1 (``f1_low``, ``f1_high``), the share of outputs the parser could not read,
and each label's F1 at levels 1 and 2.

``to_csv`` and ``to_latex`` render a leaderboard (plain functions, no Django).
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence
from typing import Any

from django.db import IntegrityError
from django.db.models import Count

from annotations.importing.formats.cells import csv_writer
from annotations.models import GoldStandard, TaxonomyNode
from evaluation.backends import is_baseline
from evaluation.models import ModelRun, RunScore
from evaluation.runs import comparable, selectors, stored
from evaluation.runs.scorers import run_scorer
from evaluation.scoring import ScoringInputError, normalise_label

LEVELS: tuple[int, ...] = (0, 1, 2)
LABEL_LEVELS: tuple[int, ...] = (2, 1)
SPAN_PROFILE = "paper"
AVERAGE = "text"
ANNOTATOR_NOTE = (
    "annotators are scored with profile paper only (mafalda-2024 scores per-sentence model outputs)"
)
CSV_COLUMNS: tuple[str, ...] = (
    "kind",
    "name",
    "model",
    "backend",
    "variant",
    *(f"L{level}_{metric}" for level in LEVELS for metric in ("P", "R", "F1")),
    "L2_F1_low",
    "L2_F1_high",
    "unparseable",
    "requests",
    "seconds",
    "group",
    "rank",
    "texts",
    "of_texts",
    "next_name",
    "next_L2_F1_diff",
    "next_diff_low",
    "next_diff_high",
    "next_p",
    "next_significant",
)
RANK_LEVEL = "2"


# --- rows -----------------------------------------------------------------------------------


def _levels(report: dict[str, Any] | None) -> dict[str, dict[str, float | None] | None]:
    """{"0": {precision, recall, f1, f1_low, f1_high} | None, ...} of a stored report."""
    scored = (report or {}).get("levels", {})
    levels: dict[str, dict[str, float | None] | None] = {}
    for level in LEVELS:
        data = scored.get(str(level))
        if data is None:
            levels[str(level)] = None
            continue
        low, high = data.get("f1_ci95") or (None, None)
        levels[str(level)] = {
            "precision": data["precision"],
            "recall": data["recall"],
            "f1": data["f1"],
            "f1_low": low,
            "f1_high": high,
        }
    return levels


def _per_label(report: dict[str, Any] | None) -> dict[str, dict[str, float]]:
    scored = (report or {}).get("levels", {})
    return {
        str(level): {
            label: scores["f1"] for label, scores in scored[str(level)]["per_label"].items()
        }
        for level in LABEL_LEVELS
        if str(level) in scored
    }


def _units(report: dict[str, Any] | None) -> dict[int, float] | None:
    """{document id: F1} at the ranking level of a report with ``per_text``."""
    per_text = (report or {}).get("per_text")
    if not per_text or RANK_LEVEL not in per_text["f1"]:
        return None
    return dict(zip(per_text["documents"], per_text["f1"][RANK_LEVEL], strict=True))


def _stored_scores(runs: Sequence[ModelRun], gold: GoldStandard) -> dict[int, dict[str, RunScore]]:
    scores: dict[int, dict[str, RunScore]] = {}
    for score in RunScore.objects.filter(gold_standard=gold, run__in=[run.pk for run in runs]):
        scores.setdefault(score.run_id, {})[score.profile] = score
    return scores


def _score_imported(run: ModelRun) -> dict[str, RunScore] | str:
    """Score an imported run once and store it; the error text when it cannot be scored."""
    from evaluation.runs.services import RunStateError, score_and_store

    try:
        score_and_store(run=run)
    except (ScoringInputError, RunStateError) as error:
        return f"not scored: {error}"
    except IntegrityError:  # scored concurrently by another request: read theirs
        pass
    return {score.profile: score for score in RunScore.objects.filter(run=run)}


def _with_note(row: dict[str, Any], note: str | None) -> dict[str, Any]:
    """Rows carry ``note`` only when there is one."""
    return {**row, "note": note} if note else row


def harness_label(run: ModelRun) -> str | None:
    """ "lm-evaluation-harness 0.4.13" for a run imported from a harness's log, else None."""
    harness = (run.config or {}).get("harness") if run.imported else None
    if not isinstance(harness, dict) or not harness.get("name"):
        return None
    return f"{harness['name']} {harness.get('version') or ''}".strip()


def _run_row(run: ModelRun, report: dict[str, Any] | None, note: str | None) -> dict[str, Any]:
    variant = run.prompt_variant
    row = {
        "kind": "run",
        "id": run.pk,
        "name": run.name,
        "model": run.model_label,
        "backend": run.backend,
        "baseline": is_baseline(run.backend),
        "variant": f"{variant.name} v{variant.version}" if variant else None,
        "imported": run.imported,
        "harness": harness_label(run),
        "status": run.status,
        "levels": _levels(report),
        "unparseable_share": report.get("unreadable_share") if report else None,
        "requests": run.total or run.outputs_count,
        "generated": None if run.imported else run.generated,
        "seconds": None if run.imported else run.generation_seconds,
        "documents": report["texts"] if report else 0,
        "per_label": _per_label(report),
        "_units": _units(report),
    }
    return _with_note(row, note)


def _with_per_text(run: ModelRun, profile: str, report: dict[str, Any]) -> dict[str, Any]:
    """A stored report, recomputed (not stored) when it lacks per-text scores."""
    if "per_text" in report or run.gold_standard is None:
        return report
    return dict(run_scorer(run).score(run, profile=profile).report)


def run_rows(gold: GoldStandard, profile: str) -> list[dict[str, Any]]:
    """Finished runs of the version with a score under ``profile`` (imported ones scored
    on first sight)."""
    runs = list(
        ModelRun.objects.filter(gold_standard=gold, status=ModelRun.Status.DONE)
        .select_related("prompt_variant", "project__taxonomy", "gold_standard__project__taxonomy")
        .annotate(outputs_count=Count("outputs"))
        .order_by("name", "pk")
    )
    scores = _stored_scores(runs, gold)
    rows = []
    for run in runs:
        found: dict[str, RunScore] | str = scores.get(run.pk, {})
        if not found and run.imported:
            found = _score_imported(run)
        if isinstance(found, str):
            rows.append(_run_row(run, None, found))
        elif profile in found:
            rows.append(_run_row(run, _with_per_text(run, profile, found[profile].report), None))
    return rows


def annotator_rows(gold: GoldStandard, profile: str) -> list[dict[str, Any]]:
    """Humans with submitted work on the version (scored under ``paper`` only)."""
    rows = []
    for annotator in selectors.annotators_of(gold):
        if profile == SPAN_PROFILE:
            report: dict[str, Any] | None = selectors.score_stored_annotator_report(
                gold_standard=gold, annotator=annotator
            )
            documents, note = report["texts"], None
        else:
            report, note = None, ANNOTATOR_NOTE
            documents = stored.submitted_annotations(
                gold.project, annotator, gold_standard=gold
            ).count()
        row = {
            "kind": "annotator",
            "id": annotator.pk,
            "name": annotator.get_username(),
            "model": None,
            "backend": None,
            "baseline": False,
            "variant": None,
            "imported": False,
            "harness": None,
            "status": None,
            "levels": _levels(report),
            "unparseable_share": None,
            "requests": None,
            "generated": None,
            "seconds": None,
            "documents": documents,
            "per_label": _per_label(report),
            "_units": _units(report),
        }
        rows.append(_with_note(row, note))
    return rows


def _f1(row: dict[str, Any], level: int = 2) -> float | None:
    scores = row["levels"].get(str(level))
    return scores["f1"] if scores else None


def _label_names(gold: GoldStandard, rows: Iterable[dict[str, Any]]) -> dict[str, list[str]]:
    """Per level, the labels of the rows' per-label tables in taxonomy order (labels the
    taxonomy does not name, e.g. the published table's, after them by name)."""
    nodes = TaxonomyNode.objects.filter(
        taxonomy_id=gold.project.taxonomy_id, level__in=LABEL_LEVELS
    ).order_by("level", "parent__position", "position", "name")
    order: dict[int, list[str]] = {level: [] for level in LABEL_LEVELS}
    for level, name in nodes.values_list("level", "name"):
        order[level].append(normalise_label(name))
    rows = list(rows)
    labels = {}
    for level in LABEL_LEVELS:
        seen = {label for row in rows for label in row["per_label"].get(str(level), {})}
        known = [label for label in order[level] if label in seen]
        labels[str(level)] = known + sorted(seen - set(known))
    return labels


def leaderboard(
    *,
    gold_standard: GoldStandard,
    profile: str = SPAN_PROFILE,
    pair: Sequence[str] | None = None,
) -> dict[str, Any]:
    """The leaderboard of a gold version under ``profile`` (see the module docstring);
    ``pair`` (two row keys or names) adds ``compare``, their paired test
    (``comparable.compare_pair``; ``comparable.CompareError`` for rows it does not have)."""
    gold = gold_standard
    rows = run_rows(gold, profile) + annotator_rows(gold, profile)
    rows.sort(key=lambda row: (_f1(row) is None, -(_f1(row) or 0.0), row["name"], row["kind"]))
    documents = gold.documents.count()
    rows = comparable.compare_rows(
        rows,
        lambda row: row["_units"],
        _f1,
        total_texts=documents,
        texts_of=lambda row: row["documents"],
    )
    found = comparable.compare_pair(rows, pair, lambda row: row["_units"]) if pair else None
    for row in rows:
        del row["_units"]
    board = {
        "gold_standard": {
            "id": gold.pk,
            "version": gold.version,
            "project": gold.project_id,
            "project_name": gold.project.name,
            "documents": documents,
        },
        "profile": profile,
        "average": AVERAGE,
        "levels": list(LEVELS),
        "rows": rows,
        "labels": _label_names(gold, rows),
        "significance": comparable.significance_settings(int(RANK_LEVEL)),
        "compare": found,
    }
    return _with_note(board, ANNOTATOR_NOTE if profile != SPAN_PROFILE else None)


# --- renderers ------------------------------------------------------------------------------


def _number(value: float | None, digits: int = 4) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def _metrics(row: dict[str, Any]) -> list[float | None]:
    values: list[float | None] = []
    for level in LEVELS:
        scores = row["levels"].get(str(level))
        values += [scores[m] if scores else None for m in ("precision", "recall", "f1")]
    level_2 = row["levels"].get("2")
    values += [level_2["f1_low"], level_2["f1_high"]] if level_2 else [None, None]
    return values


def export_kind(row: dict[str, Any]) -> str:
    """What a row is, in the exports: ``human`` (an annotator), ``baseline`` (a run of a
    baseline backend), ``imported`` (published outputs, a harness's log) or ``model``."""
    if row["kind"] == "annotator":
        return "human"
    if row.get("baseline"):
        return "baseline"
    return "imported" if row.get("imported") else "model"


def to_csv(board: dict[str, Any]) -> str:
    """One line per row, columns ``CSV_COLUMNS`` (empty cells for missing numbers); ``kind``
    is ``export_kind``."""
    out = io.StringIO()
    writer = csv_writer(out)
    writer.writerow(CSV_COLUMNS)
    for row in board["rows"]:
        seconds = row["seconds"]
        writer.writerow(
            [
                export_kind(row),
                row["name"],
                row["model"] or "",
                row["backend"] or "",
                row["variant"] or "",
                *(_number(value) for value in _metrics(row)),
                _number(row["unparseable_share"]),
                "" if row["requests"] is None else row["requests"],
                "" if seconds is None else f"{seconds:.1f}",
                *_comparison_cells(row),
            ]
        )
    return out.getvalue()


def _comparison_cells(row: dict[str, Any]) -> list[str | int]:
    """Group, rank, coverage and the paired test against the next row (CSV columns)."""
    test = row.get("next")
    cells: list[str | int] = [
        row["group"],
        "" if row["rank"] is None else row["rank"],
        row["coverage"]["texts"],
        row["coverage"]["of"],
    ]
    if test is None:
        return [*cells, "", "", "", "", "", ""]
    return [
        *cells,
        test["name"],
        _number(test["difference"]),
        _number(test["ci_low"]),
        _number(test["ci_high"]),
        _number(test["p_value"]),
        "yes" if test["significant"] else "no",
    ]


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(char, char) for char in text)


def _partial(row: dict[str, Any]) -> bool:
    return row["coverage"]["texts"] < row["coverage"]["of"]


def _latex_name(row: dict[str, Any]) -> str:
    """The row's escaped name, its coverage when partial, * when it differs from the next."""
    kind = export_kind(row)
    name = row["name"] + (f" ({kind})" if kind in ("human", "baseline") else "")
    coverage = row["coverage"]
    if coverage["texts"] != coverage["of"]:
        name += f" ({coverage['texts']}/{coverage['of']} texts)"
    significant = bool(row.get("next") and row["next"]["significant"])
    return latex_escape(name) + ("$^{*}$" if significant else "")


def to_latex(board: dict[str, Any], digits: int = 3) -> str:
    """A booktabs ``tabular`` in a ``table`` float: system (humans and baselines marked),
    prompt variant, P/R/F1 at each level, the level-2 F1 interval; the best F1 of each level
    among the rows scored on every text in bold (ties too; a partial row, its coverage by its
    name, never is, nor a baseline)."""
    rows = board["rows"]
    cells = [[_number(value, digits) for value in _metrics(row)] for row in rows]
    whole = [
        cell
        for row, cell in zip(rows, cells, strict=True)
        if not _partial(row) and not row.get("baseline")
    ]
    for column in (2, 5, 8):  # F1 of levels 0, 1, 2
        values = [row[column] for row in whole if row[column]]
        best = max(values, key=float) if values else None
        for row in whole:
            if best is not None and row[column] == best:
                row[column] = rf"\textbf{{{row[column]}}}"
    gold = board["gold_standard"]
    lines = [
        r"\begin{table}",
        r"\centering",
        r"\caption{"
        + latex_escape(
            f"{gold['project_name']}, gold standard v{gold['version']} "
            f"({gold['documents']} texts): profile {board['profile']}, "
            f"{board['average']} average; 95% bootstrap interval of level-2 F1. Rows are "
            "ranked only against rows scored on the same texts (groups between rules); "
            "* marks a row significantly different from the next one "
            "(paired test over texts, p < 0.05)."
        )
        + "}",
        r"\begin{tabular}{ll" + "rrr" * len(LEVELS) + "c}",
        r"\toprule",
        " & & "
        + " & ".join(rf"\multicolumn{{3}}{{c}}{{Level {level}}}" for level in LEVELS)
        + r" & \\",
        "".join(rf"\cmidrule(lr){{{3 + 3 * i}-{5 + 3 * i}}}" for i in range(len(LEVELS))),
        "System & Variant & " + " & ".join(["P & R & F1"] * len(LEVELS)) + r" & F1 95\% CI \\",
        r"\midrule",
    ]
    previous_group = rows[0]["group"] if rows else 0
    for row, values in zip(rows, cells, strict=True):
        if row["group"] != previous_group:
            lines.append(r"\midrule")
            previous_group = row["group"]
        low, high = values[9], values[10]
        interval = f"[{low}, {high}]" if low and high else "--"
        metrics = [value or "--" for value in values[:9]]
        name = _latex_name(row)
        variant = row["variant"] or "--"
        lines.append(" & ".join([name, latex_escape(variant), *metrics, interval]) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"
