"""Scoring profiles: how one text's gold and prediction become spans at each level.

``paper`` (default) is the metric as the MAFALDA paper defines it; ``mafalda-2024``
reproduces what the scorer behind the published tables computed (spec steps 1-7).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .core import (
    NO_FALLACY,
    GoldSpan,
    PredSpan,
    ScoringInputError,
    TextGold,
    TextPrediction,
    normalise_label,
)
from .levels import LevelMapping
from .metric import join_sentence_runs
from .parsers import UNREADABLE, OutputParser

PROFILES: tuple[str, ...] = ("paper", "mafalda-2024")
UNKNOWN = "unknown"  # mafalda-2024: an output the keyword parser could not read
UNCOVERED = "(uncovered)"  # mafalda-2024: gold label of uncovered text, never predicted

# level -> (predicted spans, gold spans scored, gold spans of the annotation itself:
# without mafalda-2024's uncovered ranges; used for counts and confusion).
LevelSpans = dict[int, tuple[list[PredSpan], list[GoldSpan], list[GoldSpan]]]


@dataclass
class ParseTally:
    """How many raw outputs were parsed and how many were unreadable."""

    outputs: int = 0
    unreadable: int = 0
    label_counts: dict[str, int] = field(default_factory=dict)

    @property
    def unreadable_share(self) -> float:
        return self.unreadable / self.outputs if self.outputs else 0.0


def _parse_sentences(
    prediction: TextPrediction, parser: OutputParser | None, tally: ParseTally
) -> list[frozenset[str] | str]:
    """Each sentence's level-2 label set (normalised) or ``UNREADABLE``."""
    parsed: list[frozenset[str] | str] = []
    for item in prediction.sentences or ():
        if isinstance(item.output, str):
            if parser is None:
                raise ScoringInputError(f"{prediction.origin}: raw outputs need a parser")
            tally.outputs += 1
            result = parser.parse(item.output)
            if result == UNREADABLE:
                tally.unreadable += 1
                parsed.append(UNREADABLE)
                continue
            parsed.append(frozenset(normalise_label(label) for label in result))
        else:
            parsed.append(item.output)
    return parsed


def locate_sentences(text: str, sentences: Sequence[str], where: str) -> list[tuple[int, int]]:
    """True character ranges of ``sentences`` in ``text``, searched in order.

    Each sentence is looked for after the previous one's end; failing that, after the
    previous one's start (a key repeated inside the previous sentence, as in one MAFALDA
    text); failing that, anywhere. Not found or empty is an error.
    """
    positions: list[tuple[int, int]] = []
    cursor = previous_start = 0
    for index, sentence in enumerate(sentences):
        if not sentence.strip():
            raise ScoringInputError(f"{where}: sentence {index} is empty")
        start = text.find(sentence, cursor)
        if start == -1:
            start = text.find(sentence, previous_start + 1 if positions else 0)
        if start == -1:
            start = text.find(sentence)
        if start == -1:
            raise ScoringInputError(
                f"{where}: sentence {index} not found in the text: {sentence[:60]!r}"
            )
        end = start + len(sentence)
        positions.append((start, end))
        previous_start, cursor = start, max(cursor, end)
    return positions


def _dedupe(spans: list[PredSpan]) -> list[PredSpan]:
    return list(dict.fromkeys(spans))


