"""The item results as CSV and LaTeX (plain functions of the board, no Django).

CSV: one line per row and profile: who (``kind``: ``model``, ``baseline``, ``imported`` or
``human``), the profile, its group, rank and coverage, each
task's primary figure (and a free-text field's judge mean), each skill, the overall, then
every figure of the board: ``FIELD:METRIC`` for a single figure, ``FIELD:METRIC:LABEL`` for a
per-label one, ``FIELD:predicted:LABEL`` and ``FIELD:gold:LABEL`` for the label counts.

LaTeX: per profile, a booktabs table of the rows (humans and baselines marked) with every
single figure (the best of each column in bold, never a baseline's) and the overall, and a
table per per-label figure (labels down, rows across).
"""

from __future__ import annotations

import io
from typing import Any

from annotations.importing.formats.cells import csv_writer
from evaluation.runs.leaderboard import latex_escape


def _number(value: float | None, digits: int = 4) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def figure_columns(board: dict[str, Any]) -> list[tuple[str, str, str | None]]:
    """``(column name, figure key, label)`` of every figure and label count column."""
    columns: list[tuple[str, str, str | None]] = []
    for figure in board["figures"]:
        key = f"{figure['field']}:{figure['metric']}"
        if figure["kind"] == "scalar":
            columns.append((key, key, None))
        else:
            columns += [(f"{key}:{label}", key, label) for label in figure["labels"]]
    for bias in board["label_bias"]:
        for side in ("predicted", "gold"):
            key = f"{bias['field']}:{side}"
            columns += [(f"{key}:{label}", key, label) for label in bias["labels"]]
    return columns


def figure_values(board: dict[str, Any]) -> dict[tuple[str, str, str], Any]:
    """``(row key, profile, figure key) -> value or {label: value}``."""
    values: dict[tuple[str, str, str], Any] = {}
    for figure in board["figures"]:
        key = f"{figure['field']}:{figure['metric']}"
        for entry in figure["rows"]:
            found = entry.get("values", entry.get("value"))
            values[(entry["row"], entry["profile"], key)] = found
    for bias in board["label_bias"]:
        for entry in bias["rows"]:
            for side in ("predicted", "gold"):
                key = f"{bias['field']}:{side}"
                values[(entry["row"], entry["profile"], key)] = entry[side]
    return values


def _figure_cell(value: Any, label: str | None, count: bool) -> str:
    if label is not None:
        value = (value or {}).get(label, 0 if count else None)
    if value is None:
        return ""
    return str(int(value)) if count else _number(float(value))


def _task_cells(board: dict[str, Any], row: dict[str, Any]) -> list[str]:
    cells = []
    for task in board["tasks"]:
        cell = row["tasks"].get(task["field"]) or {}
        cells.append(_number(cell.get("value")))
        if task["kind"] == "free-text":
            cells.append(_number((cell.get("judge") or {}).get("mean")))
    return cells


def export_kind(row: dict[str, Any]) -> str:
    """``baseline`` for a baseline backend's run, else the row's kind (model, imported, human)."""
    return "baseline" if row.get("baseline") else row["kind"]


def to_csv(board: dict[str, Any]) -> str:
    """See the module docstring."""
    out = io.StringIO()
    writer = csv_writer(out)
    task_columns: list[str] = []
    for task in board["tasks"]:
        task_columns.append(task["field"])
        if task["kind"] == "free-text":
            task_columns.append(f"{task['field']}_judge")
    extra = figure_columns(board)
    values = figure_values(board)
    writer.writerow(
        [
            *("kind", "name", "model", "backend", "variant", "variant_kind", "shots"),
            *("profile", "subset", "group", "rank", "items", "of_items"),
            *task_columns,
            *(f"skill_{skill}" for skill in board["skills"]),
            f"overall_{board['aggregate']}",
            *(name for name, _, _ in extra),
        ]
    )
    subset = (board.get("subset") or {}).get("name", "")
    for row in board["rows"]:
        variant = row["variant"] or {}
        coverage = row["coverage"]
        writer.writerow(
            [
                export_kind(row),
                row["name"],
                row["model"] or "",
                row["backend"] or "",
                variant.get("name", ""),
                variant.get("kind", ""),
                variant.get("shots", ""),
                *(row["profile"], subset, row["group"], row["rank"]),
                *(coverage["items"], coverage["of"]),
                *_task_cells(board, row),
                *(_number(row["skills"].get(skill)) for skill in board["skills"]),
                _number(row["overall"]),
                *(
                    _figure_cell(
                        values.get((row["key"], row["profile"], key)),
                        label,
                        key.endswith((":predicted", ":gold")),
                    )
                    for _, key, label in extra
                ),
            ]
        )
    return out.getvalue()


