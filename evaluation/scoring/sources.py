"""Readers for gold, predictions and annotator files (JSONL), and corpus converters.

Every record remembers its origin ``path:line`` so errors can name it.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .core import (
    NO_FALLACY,
    Corpus,
    Predictions,
    PredSpan,
    ScoringInputError,
    TextGold,
    TextPrediction,
    normalise_label,
)


def iter_jsonl(path: Path | str) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(origin, object)`` for each non-blank line; bad JSON is an error naming the line."""
    path = Path(path)
    try:
        handle = path.open(encoding="utf-8")
    except OSError as error:
        raise ScoringInputError(f"{path}: cannot read: {error.strerror}") from error
    with handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            origin = f"{path}:{number}"
            try:
                record = json.loads(line)
            except ValueError as error:
                raise ScoringInputError(f"{origin}: invalid JSON: {error}") from error
            if not isinstance(record, dict):
                raise ScoringInputError(f"{origin}: expected a JSON object")
            yield origin, record


def _text_of(record: dict[str, Any], origin: str) -> str:
    text = record.get("text")
    if not isinstance(text, str) or not text:
        raise ScoringInputError(f"{origin}: field 'text' must be a non-empty string")
    return text


def _triples_of(record: dict[str, Any], origin: str) -> list:
    """MAFALDA's ``labels`` or doccano's ``label``."""
    key = "labels" if "labels" in record else "label"
    triples = record.get(key)
    if not isinstance(triples, list):
        raise ScoringInputError(f"{origin}: field 'labels' must be a list of [start, end, label]")
    return triples


def _sentence_labels(record: dict[str, Any], origin: str):
    raw = record.get("sentences_with_labels")
    if raw is None:
        return None
    try:
        data = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError as error:
        raise ScoringInputError(f"{origin}: 'sentences_with_labels' is not JSON") from error
    if not isinstance(data, dict):
        raise ScoringInputError(f"{origin}: 'sentences_with_labels' must be an object")
    result = []
    for sentence, groups in data.items():
        # {sentence: [[label, ...], ...]}: the union of all groups.
        labels = {
            normalise_label(label)
            for group in groups
            for label in (group if isinstance(group, list) else [group])
        }
        result.append((sentence, frozenset(labels)))
    return tuple(result)


def read_gold(path: Path | str) -> Corpus:
    """A MAFALDA gold JSONL (``{text, labels, sentences_with_labels?}``) or a doccano
    export (``{text, label}``). ``to clean`` triples are dropped and counted."""
    dropped: Counter[str] = Counter()
    texts = [
        TextGold.from_triples(
            _text_of(record, origin),
            _triples_of(record, origin),
            origin=origin,
            dropped=dropped,
            sentence_labels=_sentence_labels(record, origin),
        )
        for origin, record in iter_jsonl(path)
    ]
    return Corpus(texts, dropped, str(path))


def read_predictions(path: Path | str) -> Predictions:
    """Span predictions (gold shape, one label per triple) or raw per-sentence outputs
    ``{text, prediction: {sentence: raw output}}`` (sentences in text order)."""
    texts = []
    for origin, record in iter_jsonl(path):
        text = _text_of(record, origin)
        if "prediction" in record:
            outputs = record["prediction"]
            if not isinstance(outputs, dict) or not all(
                isinstance(value, str | list) for value in outputs.values()
            ):
                raise ScoringInputError(
                    f"{origin}: field 'prediction' must map sentences to raw outputs"
                )
            texts.append(TextPrediction.from_sentences(text, outputs, origin=origin))
        elif "labels" in record or "label" in record:
            texts.append(
                TextPrediction.from_triples(text, _triples_of(record, origin), origin=origin)
            )
        else:
            raise ScoringInputError(f"{origin}: expected 'prediction' or 'labels'")
    predictions = Predictions(texts, str(path))
    kinds = {text.spans is None for text in texts}
    if len(kinds) > 1:
        raise ScoringInputError(f"{path}: mixes span predictions and per-sentence outputs")
    return predictions


def read_annotator(path: Path | str) -> Corpus:
    """A human annotator's spans (doccano ``users_results`` shape) as a corpus.

    Triples with identical ranges form one span with alternatives, as in the gold file.
    Use ``as_predictions`` to score the annotator against a gold standard.
    """
    return read_gold(path)


def as_predictions(corpus: Corpus) -> Predictions:
    """A corpus's spans as predictions: one predicted span per (range, label), ⊥ dropped."""
    return Predictions(
        [
            TextPrediction(
                gold.text,
                spans=tuple(
                    PredSpan(span.start, span.end, label)
                    for span in gold.spans
                    for label in sorted(span.labels)
                    if label != NO_FALLACY
                ),
                origin=gold.origin,
            )
            for gold in corpus.texts
        ],
        corpus.source,
    )


def sentence_oracle(corpus: Corpus) -> Predictions:
    """The perfect per-sentence system: each sentence outputs its gold labels.

    Needs ``sentence_labels`` (MAFALDA ``sentences_with_labels``).
    """
    texts = []
    for gold in corpus.texts:
        if gold.sentence_labels is None:
            raise ScoringInputError(f"{gold.origin}: no per-sentence gold labels")
        texts.append(
            TextPrediction.from_sentences(
                gold.text, dict(gold.sentence_labels), origin=f"oracle({gold.origin})"
            )
        )
    return Predictions(texts, f"oracle({corpus.source})")
