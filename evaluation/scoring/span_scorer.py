"""Span scoring as a ``Scorer`` (pure Python): gold ``Corpus``, ``Predictions`` (spans or
raw per-sentence outputs), units are texts.

``SpanScorer`` holds the settings every profile shares (levels, parser, averaging,
bootstrap, the taxonomy's level mapping); ``score(gold, predictions, profile=...)`` runs
``report.score`` and gives each level's precision, recall and F1 as typed figures (unit
``texts`` when averaged per text, ``spans`` when pooled over the corpus). The level mapping
is used by every profile but ``mafalda-2024``, which always scores with the published
MAFALDA table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .core import Corpus, Predictions
from .levels import LEVELS, LevelMapping
from .parsers import OutputParser
from .profiles import PROFILES
from .report import Report, score
from .scorer import TEXTS, Score, Scoring, coverage_of

MAFALDA_2024 = "mafalda-2024"
HEADLINE: tuple[str, ...] = ("precision", "recall", "f1")


@dataclass(frozen=True)
class SpanScorer:
    """The span metric under one set of settings (see the module docstring)."""

    levels: Sequence[int] = LEVELS
    parser: str | OutputParser | None = None
    mapping: LevelMapping | None = None
    average: str = "text"
    bootstrap_resamples: int = 1000
    seed: int = 0
    #: each text's P/R/F1 per level in the stored report
    text_scores: bool = False

    unit = TEXTS
    profiles: tuple[str, ...] = tuple(PROFILES)

    def score(
        self,
        gold: Corpus,
        predictions: Predictions,
        *,
        profile: str = "paper",
        of: int | None = None,
    ) -> Scoring:
        report = score(
            gold,
            predictions,
            profile=profile,
            levels=self.levels,
            parser=self.parser,
            average=self.average,
            mapping=None if profile == MAFALDA_2024 else self.mapping,
            bootstrap_resamples=self.bootstrap_resamples,
            seed=self.seed,
        )
        return span_scoring(report, of=of, text_scores=self.text_scores)


def span_scoring(report: Report, *, of: int | None = None, text_scores: bool = False) -> Scoring:
    """A span ``Report`` as a ``Scoring``: its figures typed, the coverage in the report."""
    coverage = coverage_of(TEXTS, report.texts, of)
    unit = TEXTS if report.average == "text" else "spans"
    scores = tuple(
        Score(metric, getattr(level_report, metric), unit, level)
        for level, level_report in sorted(report.levels.items())
        for metric in HEADLINE
    )
    return Scoring(
        profile=report.profile,
        unit=TEXTS,
        primary="f1",
        scores=scores,
        coverage=coverage,
        report={**report.to_dict(text_scores), "coverage": coverage.to_dict()},
        detail=report,
    )
