"""The overlap metric of one text (spec, profile ``paper``) and sentence-run joining.

Per text the work is O(|Pred| x |Gold with that label|): predictions only meet gold spans
that carry their label. Corpora are scored by summing per-text numerators and
denominators (``TextCounts``), so nothing is ever compared across texts.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .core import NO_FALLACY, GoldSpan, PredSpan


def f1_of(precision: float, recall: float) -> float:
    total = precision + recall
    return 2 * precision * recall / total if total else 0.0


@dataclass(slots=True)
class TextCounts:
    """Sums and counts behind P and R; pooled by adding them."""

    precision_sum: float = 0.0
    predicted: int = 0
    recall_sum: float = 0.0
    required: int = 0

    @property
    def precision(self) -> float:
        return self.precision_sum / self.predicted if self.predicted else 1.0

    @property
    def recall(self) -> float:
        return self.recall_sum / self.required if self.required else 1.0

    @property
    def f1(self) -> float:
        return f1_of(self.precision, self.recall)

    def add(self, other: TextCounts) -> None:
        self.precision_sum += other.precision_sum
        self.predicted += other.predicted
        self.recall_sum += other.recall_sum
        self.required += other.required


@dataclass(slots=True)
class LabelTally:
    """Per-label sums: predictions with the label; required gold spans containing it."""

    precision_sum: float = 0.0
    predicted: int = 0
    recall_sum: float = 0.0
    required: int = 0
    gold: int = 0


def _overlap(start: int, end: int, other_start: int, other_end: int) -> int:
    return min(end, other_end) - max(start, other_start)


def score_text(
    predictions: Sequence[PredSpan],
    gold: Sequence[GoldSpan],
    per_label: dict[str, LabelTally] | None = None,
) -> TextCounts:
    """P and R sums of one text; optionally adds per-label sums to ``per_label``.

    ``C(p, l, g, L, h) = |p ∩ g| / h`` if ``l ∈ L``; a zero-length span scores 0.
    Per-label recall of label X uses only predictions labelled X.
    """
    gold_by_label: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for span in gold:
        for label in span.labels:
            gold_by_label[label].append((span.start, span.end))
    pred_by_label: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for span in predictions:
        pred_by_label[span.label].append((span.start, span.end))
    counts = TextCounts(predicted=len(predictions))
    _add_precision(counts, predictions, gold_by_label, per_label)
    _add_recall(counts, gold, pred_by_label, per_label)
    return counts


def _add_precision(
    counts: TextCounts,
    predictions: Sequence[PredSpan],
    gold_by_label: dict[str, list[tuple[int, int]]],
    per_label: dict[str, LabelTally] | None,
) -> None:
    """Each prediction's best overlap share with a gold span carrying its label."""
    for span in predictions:
        length = span.end - span.start
        best = 0
        if length > 0:
            start, end = span.start, span.end
            for gold_start, gold_end in gold_by_label.get(span.label, ()):
                overlap = (end if end < gold_end else gold_end) - (
                    start if start > gold_start else gold_start
                )
                if overlap > best:
                    best = overlap
        score = best / length if best else 0.0
        counts.precision_sum += score
        if per_label is not None:
            tally = per_label.setdefault(span.label, LabelTally())
            tally.precision_sum += score
            tally.predicted += 1


def _add_recall(
    counts: TextCounts,
    gold: Sequence[GoldSpan],
    pred_by_label: dict[str, list[tuple[int, int]]],
    per_label: dict[str, LabelTally] | None,
) -> None:
    """Each required gold span's best overlap share with a prediction of one of its labels
    (a span that allows "no fallacy" is not required); per label, the counts of gold spans."""
    for span in gold:
        required = NO_FALLACY not in span.labels
        start, end = span.start, span.end
        length = end - start
        if per_label is not None:
            for label in span.labels:
                if label != NO_FALLACY:
                    per_label.setdefault(label, LabelTally()).gold += 1
        if not required:
            continue
        counts.required += 1
        best_score = 0.0
        for label in span.labels:
            best = 0
            if length > 0:
                for pred_start, pred_end in pred_by_label.get(label, ()):
                    overlap = (pred_end if pred_end < end else end) - (
                        pred_start if pred_start > start else start
                    )
                    if overlap > best:
                        best = overlap
            score = best / length if best else 0.0
            best_score = max(best_score, score)
            if per_label is not None:
                tally = per_label[label]
                tally.recall_sum += score
                tally.required += 1
        counts.recall_sum += best_score


def join_sentence_runs(
    positions: Sequence[tuple[int, int]], label_sets: Sequence[Iterable[str]]
) -> list[PredSpan]:
    """One span per maximal run of consecutive sentences sharing a label.

    A span runs from the first sentence's start to the furthest end within the run.
    """
    spans: list[PredSpan] = []
    open_runs: dict[str, tuple[int, int]] = {}  # label -> (start, end) of the open run
    for (start, end), labels in zip(positions, label_sets, strict=True):
        current = set(labels)
        for label in [label for label in open_runs if label not in current]:
            run_start, run_end = open_runs.pop(label)
            spans.append(PredSpan(run_start, run_end, label))
        for label in current:
            run = open_runs.get(label)
            open_runs[label] = (start, end) if run is None else (run[0], max(run[1], end))
    for label, (run_start, run_end) in open_runs.items():
        spans.append(PredSpan(run_start, run_end, label))
    spans.sort(key=lambda span: (span.start, span.end, span.label))
    return spans


def overlap_pairs(
    predictions: Sequence[PredSpan], gold: Sequence[GoldSpan], none: str = "(none)"
) -> list[tuple[str, str]]:
    """(gold label, predicted label) pairs of overlapping spans, for a confusion table.

    A prediction whose label is one of the gold span's alternatives gives one pair
    (label, label); otherwise one pair per alternative. Gold spans overlapped by no
    prediction give (label, none) per alternative; predictions overlapping no gold
    span give (none, label).
    """
    pairs: list[tuple[str, str]] = []
    gold_hit = [False] * len(gold)
    for span in predictions:
        hit = False
        for index, gold_span in enumerate(gold):
            if _overlap(span.start, span.end, gold_span.start, gold_span.end) > 0:
                hit = gold_hit[index] = True
                if span.label in gold_span.labels:
                    pairs.append((span.label, span.label))
                else:
                    pairs.extend((label, span.label) for label in sorted(gold_span.labels))
        if not hit:
            pairs.append((none, span.label))
    for index, gold_span in enumerate(gold):
        if not gold_hit[index]:
            pairs.extend((label, none) for label in sorted(gold_span.labels))
    return pairs
