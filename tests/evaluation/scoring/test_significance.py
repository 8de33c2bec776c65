"""Paired significance between systems: equal to scipy called directly on the same scores."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from evaluation.scoring.significance import (
    RankedRow,
    counts_from_tp_fp_fn,
    mark_neighbours,
    paired_f1_test,
    paired_mean_test,
    paired_test,
)
from tests.support.significance import scipy_paired


def _scores(seed: int, n: int, shift: float) -> tuple[list[float], list[float]]:
    rng = np.random.default_rng(seed)
    a = rng.random(n)
    b = np.clip(a - shift + rng.normal(0, 0.15, n), 0, 1)
    return a.tolist(), b.tolist()


def test_mean_test_equals_scipy_bootstrap_and_permutation_test():
    a, b = _scores(3, 40, 0.1)
    test = paired_mean_test(a, b, resamples=1500, permutations=1500, seed=7)

    low, high, p = scipy_paired(a, b, resamples=1500, seed=7)
    assert test.units == 40
    assert test.difference == pytest.approx(np.mean(a) - np.mean(b))
    assert (test.a, test.b) == (pytest.approx(np.mean(a)), pytest.approx(np.mean(b)))
    assert (test.ci_low, test.ci_high) == (low, high)
    assert test.p_value == p
    assert test.significant()
    assert test.ci_low > 0


def _f1(counts) -> float:
    p_sum, predicted, r_sum, required = (sum(column) for column in zip(*counts, strict=True))
    precision = p_sum / predicted if predicted else 1.0
    recall = r_sum / required if required else 1.0
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


# Per-text TP/FP/FN of two systems on six texts; every text has a TP, so every resample has
# nonzero precision and recall (the direct statistic below needs no zero-division rule).
TEXTS_A = [(3, 0, 1), (2, 1, 0), (4, 0, 0), (1, 2, 2), (5, 1, 0), (1, 0, 1)]
TEXTS_B = [(1, 2, 3), (2, 1, 0), (1, 3, 3), (1, 1, 2), (2, 2, 3), (1, 1, 2)]


def test_f1_test_recomputes_pooled_f1_per_resample_like_scipy():
    a = [counts_from_tp_fp_fn(*text) for text in TEXTS_A]
    b = [counts_from_tp_fp_fn(*text) for text in TEXTS_B]
    test = paired_f1_test(a, b, resamples=999, permutations=999, seed=2)

    assert test.a == pytest.approx(2 * 16 / (2 * 16 + 4 + 4))  # 2TP / (2TP + FP + FN)
    assert test.b == pytest.approx(2 * 8 / (2 * 8 + 10 + 13))
    assert test.difference == pytest.approx(test.a - test.b)

    def direct_f1(p_sum, predicted, r_sum, required, axis=-1):
        p_sum, predicted, r_sum, required = (
            np.sum(column, axis=axis) for column in (p_sum, predicted, r_sum, required)
        )
        precision, recall = p_sum / predicted, r_sum / required  # both > 0 here (see below)
        return 2 * precision * recall / (precision + recall)

    def statistic(*columns, axis=-1):
        return direct_f1(*columns[:4], axis=axis) - direct_f1(*columns[4:], axis=axis)

    columns = (*np.array(a).T, *np.array(b).T)
    interval = stats.bootstrap(
        columns,
        statistic,
        paired=True,
        vectorized=True,
        n_resamples=999,
        method="percentile",
        random_state=np.random.default_rng(2),
    ).confidence_interval
    assert (test.ci_low, test.ci_high) == (
        pytest.approx(interval.low),
        pytest.approx(interval.high),
    )

    # 2**6 = 64 <= 999 swaps: the randomisation is exact; enumerate every swap by hand.
    observed = _f1(a) - _f1(b)
    extreme = 0
    for swaps in itertools.product((False, True), repeat=6):
        x = [bb if swap else aa for aa, bb, swap in zip(a, b, swaps, strict=True)]
        y = [aa if swap else bb for aa, bb, swap in zip(a, b, swaps, strict=True)]
        extreme += abs(_f1(x) - _f1(y)) >= abs(observed) - 1e-12
    assert test.p_value == pytest.approx(extreme / 64)


def test_f1_test_empty_denominators_follow_the_given_convention():
    nothing = [(0.0, 0.0, 0.0, 0.0)] * 3
    some = [counts_from_tp_fp_fn(1, 0, 0)] * 3
    assert paired_f1_test(nothing, some).a == 1.0
    assert paired_f1_test(nothing, some, empty=0.0).a == 0.0


def test_paired_test_needs_two_aligned_units():
    with pytest.raises(ValueError, match="at least two"):
        paired_mean_test([0.5], [0.4])
    with pytest.raises(ValueError, match="same units"):
        paired_mean_test([0.5, 0.2], [0.4, 0.1, 0.3])
    with pytest.raises(ValueError, match="unknown statistic"):
        paired_test("median", [0.5, 0.2], [0.4, 0.1])  # type: ignore[arg-type]


def test_neighbour_marks_compare_each_row_with_the_next_on_common_units():
    strong, weak = _scores(5, 30, 0.3)
    close = [score + (0.01 if index % 2 else -0.01) for index, score in enumerate(weak)]
    rows = [
        RankedRow("strong", dict(enumerate(strong))),
        RankedRow("weak", dict(enumerate(weak))),
        RankedRow("close", {index: close[index] for index in reversed(range(30))}),
        RankedRow("one-text", {0: 0.1, 99: 0.3}),
    ]
    marks = mark_neighbours(rows, "mean", permutations=999, resamples=999)

    assert [(mark.upper, mark.lower) for mark in marks] == [
        ("strong", "weak"),
        ("weak", "close"),
        ("close", "one-text"),
    ]
    assert marks[0].significant and marks[0].test.p_value < 0.05
    direct = paired_mean_test(strong, weak, permutations=999, resamples=999)
    assert marks[0].test == direct
    assert not marks[1].significant and marks[1].test.p_value >= 0.05
    assert marks[1].common_units == 30
    assert marks[2].common_units == 1 and marks[2].test is None and not marks[2].significant
    assert marks[0].to_dict()["test"]["ci"] == [direct.ci_low, direct.ci_high]
