"""Scorers of the other benchmark tasks, and aggregation across tasks.

Pure Python/numpy, except ``bertscore_f1`` which imports ``bert_score`` (and torch) lazily.
"""

from __future__ import annotations

import math
import os
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .core import ScoringInputError, normalise_label
from .metric import f1_of


def _same_length(gold: Sequence[Any], predicted: Sequence[Any], what: str) -> None:
    if len(gold) != len(predicted):
        raise ScoringInputError(f"{what}: {len(gold)} gold items but {len(predicted)} predictions")
    if not gold:
        raise ScoringInputError(f"{what}: no items to score")


def accuracy(gold: Sequence[Hashable], predicted: Sequence[Hashable | None]) -> float:
    """Share of items whose prediction equals the gold answer (``None`` = no answer)."""
    _same_length(gold, predicted, "accuracy")
    return sum(g == p for g, p in zip(gold, predicted, strict=True)) / len(gold)


@dataclass
class ClassScores:
    precision: float
    recall: float
    f1: float
    support: int  # gold items of the class
    predicted: int


@dataclass
class MacroF1:
    """``macro_f1`` averages the classes that occur in gold or predictions; ``absent``
    lists classes that never occur in either (their scores are undefined, not 0 or 1)."""

    macro_f1: float
    per_label: dict[str, ClassScores]
    absent: list[str] = field(default_factory=list)
    out_of_set: int = 0  # predictions outside the label set (or None): wrong for every class

    @property
    def macro_recall(self) -> float:
        if not self.per_label:
            return 0.0
        return sum(s.recall for s in self.per_label.values()) / len(self.per_label)


def _macro_f1_of_counts(
    labels: Iterable[str],
    support: Counter[str],
    predicted_count: Counter[str],
    correct: Counter[str],
    out_of_set: int = 0,
) -> MacroF1:
    """Per-label P/R/F1 from counts; labels neither gold nor predicted are listed as absent
    and left out of the macro average."""
    per_label: dict[str, ClassScores] = {}
    absent = []
    for label in labels:
        if not support[label] and not predicted_count[label]:
            absent.append(label)
            continue
        precision = correct[label] / predicted_count[label] if predicted_count[label] else 0.0
        recall = correct[label] / support[label] if support[label] else 0.0
        per_label[label] = ClassScores(
            precision, recall, f1_of(precision, recall), support[label], predicted_count[label]
        )
    score = sum(s.f1 for s in per_label.values()) / len(per_label) if per_label else 0.0
    return MacroF1(score, per_label, absent, out_of_set)


def macro_f1(
    gold: Sequence[str], predicted: Sequence[str | None], labels: Sequence[str]
) -> MacroF1:
    """Macro-F1 over a fixed label set, with per-label precision and recall.

    A class never predicted has precision 0; a class predicted but never gold has
    recall 0 (both give F1 0). Gold labels must belong to ``labels``.
    """
    _same_length(gold, predicted, "macro_f1")
    label_set = list(dict.fromkeys(labels))
    known = set(label_set)
    for index, label in enumerate(gold):
        if label not in known:
            raise ScoringInputError(
                f"macro_f1: gold item {index} has label {label!r} outside the set"
            )
    support = Counter(gold)
    predicted_count = Counter(p for p in predicted if p in known)
    correct = Counter(g for g, p in zip(gold, predicted, strict=True) if g == p)
    out_of_set = sum(p not in known for p in predicted)
    return _macro_f1_of_counts(label_set, support, predicted_count, correct, out_of_set)


def ranked_score(gold: Iterable[str], ranked: Sequence[str]) -> float:
    """``S = Σ_i ±1/i`` over a ranked label list: + for a gold label at rank i, − otherwise.

    Labels are compared normalised (case-insensitive); a repeated label is dropped before
    ranking, so repeating a right answer earns nothing.
    """
    gold_set = {normalise_label(label) for label in gold}
    unique = list(dict.fromkeys(normalise_label(label) for label in ranked))
    return sum(
        (1.0 if label in gold_set else -1.0) / rank for rank, label in enumerate(unique, start=1)
    )


Segment = tuple[int, int, str]


def exact_span_f1(
    gold: Sequence[Iterable[Segment]],
    predicted: Sequence[Iterable[Segment]],
    labels: Sequence[str] | None = None,
) -> MacroF1:
    """Per-label F1 of exact ``(start, end, label)`` matches pooled over documents,
    macro-averaged over labels (ArgBench-style segmentation).

    ``labels`` defaults to every label in gold or predictions.
    """
    _same_length(gold, predicted, "exact_span_f1")
    gold_sets = [set(spans) for spans in gold]
    pred_sets = [set(spans) for spans in predicted]
    all_labels = labels or sorted({s[2] for spans in gold_sets + pred_sets for s in spans})
    support: Counter[str] = Counter(s[2] for spans in gold_sets for s in spans)
    predicted_count: Counter[str] = Counter(s[2] for spans in pred_sets for s in spans)
    correct: Counter[str] = Counter(
        s[2] for g, p in zip(gold_sets, pred_sets, strict=True) for s in g & p
    )
    return _macro_f1_of_counts(all_labels, support, predicted_count, correct)


@dataclass
class BertScoreResult:
    f1: list[float]
    model: str
    num_layers: int

    @property
    def mean_f1(self) -> float:
        return sum(self.f1) / len(self.f1)


def bertscore_f1(
    candidates: Sequence[str],
    references: Sequence[str],
    *,
    model_type: str,
    num_layers: int,
    batch_size: int = 32,
    device: str = "cpu",
) -> BertScoreResult:
    """BERTScore F1 of each candidate against its reference (``bert-score`` package).

    ``model_type`` is a Hugging Face name or a local model directory; the hub is not
    contacted (``HF_HUB_OFFLINE=1``), so the model must be available locally.
    """
    _same_length(references, candidates, "bertscore_f1")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from bert_score import score as bert_score

    _, _, f1 = bert_score(
        list(candidates),
        list(references),
        model_type=model_type,
        num_layers=num_layers,
        batch_size=batch_size,
        device=device,
    )
    return BertScoreResult([float(value) for value in f1], model_type, num_layers)


def geometric_mean(values: Iterable[float]) -> float:
    """Geometric mean of non-negative task scores (0 if any score is 0)."""
    items = list(values)
    if not items:
        raise ScoringInputError("geometric_mean: no values")
    if any(value < 0 for value in items):
        raise ScoringInputError("geometric_mean: scores must be non-negative")
    if any(value == 0 for value in items):
        return 0.0
    return math.exp(sum(math.log(value) for value in items) / len(items))


def macro_average(values: Iterable[float]) -> float:
    """Arithmetic mean of task scores."""
    items = list(values)
    if not items:
        raise ScoringInputError("macro_average: no values")
    return sum(items) / len(items)


def aggregate_tasks(scores: Mapping[str, float], method: str = "geometric") -> float:
    """One number across tasks: ``geometric`` mean or ``macro`` (arithmetic) mean."""
    if method == "geometric":
        return geometric_mean(scores.values())
    if method == "macro":
        return macro_average(scores.values())
    raise ScoringInputError(f"unknown aggregation {method!r}; available: geometric, macro")
