"""Paired significance between two systems scored on the same units (texts or items).

Pure Python with numpy and scipy (scipy is imported when a test runs, not at start).

Two statistics, both compared as system A minus system B over the *same* units:

- ``mean``: each unit has one score (the per-text F1 of the ``text`` average, an item's
  score); the figure is their mean.
- ``f1``: F1 is a corpus-level figure, not a mean of unit scores, so each unit contributes
  its counts ``(precision_sum, predicted, recall_sum, required)`` (for exact matching:
  ``(TP, TP + FP, TP, TP + FN)``; :func:`counts_from_tp_fp_fn`). Every resample and every
  permutation recomputes F1 from the summed counts of the units it holds, so the test
  resamples texts, never spans, and keeps a text's spans together. A zero denominator makes
  precision or recall ``empty`` (1.0, the span scorer's convention; the item detection
  report uses 0.0).

The interval is ``scipy.stats.bootstrap`` with ``paired=True`` (units resampled with
replacement, both systems with the same draw), percentile method, seeded. The p-value is
two-sided approximate randomisation, ``scipy.stats.permutation_test`` with
``permutation_type="samples"``: within each unit the two systems' scores are swapped at
random (exact when ``2**n`` is at most the number of permutations). Fewer than two common
units give no test.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

Statistic = Literal["mean", "f1"]
UnitCounts = tuple[float, float, float, float]  # precision_sum, predicted, recall_sum, required
UnitScore = float | UnitCounts

STATISTICS: tuple[str, ...] = ("mean", "f1")
ALPHA = 0.05
RESAMPLES = 2000
PERMUTATIONS = 2000
SEED = 0


def counts_from_tp_fp_fn(tp: int, fp: int, fn: int) -> UnitCounts:
    """A unit's F1 counts from its true positives, false positives and false negatives."""
    return (float(tp), float(tp + fp), float(tp), float(tp + fn))


@dataclass(frozen=True)
class PairedTest:
    """A minus B on ``units`` common units: the observed difference, its interval, p."""

    statistic: str
    units: int
    a: float
    b: float
    difference: float
    ci_low: float
    ci_high: float
    p_value: float
    confidence: float
    resamples: int
    permutations: int
    seed: int

    def significant(self, alpha: float = ALPHA) -> bool:
        return self.p_value < alpha

    def to_dict(self) -> dict[str, Any]:
        return {
            "statistic": self.statistic,
            "units": self.units,
            "a": self.a,
            "b": self.b,
            "difference": self.difference,
            "ci": [self.ci_low, self.ci_high],
            "p_value": self.p_value,
            "confidence": self.confidence,
            "resamples": self.resamples,
            "permutations": self.permutations,
            "seed": self.seed,
        }


def pooled_f1(
    p_sum: np.ndarray,
    predicted: np.ndarray,
    r_sum: np.ndarray,
    required: np.ndarray,
    *,
    axis: int = -1,
    empty: float = 1.0,
) -> np.ndarray:
    """F1 of counts summed along ``axis`` (vectorised over any other axes)."""
    p_sum, predicted, r_sum, required = (
        np.sum(column, axis=axis) for column in (p_sum, predicted, r_sum, required)
    )
    shape = np.shape(predicted)
    precision = np.divide(p_sum, predicted, out=np.full(shape, empty), where=predicted > 0)
    recall = np.divide(r_sum, required, out=np.full(shape, empty), where=required > 0)
    total = precision + recall
    return np.divide(2 * precision * recall, total, out=np.zeros(shape), where=total > 0)


def mean_figure(scores: np.ndarray, axis: int = -1) -> np.ndarray:
    """Mean of the unit scores along ``axis``."""
    return np.mean(scores, axis=axis)


def f1_figure(empty: float = 1.0) -> Callable[..., np.ndarray]:
    """F1 of four count columns summed along ``axis``."""

    def figure(*columns: np.ndarray, axis: int = -1) -> np.ndarray:
        return pooled_f1(*columns, axis=axis, empty=empty)

    return figure


def difference_of(figure: Callable[..., np.ndarray], columns: int) -> Callable[..., np.ndarray]:
    """Statistic of A's ``columns`` columns followed by B's: figure(A) - figure(B)."""

    def statistic(*data: np.ndarray, axis: int = -1) -> np.ndarray:
        return figure(*data[:columns], axis=axis) - figure(*data[columns:], axis=axis)

    return statistic


