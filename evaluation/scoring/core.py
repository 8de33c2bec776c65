"""Core value types of the span scorer: labels, spans, texts, corpora, input errors.

Pure Python. Labels are normalised on construction (case-folded, whitespace collapsed) and
the spellings of "no fallacy" collapse to ``NO_FALLACY`` (⊥).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

# ⊥: "no fallacy" (same spelling as annotations.labels.NO_FALLACY).
NO_FALLACY = "no fallacy"
NO_FALLACY_ALIASES: frozenset[str] = frozenset(
    {NO_FALLACY, "no_fallacy", "no-fallacy", "nothing", "none", "⊥"}
)
# MAFALDA's marker of regions the authors excluded: dropped from gold and reported.
TO_CLEAN = "to clean"


class ScoringInputError(ValueError):
    """Invalid scoring input; the message names where (file/line or text index) and what."""


def normalise_label(raw: str) -> str:
    """Matching key of a label: case-folded, whitespace collapsed; ⊥ spellings -> ⊥."""
    key = " ".join(str(raw).split()).casefold()
    return NO_FALLACY if key in NO_FALLACY_ALIASES else key


def check_range(start: object, end: object, text_length: int, where: str) -> tuple[int, int]:
    """Validate a half-open span ``[start, end)`` of a text of ``text_length`` characters."""
    if type(start) is not int or type(end) is not int:
        raise ScoringInputError(f"{where}: span ({start!r}, {end!r}): start/end must be integers")
    if not 0 <= start < end <= text_length:
        raise ScoringInputError(
            f"{where}: span ({start}, {end}): need 0 <= start < end <= len(text) = {text_length}"
        )
    return start, end


@dataclass(frozen=True, slots=True)
class GoldSpan:
    """A gold range with its alternative labels (⊥ among them makes the span optional)."""

    start: int
    end: int
    labels: frozenset[str]

    @property
    def required(self) -> bool:
        return NO_FALLACY not in self.labels


@dataclass(frozen=True, slots=True)
class PredSpan:
    """A predicted range with one label."""

    start: int
    end: int
    label: str


@dataclass(frozen=True, slots=True)
class SentenceOutput:
    """One sentence of a per-sentence run: the raw model output, or labels already parsed."""

    sentence: str
    output: str | frozenset[str]


@dataclass(frozen=True)
class TextGold:
    """The gold standard of one text.

    ``spans`` keep the first-occurrence order of their ranges in the source (the
    ``mafalda-2024`` profile depends on it). ``sentence_labels`` optionally holds the
    per-sentence gold of the source (MAFALDA ``sentences_with_labels``), in text order.
    """

    text: str
    spans: tuple[GoldSpan, ...]
    origin: str = ""
    sentence_labels: tuple[tuple[str, frozenset[str]], ...] | None = None

    @classmethod
    def from_triples(
        cls,
        text: str,
        triples: Iterable[Sequence[object]],
        *,
        origin: str = "",
        dropped: Counter[str] | None = None,
        sentence_labels: tuple[tuple[str, frozenset[str]], ...] | None = None,
    ) -> TextGold:
        """Group ``[start, end, label]`` triples with identical ranges into one gold span.

        ``to clean`` triples are dropped and counted in ``dropped``; a range whose only
        label is ⊥ is an error (nothing would be required or allowed there).
        """
        grouped: dict[tuple[int, int], set[str]] = {}
        for position, triple in enumerate(triples):
            where = f"{origin} labels[{position}]"
            if not isinstance(triple, list | tuple) or len(triple) != 3:
                raise ScoringInputError(f"{where}: expected [start, end, label], got {triple!r}")
            start, end, raw_label = triple
            if not isinstance(raw_label, str) or not raw_label.strip():
                raise ScoringInputError(f"{where}: label must be a non-empty string")
            label = normalise_label(raw_label)
            if label == TO_CLEAN:
                if dropped is not None:
                    dropped[TO_CLEAN] += 1
                continue
            key = check_range(start, end, len(text), where)
            grouped.setdefault(key, set()).add(label)
        spans = []
        for (start, end), labels in grouped.items():
            if labels == {NO_FALLACY}:
                raise ScoringInputError(
                    f"{origin}: gold span ({start}, {end}): its only label is ⊥ (no fallacy)"
                )
            spans.append(GoldSpan(start, end, frozenset(labels)))
        return cls(text, tuple(spans), origin, sentence_labels)


@dataclass(frozen=True)
class TextPrediction:
    """The prediction for one text: either spans, or per-sentence outputs in text order."""

    text: str
    spans: tuple[PredSpan, ...] | None = None
    sentences: tuple[SentenceOutput, ...] | None = None
    origin: str = ""

    def __post_init__(self) -> None:
        if (self.spans is None) == (self.sentences is None):
            raise ScoringInputError(
                f"{self.origin or 'prediction'}: give exactly one of spans or sentences"
            )

    @classmethod
    def from_triples(
        cls, text: str, triples: Iterable[Sequence[object]], *, origin: str = ""
    ) -> TextPrediction:
        """Predicted spans from ``[start, end, label]`` triples (⊥ triples predict nothing)."""
        spans = []
        for position, triple in enumerate(triples):
            where = f"{origin} labels[{position}]"
            if not isinstance(triple, list | tuple) or len(triple) != 3:
                raise ScoringInputError(f"{where}: expected [start, end, label], got {triple!r}")
            start, end, raw_label = triple
            if not isinstance(raw_label, str) or not raw_label.strip():
                raise ScoringInputError(f"{where}: label must be a non-empty string")
            start, end = check_range(start, end, len(text), where)
            label = normalise_label(raw_label)
            if label not in (NO_FALLACY, TO_CLEAN):
                spans.append(PredSpan(start, end, label))
        return cls(text, spans=tuple(spans), origin=origin)

    @classmethod
    def from_sentences(
        cls, text: str, outputs: Mapping[str, str | Iterable[str]], *, origin: str = ""
    ) -> TextPrediction:
        """Per-sentence outputs ``{sentence: raw output or labels}`` in text order."""
        sentences = tuple(
            SentenceOutput(
                sentence,
                output
                if isinstance(output, str)
                else frozenset(normalise_label(label) for label in output),
            )
            for sentence, output in outputs.items()
        )
        return cls(text, sentences=sentences, origin=origin)


@dataclass
class Corpus:
    """A gold standard: texts in order, and what the reader dropped (e.g. ``to clean``)."""

    texts: list[TextGold]
    dropped: Counter[str] = field(default_factory=Counter)
    source: str = ""

    def __post_init__(self) -> None:
        seen: dict[str, str] = {}
        for gold in self.texts:
            if gold.text in seen:
                raise ScoringInputError(
                    f"{gold.origin}: the same text already appears at {seen[gold.text]}"
                )
            seen[gold.text] = gold.origin

    def __len__(self) -> int:
        return len(self.texts)


@dataclass
class Predictions:
    """Predictions for (some of) a corpus's texts, matched to gold by exact text."""

    texts: list[TextPrediction]
    source: str = ""

    @property
    def kind(self) -> str:
        """``"spans"``, ``"sentences"``, or ``"empty"``."""
        if not self.texts:
            return "empty"
        return "spans" if self.texts[0].spans is not None else "sentences"


def align(corpus: Corpus, predictions: Predictions) -> list[TextPrediction | None]:
    """Predictions in gold order (``None`` for a gold text nobody predicted).

    A prediction whose text is not in the gold, or a second prediction for one text,
    is an error naming its origin.
    """
    index = {gold.text: position for position, gold in enumerate(corpus.texts)}
    aligned: list[TextPrediction | None] = [None] * len(corpus.texts)
    kinds = set()
    for prediction in predictions.texts:
        position = index.get(prediction.text)
        if position is None:
            raise ScoringInputError(
                f"{prediction.origin}: text not found in the gold standard "
                f"(texts are matched exactly): {prediction.text[:60]!r}"
            )
        if aligned[position] is not None:
            raise ScoringInputError(
                f"{prediction.origin}: second prediction for the text of {aligned[position].origin}"  # type: ignore[union-attr]
            )
        aligned[position] = prediction
        kinds.add(prediction.spans is not None)
    if len(kinds) > 1:
        raise ScoringInputError(
            f"{predictions.source}: mixes span predictions and per-sentence outputs"
        )
    return aligned
