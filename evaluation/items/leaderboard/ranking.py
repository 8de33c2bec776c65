"""Comparable rows: ranked only against rows scored on the same items, with paired tests.

- **coverage**: a row's items are those any of its figures was scored on (a run: the first
  ``limit`` items that have an answer key, items without an output counting as wrong; an
  annotator: the items they answered); ``coverage`` gives their number and the number of
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
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from evaluation.items.leaderboard.answers import DEFAULT_PROFILE, MEAN_METRICS
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


def _test_column(members: Sequence[dict[str, Any]], name: str) -> None:
    for upper, lower in zip(members, members[1:], strict=False):
        cells = upper["tasks"].get(name), lower["tasks"].get(name)
        answers = upper["_answers"].get(name), lower["_answers"].get(name)
        if None in cells or None in answers:
            continue
        statistic = _statistic(cells[0]["metric"], answers[0].kind)
        if statistic is None or cells[0]["metric"] != cells[1]["metric"]:
            continue
        units = [a.units(cells[0]["metric"], upper["profile"]) for a in answers]
        if units[0] is None or units[1] is None:
            continue
        [mark] = mark_neighbours(
            [RankedRow(upper["key"], units[0]), RankedRow(lower["key"], units[1])],
            statistic,  # type: ignore[arg-type]
            empty=EMPTY_F1,
        )
        cells[0]["vs_next"] = {
            "row": lower["key"],
            "common_items": mark.common_units,
            "significant": mark.significant,
            "alpha": ALPHA,
            "test": mark.test.to_dict() if mark.test else None,
        }
