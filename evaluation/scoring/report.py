"""Scoring a corpus into a report: P/R/F1 per level, per label, bootstrap CI, confusion."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .core import NO_FALLACY, Corpus, Predictions, ScoringInputError, align
from .levels import (
    LEVELS,
    LevelMapping,
    mafalda_mapping,
    published_mafalda_mapping,
)
from .metric import LabelTally, TextCounts, f1_of, overlap_pairs, score_text
from .parsers import OutputParser, get_parser
from .profiles import PROFILE_FUNCTIONS, PROFILES, UNCOVERED, UNKNOWN, LevelSpans, ParseTally

AVERAGES: tuple[str, ...] = ("text", "corpus")
NONE_LABEL = "(none)"
_SPECIAL_LABELS = frozenset({NO_FALLACY, UNKNOWN, UNCOVERED})


@dataclass
class LabelScores:
    precision: float
    recall: float
    f1: float
    predicted_spans: int
    gold_spans: int
    required_gold_spans: int


@dataclass
class LevelReport:
    """Scores at one level. ``per_text`` holds (P, R, F1) of every text in gold order."""

    level: int
    precision: float
    recall: float
    f1: float
    predicted_spans: int
    gold_spans: int
    required_gold_spans: int
    f1_ci95: tuple[float, float] | None
    per_label: dict[str, LabelScores]
    confusion: Counter[tuple[str, str]]
    per_text: list[tuple[float, float, float]] = field(repr=False)

    def to_dict(self, include_per_text: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
            "predicted_spans": self.predicted_spans,
            "gold_spans": self.gold_spans,
            "required_gold_spans": self.required_gold_spans,
            "f1_ci95": list(self.f1_ci95) if self.f1_ci95 else None,
            "per_label": {label: vars(scores) for label, scores in self.per_label.items()},
            "confusion": [
                {"gold": gold, "predicted": predicted, "count": count}
                for (gold, predicted), count in sorted(self.confusion.items())
            ],
        }
        if include_per_text:
            data["per_text"] = [list(scores) for scores in self.per_text]
        return data


@dataclass
class Report:
    """Every number names its ``profile``, ``parser`` and ``average``."""

    profile: str
    parser: str | None
    parser_version: str | None
    average: str
    mapping: str
    texts: int
    texts_without_prediction: int
    outputs: int
    unreadable: int
    dropped: dict[str, int]
    levels: dict[int, LevelReport]
    bootstrap: dict[str, int]

    @property
    def unreadable_share(self) -> float:
        return self.unreadable / self.outputs if self.outputs else 0.0

    def to_dict(self, include_per_text: bool = False) -> dict[str, Any]:
        return {
            "profile": self.profile,
            "parser": self.parser,
            "parser_version": self.parser_version,
            "average": self.average,
            "mapping": self.mapping,
            "texts": self.texts,
            "texts_without_prediction": self.texts_without_prediction,
            "outputs": self.outputs,
            "unreadable": self.unreadable,
            "unreadable_share": self.unreadable_share,
            "dropped": dict(self.dropped),
            "bootstrap": dict(self.bootstrap),
            "levels": {
                str(level): report.to_dict(include_per_text)
                for level, report in sorted(self.levels.items())
            },
        }


def _pooled_f1(p_sum, predicted, r_sum, required, axis=-1):
    """F1 of pooled sums (corpus averaging), vectorised over resamples."""
    p_sum, predicted, r_sum, required = (
        np.sum(column, axis=axis) for column in (p_sum, predicted, r_sum, required)
    )
    precision = np.divide(p_sum, predicted, out=np.ones(predicted.shape), where=predicted > 0)
    recall = np.divide(r_sum, required, out=np.ones(required.shape), where=required > 0)
    total = precision + recall
    return np.divide(2 * precision * recall, total, out=np.zeros(total.shape), where=total > 0)


def bootstrap_f1_ci(
    counts: Sequence[TextCounts], average: str, resamples: int, seed: int
) -> tuple[float, float] | None:
    """95% percentile interval of F1 over texts resampled with replacement (seeded),
    computed by ``scipy.stats.bootstrap``; texts are resampled as units (paired)."""
    n = len(counts)
    if n == 0 or resamples <= 0:
        return None
    columns = np.array(
        [(c.precision_sum, c.predicted, c.recall_sum, c.required, c.f1) for c in counts],
        dtype=np.float64,
    ).T
    if average == "text":
        data, statistic = (columns[4],), np.mean
    else:
        data, statistic = tuple(columns[:4]), _pooled_f1
    if n == 1:  # every resample is the one text
        value = float(statistic(*data))
        return value, value
    from scipy import stats  # heavy (tens of MiB): loaded when a bootstrap runs, not at start

    result = stats.bootstrap(
        data,
        statistic,
        paired=True,
        vectorized=True,
        n_resamples=resamples,
        batch=max(1, 2_000_000 // n),
        method="percentile",
        random_state=np.random.default_rng(seed),
    )
    low, high = result.confidence_interval
    return float(low), float(high)


def _resolve_parser(
    parser: str | OutputParser | None, predictions: Predictions
) -> OutputParser | None:
    """The parser of raw outputs (``keyword`` by default); none for span predictions."""
    if predictions.kind == "spans":
        return None
    if isinstance(parser, str):
        return get_parser(parser)
    return parser or get_parser("keyword")


def _checked_options(
    profile: str, average: str, levels: Sequence[int], mapping: LevelMapping | None
) -> LevelMapping:
    """Refuse an unknown profile, average or level; the level mapping the profile scores with
    (``mafalda-2024`` always uses the published table)."""
    if profile not in PROFILES:
        raise ScoringInputError(f"unknown profile {profile!r}; available: {', '.join(PROFILES)}")
    if average not in AVERAGES:
        raise ScoringInputError(f"unknown average {average!r}; available: text, corpus")
    if any(level not in LEVELS for level in levels):
        raise ScoringInputError(f"levels must be among 0, 1, 2; got {list(levels)}")
    if profile == "mafalda-2024":
        if mapping is not None:
            raise ScoringInputError("profile mafalda-2024 always uses the published MAFALDA table")
        return published_mafalda_mapping()
    return mapping if mapping is not None else mafalda_mapping()


def _label_scores(per_label: dict[str, LabelTally]) -> dict[str, LabelScores]:
    """P/R/F1 of each fallacy label (none, unknown and uncovered left out), sorted by label."""
    labels = {}
    for label, label_tally in sorted(per_label.items()):
        if label in _SPECIAL_LABELS:
            continue
        label_precision = (
            label_tally.precision_sum / label_tally.predicted if label_tally.predicted else 1.0
        )
        label_recall = (
            label_tally.recall_sum / label_tally.required if label_tally.required else 1.0
        )
        labels[label] = LabelScores(
            label_precision,
            label_recall,
            f1_of(label_precision, label_recall),
            label_tally.predicted,
            label_tally.gold,
            label_tally.required,
        )
    return labels


def _level_report(
    level: int,
    counts: list[TextCounts],
    per_label: dict[str, LabelTally],
    *,
    gold_spans: int,
    confusion: Counter[tuple[str, str]],
    average: str,
    bootstrap_resamples: int,
    seed: int,
) -> LevelReport:
    """One level's scores from its per-text counts, averaged per text or pooled over the
    corpus."""
    pooled = TextCounts()
    for text_counts in counts:
        pooled.add(text_counts)
    if average == "text" and counts:
        precision = sum(c.precision for c in counts) / len(counts)
        recall = sum(c.recall for c in counts) / len(counts)
        f1 = sum(c.f1 for c in counts) / len(counts)
    else:
        precision, recall, f1 = pooled.precision, pooled.recall, pooled.f1
    return LevelReport(
        level=level,
        precision=precision,
        recall=recall,
        f1=f1,
        predicted_spans=pooled.predicted,
        gold_spans=gold_spans,
        required_gold_spans=pooled.required,
        f1_ci95=bootstrap_f1_ci(counts, average, bootstrap_resamples, seed),
        per_label=_label_scores(per_label),
        confusion=confusion,
        per_text=[(c.precision, c.recall, c.f1) for c in counts],
    )


class _TextTallies:
    """Per level: each text's counts, the per-label sums, the confusion table (``details``)
    and the number of annotated gold spans."""

    def __init__(self, levels: Sequence[int], details: bool) -> None:
        self.details = details
        self.per_text: dict[int, list[TextCounts]] = {level: [] for level in levels}
        self.per_label: dict[int, dict[str, LabelTally]] = {level: {} for level in levels}
        self.confusion: dict[int, Counter[tuple[str, str]]] = {lv: Counter() for lv in levels}
        self.gold_spans = dict.fromkeys(levels, 0)

    def add(self, spans: LevelSpans) -> None:
        """One text's spans per level: (predicted, gold scored, gold annotated)."""
        for level, (predicted, gold_scored, gold_annotated) in spans.items():
            per_label = self.per_label[level] if self.details else None
            self.per_text[level].append(score_text(predicted, gold_scored, per_label))
            self.gold_spans[level] += len(gold_annotated)
            if self.details:
                pairs = overlap_pairs(predicted, gold_annotated, NONE_LABEL)
                self.confusion[level].update(pairs)


