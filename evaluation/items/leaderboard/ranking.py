"""Comparable rows: ranked only against rows scored on the same items, with paired tests.

- **coverage**: a row's items are those any of its figures was scored on (a launched run:
  the first ``limit`` items that have an answer key, items without an output counting as
  wrong; an imported run: the items it has outputs for; an annotator: the items they
  answered); ``coverage`` gives their number and the number of
  items with an answer key on the board (the project, or the subset);
- **groups**: rows of one profile scored on the same items form a group, ranked within it
  by ``overall`` (best first, rows without one last, then by name); groups are listed by
  profile (``definition`` first), then widest coverage first. A run covering part of the
  items is listed apart with the rows scored on the same part, never ranked among rows
  scored on other items; ``group`` and ``rank`` say where a row stands;
- **neighbour tests**: within a group, each row against the next one down, per task on its
  primary figure: the paired bootstrap interval of the difference and the approximate
  randomisation p-value (``evaluation.scoring.significance``) over the items both scored.
  Units: the one-item figure for a mean (accuracy, mean S: the test compares means, so a
  summed S is tested through its mean on the same items), the fallacious class's TP/FP/FN
  for detection F1 (pooled F1, an empty class counting 0 as the item report does). Macro-F1,
  span F1 and BERTScore have no per-item units: no test. ``vs_next`` on the cell holds the
  test, ``significant`` marks p < 0.05.
- **any two rows** (``compare``): the same test between two rows named by key, name, or
  the name or id of a run behind the row (A minus B), per profile and task, on the items
  both scored, or the reason there is none.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from evaluation.items.leaderboard.answers import DEFAULT_PROFILE, MEAN_METRICS, QueryError
from evaluation.scoring.significance import ALPHA, RankedRow, mark_neighbours

#: The figure of the item reports' F1 counts when a class is empty (as ``score_answers``).
EMPTY_F1 = 0.0


def row_items(row: dict[str, Any]) -> frozenset[int]:
    items: set[int] = set()
    for answers in row["_answers"].values():
        items |= answers.scored_ids()
    return frozenset(items)


def _sort_key(row: dict[str, Any]) -> tuple[Any, ...]:
    overall = row["overall"]
    return (overall is None, -(overall or 0.0), row["kind"] == "human", row["name"], row["key"])


def rank(rows: list[dict[str, Any]], profiles: Sequence[str], total: int) -> list[dict[str, Any]]:
    """The rows in board order, each with ``coverage``, ``group`` and ``rank``."""
    order = {name: n for n, name in enumerate(profiles)}
    groups: dict[tuple[str, frozenset[int]], list[dict[str, Any]]] = {}
    for row in rows:
        items = row_items(row)
        row["coverage"] = {"items": len(items), "of": total, "complete": len(items) >= total}
        groups.setdefault((row["profile"], items), []).append(row)
    ranked = sorted(
        groups.items(),
        key=lambda pair: (
            order.get(pair[0][0], len(order)),
            pair[0][0] != DEFAULT_PROFILE,
            -len(pair[0][1]),
            min(_sort_key(row) for row in pair[1]),
        ),
    )
    board: list[dict[str, Any]] = []
    number: dict[str, int] = {}
    for (profile, _items), members in ranked:
        number[profile] = number.get(profile, 0) + 1
        for position, row in enumerate(sorted(members, key=_sort_key), start=1):
            row["group"], row["rank"] = number[profile], position
            board.append(row)
    return board


def _statistic(metric: str | None, kind: str) -> str | None:
    if metric in MEAN_METRICS:
        return "mean"
    if metric == "f1" and kind == "detection":
        return "f1"
    return None


def neighbour_tests(rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> None:
    """Sets ``vs_next`` on each task cell of each row that has a next row in its group."""
    by_group: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for row in rows:
        by_group.setdefault((row["profile"], row["group"]), []).append(row)
    for members in by_group.values():
        for name in columns:
            _test_column(members, name)


def _pair(
    first: dict[str, Any], second: dict[str, Any], name: str
) -> tuple[dict[str, Any] | None, str | None]:
    """The paired test of two rows on task ``name`` over the items both scored, as a cell's
    ``vs_next`` entry; else ``None`` and why there is no test."""
    cells = first["tasks"].get(name), second["tasks"].get(name)
    answers = first["_answers"].get(name), second["_answers"].get(name)
    if None in cells or None in answers:
        return None, "a row has no figure for this task"
    metric = cells[0]["metric"]
    statistic = _statistic(metric, answers[0].kind)
    if metric != cells[1]["metric"]:
        return None, "the rows' primary figures differ"
    if statistic is None:
        return None, f"{metric} has no per-item units"
    units = [a.units(metric, first["profile"]) for a in answers]
    if units[0] is None or units[1] is None:
        return None, f"{metric} has no per-item units under {first['profile']}"
    [mark] = mark_neighbours(
        [RankedRow(first["key"], units[0]), RankedRow(second["key"], units[1])],
        statistic,  # type: ignore[arg-type]
        empty=EMPTY_F1,
    )
    entry = {
        "row": second["key"],
        "common_items": mark.common_units,
        "significant": mark.significant,
        "alpha": ALPHA,
        "test": mark.test.to_dict() if mark.test else None,
    }
    return entry, None if mark.test else "fewer than two common items"


def _test_column(members: Sequence[dict[str, Any]], name: str) -> None:
    for upper, lower in zip(members, members[1:], strict=False):
        entry, _why = _pair(upper, lower, name)
        if entry is not None:
            upper["tasks"][name]["vs_next"] = entry


def _run_refs(row: dict[str, Any]) -> set[str]:
    """The names and ids of the runs behind a row's cells (a model row's)."""
    refs: set[str] = set()
    for cell in row["tasks"].values():
        if cell.get("run") is not None:
            refs.update({str(cell["run"]), f"run:{cell['run']}"})
        if cell.get("run_name"):
            refs.add(cell["run_name"])
    return refs


def resolve_row(rows: Sequence[dict[str, Any]], ref: str) -> str:
    """The key of the row ``ref`` names: a row key, else the name of exactly one party,
    else the name or id (``ID`` or ``run:ID``) of a run behind exactly one row."""
    keys = list(dict.fromkeys(row["key"] for row in rows))
    if ref in keys:
        return ref
    named = list(dict.fromkeys(row["key"] for row in rows if row["name"] == ref))
    if not named:
        named = list(dict.fromkeys(row["key"] for row in rows if ref in _run_refs(row)))
    if len(named) == 1:
        return named[0]
    if named:
        raise QueryError(f"compare: {ref!r} names several rows; use a key: {', '.join(named)}")
    raise QueryError(f"compare: no row {ref!r}; rows: {', '.join(keys) or 'none'}")


def compare(
    rows: Sequence[dict[str, Any]], columns: Sequence[str], refs: Sequence[str]
) -> dict[str, Any]:
    """The paired test between two rows (A minus B) per profile and task, on the items both
    scored; each entry without a test says why (``reason``)."""
    if len(refs) != 2:
        raise QueryError("compare: two rows are needed, as A,B")
    a, b = (resolve_row(rows, ref) for ref in refs)
    if a == b:
        raise QueryError(f"compare: two different rows are needed, not {a!r} twice")
    by_profile: dict[str, dict[str, dict[str, Any]]] = {}
    for row in rows:
        by_profile.setdefault(row["profile"], {})[row["key"]] = row
    tests = []
    for profile, found in by_profile.items():
        if a not in found or b not in found:
            continue
        for name in columns:
            entry, reason = _pair(found[a], found[b], name)
            cells = found[a]["tasks"].get(name), found[b]["tasks"].get(name)
            tests.append(
                {
                    "profile": profile,
                    "field": name,
                    "metric": (cells[0] or cells[1] or {}).get("metric"),
                    "a": (cells[0] or {}).get("value"),
                    "b": (cells[1] or {}).get("value"),
                    "common_items": entry["common_items"] if entry else 0,
                    "significant": bool(entry and entry["significant"]),
                    "test": entry["test"] if entry else None,
                    "reason": reason,
                }
            )
    names = {row["key"]: row["name"] for row in rows}
    return {
        "a": {"key": a, "name": names[a]},
        "b": {"key": b, "name": names[b]},
        "alpha": ALPHA,
        "tests": tests,
    }
