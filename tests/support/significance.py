"""scipy called directly on paired per-unit scores: the reference the platform's paired tests
(``evaluation.scoring.significance``) must equal."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import stats


def mean_difference(x, y, axis=-1):
    return np.mean(x, axis=axis) - np.mean(y, axis=axis)


def scipy_paired(
    a: Sequence[float], b: Sequence[float], *, resamples: int = 2000, seed: int = 0
) -> tuple[float, float, float]:
    """The paired bootstrap interval (percentile) and the approximate randomisation p-value of
    mean(a) - mean(b), as scipy gives them with ``resamples`` draws from ``seed``."""
    samples = (np.asarray(a, dtype=float), np.asarray(b, dtype=float))
    interval = stats.bootstrap(
        samples,
        mean_difference,
        paired=True,
        vectorized=True,
        n_resamples=resamples,
        method="percentile",
        random_state=np.random.default_rng(seed),
    ).confidence_interval
    p = stats.permutation_test(
        samples,
        mean_difference,
        permutation_type="samples",
        vectorized=True,
        n_resamples=resamples,
        random_state=np.random.default_rng(seed),
    ).pvalue
    return interval.low, interval.high, p