def score(
    corpus: Corpus,
    predictions: Predictions,
    *,
    profile: str = "paper",
    levels: Sequence[int] = LEVELS,
    parser: str | OutputParser | None = None,
    average: str = "text",
    mapping: LevelMapping | None = None,
    bootstrap_resamples: int = 1000,
    seed: int = 0,
    details: bool = True,
) -> Report:
    """Score ``predictions`` against ``corpus`` (see the package docstring).

    Gold texts without a prediction count as empty predictions. ``parser`` defaults to
    ``keyword`` for per-sentence outputs. ``details=False`` skips per-label and
    confusion tables (the headline numbers and the interval are the same).
    """
    mapping = _checked_options(profile, average, levels, mapping)
    resolved_parser = _resolve_parser(parser, predictions)
    aligned = align(corpus, predictions)
    tally = ParseTally()
    texts = _TextTallies(levels, details)
    spans_of = PROFILE_FUNCTIONS[profile]
    for gold, prediction in zip(corpus.texts, aligned, strict=True):
        texts.add(spans_of(gold, prediction, levels, mapping, resolved_parser, tally))
    level_reports = {
        level: _level_report(
            level,
            texts.per_text[level],
            texts.per_label[level],
            gold_spans=texts.gold_spans[level],
            confusion=texts.confusion[level],
            average=average,
            bootstrap_resamples=bootstrap_resamples,
            seed=seed,
        )
        for level in levels
    }
    return Report(
        profile=profile,
        parser=resolved_parser.name if resolved_parser else None,
        parser_version=resolved_parser.version if resolved_parser else None,
        average=average,
        mapping=mapping.name,
        texts=len(corpus.texts),
        texts_without_prediction=sum(prediction is None for prediction in aligned),
        outputs=tally.outputs,
        unreadable=tally.unreadable,
        dropped=dict(corpus.dropped),
        levels=level_reports,
        bootstrap={"resamples": bootstrap_resamples, "seed": seed},
    )
