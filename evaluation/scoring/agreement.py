"""Humans on the same yardstick: annotators scored against a gold standard or each other."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .core import Corpus
from .levels import LEVELS
from .report import Report, score
from .sources import as_predictions


def score_annotator(gold: Corpus, annotator: Corpus, **options: Any) -> Report:
    """An annotator's spans scored as predictions against ``gold`` (profile ``paper``)."""
    return score(gold, as_predictions(annotator), **options)


@dataclass
class PairwiseAgreement:
    """``reports[reference][scored]``: ``scored`` annotator against ``reference`` as gold."""

    reports: dict[str, dict[str, Report]]

    def table(self, level: int, metric: str = "f1") -> dict[str, dict[str, float]]:
        """``{reference: {scored: value}}`` of one metric at one level."""
        return {
            reference: {
                scored: getattr(report.levels[level], metric) for scored, report in row.items()
            }
            for reference, row in self.reports.items()
        }

    def to_dict(self) -> dict[str, Any]:
        levels = sorted(next(iter(next(iter(self.reports.values())).values())).levels)
        return {
            str(level): {
                metric: self.table(level, metric) for metric in ("precision", "recall", "f1")
            }
            for level in levels
        }


def pairwise_agreement(
    annotators: Mapping[str, Corpus],
    *,
    levels: Sequence[int] = LEVELS,
    average: str = "text",
    **options: Any,
) -> PairwiseAgreement:
    """Each annotator in turn taken as the gold, every other one scored against it.

    All annotators must cover the same texts (a text the reference lacks is an error).
    Include the gold standard under a name of its own to get gold vs each annotator.
    """
    reports: dict[str, dict[str, Report]] = {}
    for reference, reference_corpus in annotators.items():
        reports[reference] = {
            scored: score_annotator(
                reference_corpus,
                scored_corpus,
                levels=levels,
                average=average,
                **options,
            )
            for scored, scored_corpus in annotators.items()
            if scored != reference
        }
    return PairwiseAgreement(reports)
