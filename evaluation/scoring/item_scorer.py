"""Item scoring as a ``Scorer`` (pure Python): one form field's answer key (``ItemGold``)
and the answers given (``ItemPredictions``); units are items.

``ItemScorer(policy=, seed=).score(gold, predictions, profile=...)`` gives the report of
``items.score_answers``: under ``definition`` from the parsed answers, under another
profile of ``item_profiles`` from the answers as given (a run's raw text, a person's
labels), read with the taxonomy's aliases and the gold cells as written. A profile with no
figures for the field's kind raises ``NoFigures``. The figures: the report's primary one
and its other scalar metrics, over items.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .core import ScoringInputError
from .item_profiles import DEFINITION, PROFILES
from .items import RANKS, BertScorer, score_answers
from .scorer import ITEMS, Score, Scoring, coverage_of, scalar_scores


class NoFigures(ScoringInputError):
    """A profile that has nothing to score for a field kind."""


@dataclass(frozen=True)
class ItemGold:
    """The gold units: per item its answer key (``None``: not scored), option keys
    (multiple choice), reference text (free text) and gold cell as written; the field's
    ``kind``, labels, the taxonomy's aliases (``{alias: name}``) and ``ranks`` (a ranked
    field's maximum ranking length)."""

    kind: str
    golds: Sequence[Any]
    labels: Sequence[str] = ()
    options: Sequence[Sequence[str]] | None = None
    references: Sequence[str] | None = None
    gold_texts: Sequence[str | None] | None = None
    aliases: Mapping[str, str] = field(default_factory=dict)
    ranks: int = RANKS


@dataclass(frozen=True)
class ItemPredictions:
    """Per item: the parsed answer (``None``: unparseable or unanswered) and the answer as
    given (default: the parsed one)."""

    parsed: Sequence[Any]
    raw: Sequence[Any] | None = None


@dataclass(frozen=True)
class ItemScorer:
    """Item answers scored with the unparseable ``policy`` and its ``seed``."""

    policy: str = "wrong"
    seed: int = 0
    bertscore: BertScorer | None = None

    unit = ITEMS
    profiles: tuple[str, ...] = tuple(PROFILES)

    def score(
        self,
        gold: ItemGold,
        predictions: ItemPredictions,
        *,
        profile: str = DEFINITION,
        of: int | None = None,
    ) -> Scoring:
        report = self.report(gold, predictions, profile)
        return item_scoring(report, of=of)

    def report(self, gold: ItemGold, predictions: ItemPredictions, profile: str) -> dict[str, Any]:
        """The JSON report of ``score`` (``NoFigures`` for a profile without figures)."""
        if profile == DEFINITION:
            return score_answers(
                gold.kind,
                gold.golds,
                predictions.parsed,
                labels=gold.labels,
                options=gold.options,
                policy=self.policy,
                seed=self.seed,
                references=gold.references,
                bertscore=self.bertscore,
                ranks=gold.ranks,
            )  # type: ignore[return-value]  # ``definition`` always has a report
        answers = predictions.raw if predictions.raw is not None else predictions.parsed
        report = score_answers(
            gold.kind,
            gold.golds,
            answers,
            labels=gold.labels,
            profile=profile,
            aliases=gold.aliases,
            gold_texts=gold.gold_texts,
        )
        if report is None:
            raise NoFigures(f"profile {profile!r} has no figures for {gold.kind}")
        return report


def item_scoring(report: Mapping[str, Any], *, of: int | None = None) -> Scoring:
    """An item report as a ``Scoring``: the primary figure first, then the other scalar
    metrics, over the report's ``items``."""
    primary = report["primary"]
    scores = [Score(primary["name"], primary["value"], ITEMS)]
    scores += [
        s for s in scalar_scores(report.get("metrics", {}), ITEMS) if s.metric != primary["name"]
    ]
    return Scoring(
        profile=str(report.get("profile", DEFINITION)),
        unit=ITEMS,
        primary=primary["name"],
        scores=tuple(scores),
        coverage=coverage_of(ITEMS, int(report["items"]), of),
        report=report,
    )