def _permutation_p(
    a: np.ndarray, b: np.ndarray, statistic: Callable[..., np.ndarray], *, n: int, seed: int
) -> float:
    """Two-sided approximate randomisation p of ``statistic`` on ``a`` against ``b``.

    ``a`` and ``b`` are (columns, units) arrays; the permuted samples are unit indices into
    the stacked table, so swapping A's and B's values of a unit swaps all its columns.
    """
    from scipy import stats

    table = np.concatenate([a, b], axis=1)
    units = a.shape[1]

    def indexed(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
        x, y = np.moveaxis(x, axis, -1), np.moveaxis(y, axis, -1)
        return statistic(*table[:, x], *table[:, y], axis=-1)

    result = stats.permutation_test(
        (np.arange(units), np.arange(units) + units),
        indexed,
        permutation_type="samples",
        vectorized=True,
        n_resamples=n,
        alternative="two-sided",
        random_state=np.random.default_rng(seed),
    )
    return float(result.pvalue)


def _paired_test(
    name: str,
    a: np.ndarray,
    b: np.ndarray,
    figure: Callable[..., np.ndarray],
    *,
    resamples: int,
    permutations: int,
    seed: int,
    confidence: float,
) -> PairedTest:
    """The paired test of ``figure`` on (columns, units) arrays ``a`` and ``b``."""
    from scipy import stats

    if a.shape != b.shape:
        raise ValueError(f"a paired test needs the same units: {a.shape[1]} against {b.shape[1]}")
    units = a.shape[1]
    if units < 2:
        raise ValueError(f"a paired test needs at least two common units, got {units}")
    statistic = difference_of(figure, a.shape[0])
    interval = stats.bootstrap(
        (*a, *b),
        statistic,
        paired=True,
        vectorized=True,
        n_resamples=resamples,
        confidence_level=confidence,
        method="percentile",
        random_state=np.random.default_rng(seed),
    ).confidence_interval
    value_a, value_b = float(figure(*a)), float(figure(*b))
    return PairedTest(
        statistic=name,
        units=units,
        a=value_a,
        b=value_b,
        difference=float(statistic(*a, *b)),
        ci_low=float(interval.low),
        ci_high=float(interval.high),
        p_value=_permutation_p(a, b, statistic, n=permutations, seed=seed),
        confidence=confidence,
        resamples=resamples,
        permutations=permutations,
        seed=seed,
    )


def paired_mean_test(
    a: Sequence[float],
    b: Sequence[float],
    *,
    resamples: int = RESAMPLES,
    permutations: int = PERMUTATIONS,
    seed: int = SEED,
    confidence: float = 0.95,
) -> PairedTest:
    """Paired test of mean(A) - mean(B); ``a[i]`` and ``b[i]`` score the same unit."""
    return _paired_test(
        "mean",
        np.asarray(a, dtype=np.float64).reshape(1, -1),
        np.asarray(b, dtype=np.float64).reshape(1, -1),
        mean_figure,
        resamples=resamples,
        permutations=permutations,
        seed=seed,
        confidence=confidence,
    )


def paired_f1_test(
    a: Sequence[Sequence[float]],
    b: Sequence[Sequence[float]],
    *,
    empty: float = 1.0,
    resamples: int = RESAMPLES,
    permutations: int = PERMUTATIONS,
    seed: int = SEED,
    confidence: float = 0.95,
) -> PairedTest:
    """Paired test of pooled F1(A) - F1(B) from per-unit counts (see the module docstring)."""
    return _paired_test(
        "f1",
        _count_columns(a, "a"),
        _count_columns(b, "b"),
        f1_figure(empty),
        resamples=resamples,
        permutations=permutations,
        seed=seed,
        confidence=confidence,
    )


def _count_columns(counts: Sequence[Sequence[float]], where: str) -> np.ndarray:
    array = np.asarray(counts, dtype=np.float64)
    if array.ndim != 2 or array.shape[1] != 4:
        raise ValueError(f"{where}: expected one (p_sum, predicted, r_sum, required) per unit")
    return array.T


@dataclass(frozen=True)
class RankedRow:
    """A leaderboard row: its key and its score per unit id (a float, or F1 counts)."""

    key: str
    units: Mapping[Hashable, UnitScore]


@dataclass(frozen=True)
class NeighbourMark:
    """The paired test between a row and the next one down, on their common units."""

    upper: str
    lower: str
    common_units: int
    test: PairedTest | None
    significant: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "upper": self.upper,
            "lower": self.lower,
            "common_units": self.common_units,
            "test": self.test.to_dict() if self.test else None,
            "significant": self.significant,
        }


def paired_test(
    statistic: Statistic,
    a: Sequence[UnitScore],
    b: Sequence[UnitScore],
    *,
    empty: float = 1.0,
    resamples: int = RESAMPLES,
    permutations: int = PERMUTATIONS,
    seed: int = SEED,
) -> PairedTest:
    """The paired test of ``statistic`` (``mean`` or ``f1``) between aligned unit scores."""
    options = {"resamples": resamples, "permutations": permutations, "seed": seed}
    if statistic == "mean":
        return paired_mean_test(a, b, **options)  # type: ignore[arg-type]
    if statistic == "f1":
        return paired_f1_test(a, b, empty=empty, **options)  # type: ignore[arg-type]
    raise ValueError(f"unknown statistic {statistic!r}; available: {', '.join(STATISTICS)}")


def mark_neighbours(
    rows: Sequence[RankedRow],
    statistic: Statistic,
    *,
    alpha: float = ALPHA,
    empty: float = 1.0,
    resamples: int = RESAMPLES,
    permutations: int = PERMUTATIONS,
    seed: int = SEED,
) -> list[NeighbourMark]:
    """For rows in rank order, the test between each row and the next, on the units both
    scored (in the upper row's order); fewer than two common units: no test, not marked."""
    marks = []
    for upper, lower in zip(rows, rows[1:], strict=False):
        common = [unit for unit in upper.units if unit in lower.units]
        test = None
        if len(common) >= 2:
            test = paired_test(
                statistic,
                [upper.units[unit] for unit in common],
                [lower.units[unit] for unit in common],
                empty=empty,
                resamples=resamples,
                permutations=permutations,
                seed=seed,
            )
        marks.append(
            NeighbourMark(
                upper=upper.key,
                lower=lower.key,
                common_units=len(common),
                test=test,
                significant=bool(test and test.significant(alpha)),
            )
        )
    return marks