def paper_spans(
    gold: TextGold,
    prediction: TextPrediction | None,
    levels: Sequence[int],
    mapping: LevelMapping,
    parser: OutputParser | None,
    tally: ParseTally,
) -> LevelSpans:
    """Profile ``paper``: ⊥ and unreadable outputs predict nothing; sentences are joined
    at each level after mapping; predictions are a set (identical spans collapse)."""
    where = gold.origin
    result: LevelSpans = {}
    sentence_sets: list[frozenset[str]] = []
    positions: list[tuple[int, int]] = []
    if prediction is not None and prediction.sentences is not None:
        where = prediction.origin
        parsed = _parse_sentences(prediction, parser, tally)
        sentence_sets = [
            frozenset() if labels == UNREADABLE else frozenset(labels) - {NO_FALLACY}
            for labels in parsed
        ]
        positions = locate_sentences(
            gold.text, [item.sentence for item in prediction.sentences], where
        )
    for level in levels:
        gold_spans = [
            GoldSpan(span.start, span.end, mapping.map_set(span.labels, level, gold.origin))
            for span in gold.spans
        ]
        if prediction is None:
            predicted: list[PredSpan] = []
        elif prediction.spans is not None:
            predicted = _dedupe(
                [
                    PredSpan(s.start, s.end, mapping.map_label(s.label, level, prediction.origin))
                    for s in prediction.spans
                ]
            )
        else:
            mapped = [mapping.map_set(labels, level, where) for labels in sentence_sets]
            predicted = join_sentence_runs(positions, mapped)
        result[level] = (predicted, gold_spans, gold_spans)
    return result


def _mafalda_label(label: str, level: int, mapping: LevelMapping, where: str) -> str:
    if label in (NO_FALLACY, UNKNOWN):
        return NO_FALLACY if level == 0 else label
    return mapping.map_label(label, level, where)


def mafalda_2024_spans(
    gold: TextGold,
    prediction: TextPrediction | None,
    levels: Sequence[int],
    mapping: LevelMapping,
    parser: OutputParser | None,
    tally: ParseTally,
) -> LevelSpans:
    """Profile ``mafalda-2024`` (spec steps 1-7)."""
    if prediction is not None and prediction.spans is not None:
        raise ScoringInputError(
            f"{prediction.origin}: profile mafalda-2024 scores per-sentence outputs, not spans"
        )
    level_2_spans = _sentence_runs(prediction, parser, tally) if prediction is not None else []
    ranges = _scored_ranges(gold)
    result: LevelSpans = {}
    for level in levels:
        gold_spans = [
            GoldSpan(
                start,
                end,
                frozenset({NO_FALLACY if level == 0 else UNCOVERED})
                if labels is None
                else mapping.map_set(labels, level, gold.origin),
            )
            for (start, end), labels in ranges.items()
        ]
        # Step 4: map span labels; spans are not joined again.
        predicted = [
            PredSpan(span.start, span.end, _mafalda_label(span.label, level, mapping, gold.origin))
            for span in level_2_spans
        ]
        annotated = [
            span for span, labels in zip(gold_spans, ranges.values(), strict=True) if labels
        ]
        result[level] = (predicted, gold_spans, annotated)
    return result


def _sentence_runs(
    prediction: TextPrediction, parser: OutputParser | None, tally: ParseTally
) -> list[PredSpan]:
    """Steps 1-3: parse, cumulative positions, runs at level 2 (⊥ and unknown included)."""
    parsed = _parse_sentences(prediction, parser, tally)
    label_sets = [
        frozenset({UNKNOWN}) if labels == UNREADABLE or not labels else labels for labels in parsed
    ]
    positions = []
    start = 0
    for item in prediction.sentences or ():
        positions.append((start, start + len(item.sentence)))
        start += len(item.sentence) + 1
    return join_sentence_runs(positions, label_sets)


def _scored_ranges(gold: TextGold) -> dict[tuple[int, int], frozenset[str] | None]:
    """Step 6: gold ranges in first-occurrence order, then uncovered ranges (``None``; keyed
    by range like the published scorer, so an uncovered range equal to a gold range
    replaces it)."""
    ranges: dict[tuple[int, int], frozenset[str] | None] = {
        (span.start, span.end): span.labels for span in gold.spans
    }
    uncovered = []
    cursor = 0
    for range_start, range_end in list(ranges):
        if cursor < range_start:
            uncovered.append((cursor, range_start - 1))
        cursor = max(cursor, range_end + 1)
    if cursor < len(gold.text):
        uncovered.append((cursor, len(gold.text)))
    for key in uncovered:
        ranges[key] = None
    return ranges


PROFILE_FUNCTIONS = {"paper": paper_spans, "mafalda-2024": mafalda_2024_spans}
