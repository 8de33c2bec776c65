"""The scorer interface: one protocol through which every kind of work is scored (pure
Python: no Django).

A ``Scorer`` takes gold units and predictions and returns a ``Scoring``: its profile, the
typed figures (``Score``: metric, value, the unit it is measured over, the taxonomy level
for spans), the ``Coverage`` (how many gold units of how many were scored) and the report
as stored (JSON). Two families implement it:

- span scoring (``span_scorer.SpanScorer``): gold ``Corpus``, ``Predictions``; units are
  texts; one ``Score`` per level and metric (precision, recall, F1);
- item scoring (``item_scorer.ItemScorer``): gold ``ItemGold`` (one field's answer key),
  ``ItemPredictions`` (parsed and raw answers); units are items; the report's primary
  figure and its other scalar metrics.

Unlike a per-sample scorer whose metrics aggregate afterwards, a scorer here sees every unit
at once: span F1 pools or averages texts, bootstraps over them and builds confusion tables;
item macro-F1 and BERTScore need every item. Every figure still names its unit, and every
scoring names the profile and the coverage it was computed under.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

#: The gold units of span scoring (one text of a corpus) and of item scoring (one item).
TEXTS = "texts"
ITEMS = "items"

GoldT = TypeVar("GoldT", contravariant=True)
PredictionsT = TypeVar("PredictionsT", contravariant=True)


@dataclass(frozen=True)
class Coverage:
    """``scored`` gold units of ``of`` (a partial work is scored on the units it covers)."""

    unit: str
    scored: int
    of: int

    @property
    def partial(self) -> bool:
        return self.scored < self.of

    def to_dict(self) -> dict[str, int]:
        """``{"texts": n, "of": N}`` or ``{"items": n, "of": N}``, as reports store it."""
        return {self.unit: self.scored, "of": self.of}


@dataclass(frozen=True)
class Score:
    """One figure: ``metric`` named as in the report, its ``value`` (``None``: undefined),
    the ``unit`` it is measured over (``texts``, ``items``; ``spans`` when span counts are
    pooled over the corpus) and the taxonomy ``level`` of a span figure."""

    metric: str
    value: float | None
    unit: str
    level: int | None = None


@dataclass(frozen=True)
class Scoring:
    """What a scorer returns. ``primary`` is the headline figure's metric; ``report`` the
    JSON report as stored (it names the same profile); ``detail`` the scorer's own result
    object where it has one (span scoring: ``report.Report``)."""

    profile: str
    unit: str
    primary: str
    scores: tuple[Score, ...]
    coverage: Coverage
    report: Mapping[str, Any]
    detail: Any = None

    def value(self, metric: str | None = None, level: int | None = None) -> float | None:
        """The value of ``metric`` (default: the primary one) at ``level``; ``KeyError``
        when this scoring has no such figure."""
        wanted = metric or self.primary
        for score in self.scores:
            if score.metric == wanted and score.level == level:
                return score.value
        raise KeyError(f"no figure {wanted!r} at level {level} in profile {self.profile!r}")

    def figures(self) -> dict[str, float | None]:
        """``{metric: value}`` or ``{"level/metric": value}``: every figure, keyed by name."""
        return {
            (score.metric if score.level is None else f"{score.level}/{score.metric}"): (
                score.value
            )
            for score in self.scores
        }


class Scorer(Protocol[GoldT, PredictionsT]):
    """Scores predictions against gold units under a named profile.

    ``gold`` holds the units scored (already restricted to the ones the work covers);
    ``of`` is the number of units of the whole gold set (default: as many as scored)."""

    @property
    def unit(self) -> str: ...

    @property
    def profiles(self) -> tuple[str, ...]: ...

    def score(
        self, gold: GoldT, predictions: PredictionsT, *, profile: str, of: int | None = None
    ) -> Scoring: ...


def scalar_scores(metrics: Mapping[str, Any], unit: str) -> tuple[Score, ...]:
    """A report's numeric metrics as ``Score``s (nested tables and notes left out)."""
    return tuple(
        Score(name, float(value) if value is not None else None, unit)
        for name, value in metrics.items()
        if value is None or (isinstance(value, int | float) and not isinstance(value, bool))
    )


def coverage_of(unit: str, scored: int, of: int | None) -> Coverage:
    return Coverage(unit, scored, scored if of is None else of)
