"""Scoring inside an evaluation harness (lm-evaluation-harness, Inspect): the per-sentence
outputs of a task the platform exported, scored as the platform scores the same outputs
once they are imported as a run.

An exported task folder holds ``scoring.json`` (the parser, how the answer is read, the
taxonomy's levels, where it came from) and ``gold.jsonl`` (one document a line: ``id``,
``text``, ``spans`` as ``[start, end, [alternative labels]]``). ``HarnessTask.load(folder)``
reads them; a harness turns each sample into a ``UnitOutput`` (document id, unit index, raw
output) and ``HarnessTask.report(outputs)`` scores them: the gold of the documents with at
least one output, each document's outputs in unit order as per-sentence predictions, the
variant's parser reading the answer part, profile ``paper``, averaged per text.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .core import Corpus, GoldSpan, Predictions, SentenceOutput, TextGold, TextPrediction
from .core import normalise_label as _normalise
from .levels import LevelMapping
from .parsers import OutputParser, get_parser, strip_reasoning, taxonomy_parser
from .report import Report, score

SCORING_FILE = "scoring.json"
GOLD_FILE = "gold.jsonl"
LEVELS: tuple[int, ...] = (0, 1, 2)
ANSWER_KINDS: tuple[str, ...] = ("output", "reasoning")


@dataclass(frozen=True)
class UnitOutput:
    """One sample's output: the sentence ``unit`` of document ``document``."""

    document: int
    unit: int
    output: str

    def to_dict(self) -> dict[str, Any]:
        return {"document": self.document, "unit": self.unit, "output": self.output}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> UnitOutput:
        return cls(int(data["document"]), int(data["unit"]), str(data["output"]))


@dataclass(frozen=True)
class GoldDocument:
    id: int
    text: str
    spans: tuple[GoldSpan, ...]
    units: tuple[str, ...]


@dataclass(frozen=True)
class HarnessTask:
    """The scoring settings and gold of an exported task."""

    parser_name: str
    answer: str  # "output": the whole output; "reasoning": the part after the reasoning
    mapping: LevelMapping
    mafalda: bool  # MAFALDA's taxonomy: the registered parsers read its published labels
    documents: Mapping[int, GoldDocument]
    source: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def load(cls, folder: str | Path) -> HarnessTask:
        folder = Path(folder)
        settings = json.loads((folder / SCORING_FILE).read_text(encoding="utf-8"))
        documents: dict[int, GoldDocument] = {}
        with (folder / GOLD_FILE).open(encoding="utf-8") as lines:
            for line in lines:
                if line.strip():
                    document = _gold_document(json.loads(line))
                    documents[document.id] = document
        return cls.from_settings(settings, documents)

    @classmethod
    def from_settings(
        cls, settings: Mapping[str, Any], documents: Mapping[int, GoldDocument]
    ) -> HarnessTask:
        taxonomy = settings["taxonomy"]
        if settings["answer"] not in ANSWER_KINDS:
            raise ValueError(f"scoring.json: answer must be one of {ANSWER_KINDS}")
        return cls(
            parser_name=settings["parser"],
            answer=settings["answer"],
            mapping=LevelMapping(
                taxonomy["type_to_category"], taxonomy.get("aliases", {}), name=taxonomy["name"]
            ),
            mafalda=bool(taxonomy.get("mafalda")),
            documents=documents,
            source=settings.get("source", {}),
        )

    def parser(self) -> str | OutputParser:
        """The parser the platform scores the run with (``evaluation.runs.stored.span_parser``)."""
        if self.mafalda:
            return get_parser(self.parser_name).name  # checks the name
        return taxonomy_parser(
            self.parser_name, sorted(self.mapping.labels_at(2)), dict(self.mapping.aliases)
        )

    def answer_of(self, output: str) -> str:
        """The part of an output the parser reads."""
        return strip_reasoning(output) if self.answer == "reasoning" else output

    def report(self, outputs: Iterable[UnitOutput], levels: Iterable[int] = LEVELS) -> Report:
        """The outputs scored against the gold of the documents they cover."""
        by_document: dict[int, dict[int, str]] = {}
        for item in outputs:
            document = self.documents.get(item.document)
            if document is None or not 0 <= item.unit < len(document.units):
                raise ValueError(f"no unit {item.unit} of document {item.document} in the gold")
            by_document.setdefault(item.document, {})[item.unit] = self.answer_of(item.output)
        covered = [document for key, document in self.documents.items() if key in by_document]
        corpus = Corpus(
            [TextGold(d.text, d.spans, f"document {d.id}") for d in covered], source="gold"
        )
        predictions = Predictions(
            [
                TextPrediction(
                    d.text,
                    sentences=tuple(
                        SentenceOutput(d.units[unit], output)
                        for unit, output in sorted(by_document[d.id].items())
                    ),
                    origin=f"document {d.id}",
                )
                for d in covered
            ],
            source="harness outputs",
        )
        return score(
            corpus,
            predictions,
            profile="paper",
            levels=sorted(levels),
            parser=self.parser(),
            average="text",
            mapping=self.mapping,
        )

    def f1(self, outputs: Iterable[UnitOutput], level: int = 2) -> float:
        """F1 at ``level`` (the platform's leaderboard figure)."""
        return self.report(outputs, levels=range(level + 1)).levels[level].f1


def _gold_document(data: Mapping[str, Any]) -> GoldDocument:
    text = data["text"]
    spans = tuple(
        GoldSpan(int(start), int(end), frozenset(_normalise(label) for label in labels))
        for start, end, labels in data["spans"]
    )
    return GoldDocument(int(data["id"]), text, spans, tuple(data["units"]))
