"""Comparable leaderboard rows: ranked only against rows scored on the same texts.

Plain functions over leaderboard rows (no Django). Each row comes with ``units``, its
per-text scores ``{document id: F1}`` at the ranking level (None when it has no score).

- Rows are grouped by the exact set of texts they were scored on. Groups are ordered by
  their number of texts (most first; ties by their first document id), rows without a
  score in a last group of their own. Each row gets ``group`` (0 first), ``rank`` within its
  group (None without a score) and ``coverage`` ``{"texts": n, "of": N}``.
- Within a group, each ranked row has ``next``: the paired test against the row ranked
  just below it (``scoring.significance``: mean of per-text F1, paired bootstrap interval,
  approximate randomisation p), with ``significant`` at ``ALPHA``.
- Each later group's first row has ``versus``: the same test against the first group's top
  row on the texts both scored (the common part), when they share at least two.
- Each row has a ``key`` (``run:ID``, ``annotator:ID``); ``compare_pair`` gives the same
  test between any two rows (A minus B, each named by key, run id or name) on the texts
  both scored.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from evaluation.scoring.significance import (
    ALPHA,
    PERMUTATIONS,
    RESAMPLES,
    SEED,
    PairedTest,
    RankedRow,
    mark_neighbours,
)

Units = Mapping[int, float]


class CompareError(ValueError):
    """Two rows the leaderboard cannot compare (the message says why)."""


def row_key(row: dict[str, Any]) -> str:
    """``run:ID`` or ``annotator:ID``."""
    return f"{row['kind']}:{row['id']}"


def significance_settings(level: int) -> dict[str, Any]:
    """How the neighbour tests were computed (shown with the board)."""
    return {
        "level": level,
        "statistic": "mean of per-text F1",
        "interval": "paired bootstrap over texts, percentile, 95%",
        "test": "approximate randomisation (paired swaps within texts), two-sided",
        "alpha": ALPHA,
        "resamples": RESAMPLES,
        "permutations": PERMUTATIONS,
        "seed": SEED,
    }


def _comparison(test: PairedTest | None, other: dict[str, Any], texts: int) -> dict | None:
    if test is None:
        return None
    return {
        "kind": other["kind"],
        "id": other["id"],
        "name": other["name"],
        "texts": texts,
        "a": test.a,
        "b": test.b,
        "difference": test.difference,
        "ci_low": test.ci_low,
        "ci_high": test.ci_high,
        "p_value": test.p_value,
        "significant": test.significant(ALPHA),
    }


def _test(upper: dict[str, Any], lower: dict[str, Any], units: dict[int, Units]) -> dict | None:
    """The paired test of two rows on their common texts, as a ``next``/``versus`` entry."""
    [mark] = mark_neighbours(
        [RankedRow("upper", units[id(upper)]), RankedRow("lower", units[id(lower)])], "mean"
    )
    return _comparison(mark.test, lower, mark.common_units)


def _groups(
    rows: list[dict[str, Any]], units: dict[int, Units | None]
) -> list[list[dict[str, Any]]]:
    by_texts: dict[frozenset[int] | None, list[dict[str, Any]]] = {}
    for row in rows:
        scored = units[id(row)]
        key = None if scored is None else frozenset(scored)
        by_texts.setdefault(key, []).append(row)
    keys = sorted(
        (key for key in by_texts if key is not None), key=lambda k: (-len(k), min(k, default=0))
    )
    groups = [by_texts[key] for key in keys]
    if None in by_texts:
        groups.append(by_texts[None])
    return groups


def compare_rows(
    rows: list[dict[str, Any]],
    units_of: Callable[[dict[str, Any]], Units | None],
    score_of: Callable[[dict[str, Any]], float | None],
    *,
    total_texts: int,
    texts_of: Callable[[dict[str, Any]], int],
) -> list[dict[str, Any]]:
    """The rows grouped, ranked and compared (see the module docstring), in display order.

    ``rows`` come sorted best first; ``texts_of`` gives a row's number of scored texts when
    it has no per-text scores (a row with a note)."""
    units = {id(row): units_of(row) for row in rows}
    ordered: list[dict[str, Any]] = []
    groups = _groups(rows, units)
    for index, group in enumerate(groups):
        ranked = [row for row in group if score_of(row) is not None and units[id(row)]]
        for rank, row in enumerate(ranked, start=1):
            below = ranked[rank] if rank < len(ranked) else None
            row.update(rank=rank, next=_test(row, below, units) if below else None)
        for row in group:
            scored = units[id(row)]
            texts = len(scored) if scored is not None else texts_of(row)
            row.setdefault("rank", None)
            row.setdefault("next", None)
            row.update(
                key=row_key(row),
                group=index,
                coverage={"texts": texts, "of": total_texts},
                versus=None,
            )
            ordered.append(row)
    top = next((row for row in groups[0] if row["rank"] == 1), None) if groups else None
    for group in groups[1:]:
        first = next((row for row in group if row["rank"] == 1), None)
        if top is not None and first is not None:
            first["versus"] = _test(first, top, units)
    return ordered


def _find(rows: Sequence[dict[str, Any]], ref: str) -> dict[str, Any]:
    """The row ``ref`` names: its key (a bare number: a run's id), else the name of exactly
    one row."""
    key = f"run:{ref}" if ref.isdigit() else ref
    for row in rows:
        if row_key(row) == key:
            return row
    named = [row for row in rows if row["name"] == ref]
    if len(named) == 1:
        return named[0]
    if named:
        keys = ", ".join(row_key(row) for row in named)
        raise CompareError(f"{ref!r} names several rows; use a key: {keys}")
    keys = ", ".join(row_key(row) for row in rows) or "none"
    raise CompareError(f"no row {ref!r}; rows: {keys}")


def compare_pair(
    rows: Sequence[dict[str, Any]],
    refs: Sequence[str],
    units_of: Callable[[dict[str, Any]], Units | None],
) -> dict[str, Any]:
    """The paired test of row A minus row B (keys or names) on the texts both scored:
    ``{"a", "b", "texts", "test", "significant", "reason"}`` (``reason``: why no test)."""
    if len(refs) != 2:
        raise CompareError("two rows are needed, as A,B")
    a, b = (_find(rows, ref) for ref in refs)
    if a is b:
        raise CompareError(f"two different rows are needed, not {row_key(a)!r} twice")
    units = units_of(a), units_of(b)
    common, test, reason = 0, None, None
    if units[0] is None or units[1] is None:
        reason = "a row has no per-text scores"
    else:
        [mark] = mark_neighbours(
            [RankedRow(row_key(a), units[0]), RankedRow(row_key(b), units[1])], "mean"
        )
        common, test = mark.common_units, mark.test
        reason = None if test else "fewer than two common texts"
    return {
        "a": {"key": row_key(a), "name": a["name"]},
        "b": {"key": row_key(b), "name": b["name"]},
        "texts": common,
        "test": test.to_dict() if test else None,
        "significant": bool(test and test.significant(ALPHA)),
        "alpha": ALPHA,
        "reason": reason,
    }