# --- LaTeX ----------------------------------------------------------------------------------


def _bold_best(cells: list[list[str]], column: int, complete: list[bool]) -> None:
    """Bold the best figure of a column among the rows scored on every item (``complete``):
    a partial row is never the best."""
    ranked = [row for row, whole in zip(cells, complete, strict=True) if whole]
    numbers = [float(row[column]) for row in ranked if row[column] not in ("", "--")]
    if not numbers:
        return
    best = max(numbers)
    for row in ranked:
        if row[column] not in ("", "--") and float(row[column]) == best:
            row[column] = rf"\textbf{{{row[column]}}}"


def _table(caption: str, header: list[str], body: list[list[str]], align: str) -> list[str]:
    return [
        r"\begin{table}",
        r"\centering",
        r"\caption{" + latex_escape(caption) + "}",
        r"\begin{tabular}{" + align + "}",
        r"\toprule",
        " & ".join(latex_escape(cell) for cell in header) + r" \\",
        r"\midrule",
        *(" & ".join(row) + r" \\" for row in body),
        r"\bottomrule",
        r"\end{tabular}",
        r"\end{table}",
    ]


def _who(row: dict[str, Any]) -> str:
    kind = export_kind(row)
    name = row["name"] + (f" ({kind})" if kind in ("human", "baseline") else "")
    return latex_escape(f"{name}, {row['variant_label']}")


def _profile_tables(board: dict[str, Any], profile: str, digits: int) -> list[str]:
    rows = [row for row in board["rows"] if row["profile"] == profile]
    values = figure_values(board)
    scalars = [f for f in board["figures"] if f["kind"] == "scalar"]
    keys = [f"{f['field']}:{f['metric']}" for f in scalars]
    body = []
    for row in rows:
        cells = [_who(row), f"{row['group']}.{row['rank']}"]
        cells.append(f"{row['coverage']['items']}/{row['coverage']['of']}")
        for key in keys:
            value = values.get((row["key"], profile, key))
            cells.append("--" if value is None else _number(value, digits))
        cells.append("--" if row["overall"] is None else _number(row["overall"], digits))
        body.append(cells)
    # a partial row or a baseline is never a column's best
    complete = [
        row["coverage"]["items"] >= row["coverage"]["of"] and not row.get("baseline")
        for row in rows
    ]
    for column in range(3, 3 + len(keys) + 1):
        _bold_best(body, column, complete)
    subset = (board.get("subset") or {}).get("name")
    where = f", subset {subset}" if subset else ""
    caption = (
        f"{board['project']['name']}: profile {profile}{where}. "
        f"Rank: group.rank (groups: rows scored on the same items). "
        f"{board['overall_basis']['text']}"
    )
    header = ["System", "Rank", "Items", *keys, "Overall"]
    lines = _table(caption, header, body, "llr" + "r" * (len(keys) + 1))
    for figure in board["figures"]:
        if figure["kind"] != "per-label" or not rows:
            continue
        key = f"{figure['field']}:{figure['metric']}"
        table = []
        for label in figure["labels"]:
            cells = [latex_escape(label)]
            for row in rows:
                found = (values.get((row["key"], profile, key)) or {}).get(label)
                cells.append("--" if found is None else _number(found, digits))
            table.append(cells)
        caption = f"{board['project']['name']}: {key}, profile {profile}{where}."
        header = ["Label", *(f"{row['name']} ({row['variant_label']})" for row in rows)]
        lines += _table(caption, header, table, "l" + "r" * len(rows))
    return lines


def to_latex(board: dict[str, Any], digits: int = 3) -> str:
    """See the module docstring."""
    lines: list[str] = []
    for profile in board["profiles"]:
        if any(row["profile"] == profile for row in board["rows"]):
            lines += _profile_tables(board, profile, digits)
    return "\n".join(lines) + "\n"
