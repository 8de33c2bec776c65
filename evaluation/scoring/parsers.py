"""Output parsers: raw model output -> set of labels, or ``UNREADABLE``.

Each parser is a named, versioned unit (bump ``version`` whenever its behaviour changes,
since scores depend on it). Returned labels are normalised level-2 type names and/or ⊥.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final, Literal, Protocol

from .core import NO_FALLACY, ScoringInputError, normalise_label
from .levels import MAFALDA_TYPE_TO_CATEGORY

UNREADABLE: Final = "unreadable"
ParseResult = frozenset[str] | Literal["unreadable"]

_THINK_RE = re.compile(r"<think>.*?(?:</think>|$)", re.DOTALL | re.IGNORECASE)
_ANSWER_RE = re.compile(r"(?:final answer|answer)\s*:\s*", re.IGNORECASE)


def strip_reasoning(output: str) -> str:
    """The answer part of an output: ``<think>`` blocks removed, and the text after the
    last "Answer:" (or "Final answer:") when there is one."""
    text = _THINK_RE.sub("", output)
    matches = list(_ANSWER_RE.finditer(text))
    if matches:
        text = text[matches[-1].end() :]
    return text.strip()


class OutputParser(Protocol):
    name: str
    version: str

    def parse(self, output: str) -> ParseResult: ...


# Keyword -> label, in the order of the published scorer (spec, mafalda-2024 step 1.3).
KEYWORDS: tuple[tuple[str, str], ...] = (
    ("emotion", "appeal to positive emotion"),
    ("anger", "appeal to anger"),
    ("fear", "appeal to fear"),
    ("pity", "appeal to pity"),
    ("ridicule", "appeal to ridicule"),
    ("worse", "appeal to worse problems"),
    ("problems", "appeal to worse problems"),
    ("oversimplification", "causal oversimplification"),
    ("circular", "circular reasoning"),
    ("equivocation", "equivocation"),
    ("analogy", "false analogy"),
    ("causality", "false causality"),
    ("dilemma", "false dilemma"),
    ("generalization", "hasty generalization"),
    ("slippery", "slippery slope"),
    ("slope", "slippery slope"),
    ("straw", "straw man"),
    ("division", "fallacy of division"),
    ("hominem", "ad hominem"),
    ("populum", "ad populum"),
    ("authority", "appeal to (false) authority"),
    ("nature", "appeal to nature"),
    ("tradition", "appeal to tradition"),
    ("association", "guilt by association"),
    ("quoque", "tu quoque"),
)
NO_FALLACY_RE = re.compile(
    r"\b(?:does not contain|no|none|not|false|nothing|is not part|not necessarily part"
    r"|no fallacious|not fallacious)\b"
)
_PUNCTUATION_RE = re.compile(r"[^\w\s]")


@dataclass(frozen=True)
class KeywordParser:
    """The published MAFALDA keyword parser (spec, profile ``mafalda-2024`` step 1).

    Returns ``UNREADABLE`` where the published scorer yields ``{unknown}``.
    """

    name: str = "keyword"
    version: str = "1"

    def parse(self, output: str) -> ParseResult:
        cut = output.find("Output:")
        if cut != -1:
            output = output[cut:]
        cut = output.find("Based on the above text, determine")
        if cut != -1:
            output = output[:cut]
        cleaned = _PUNCTUATION_RE.sub(" ", output.lower())
        cut = cleaned.find("based on the above")
        if cut != -1:
            cleaned = cleaned[:cut]
        labels = {label for keyword, label in KEYWORDS if keyword in cleaned}
        if NO_FALLACY_RE.search(cleaned):
            labels.add(NO_FALLACY)
        return frozenset(labels) if labels else UNREADABLE


# Whole-output phrases that mean "no fallacy" for the strict and json parsers.
NO_FALLACY_PHRASES: frozenset[str] = frozenset(
    {
        NO_FALLACY,
        "no fallacies",
        "not a fallacy",
        "not fallacious",
        "no fallacy found",
        "no fallacy detected",
        "the sentence is not part of a fallacious argument",
        "this sentence is not part of a fallacious argument",
        "the text does not contain a fallacy",
        "the text does not contain any fallacy",
    }
)
_SEPARATORS_RE = re.compile(r"[,;\n|]")
_BULLET_RE = re.compile(r"^(?:[-*•]|\d+[.)])\s*")
_STRIP_CHARS = " \t\"'`.!*"


class _LabelTable:
    """Exact spellings (names, aliases, ⊥ phrases) -> normalised label."""

    def __init__(self, labels: Iterable[str], aliases: dict[str, str] | None = None) -> None:
        self.by_spelling = {normalise_label(label): normalise_label(label) for label in labels}
        for alias, label in (aliases or {}).items():
            self.by_spelling[normalise_label(alias)] = normalise_label(label)
        for phrase in NO_FALLACY_PHRASES:
            self.by_spelling[phrase] = NO_FALLACY

    def lookup(self, piece: str) -> str | None:
        key = normalise_label(_BULLET_RE.sub("", piece.strip()).strip(_STRIP_CHARS))
        if key == NO_FALLACY:  # every ⊥ spelling (nothing, none, ...)
            return NO_FALLACY
        return self.by_spelling.get(key)


@dataclass(frozen=True)
class StrictParser:
    """Accepts only exact label names/aliases (case-insensitive) or "no fallacy" phrases.

    The output may list several, separated by commas, semicolons, ``|`` or new lines
    (list bullets and surrounding quotes/periods are ignored). Any other piece makes the
    whole output unreadable.
    """

    table: _LabelTable
    name: str = "strict"
    version: str = "1"

    def parse(self, output: str) -> ParseResult:
        pieces = [piece for piece in _SEPARATORS_RE.split(output) if piece.strip(_STRIP_CHARS)]
        if not pieces:
            return UNREADABLE
        labels = set()
        for piece in pieces:
            label = self.table.lookup(piece)
            if label is None:
                return UNREADABLE
            labels.add(label)
        return frozenset(labels)


_FENCE_RE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)
_LABEL_KEYS = ("labels", "fallacies", "fallacy", "label", "types", "type")


@dataclass(frozen=True)
class JsonParser:
    """A JSON list or object of labels, possibly inside a ```json fence.

    Accepted: ``["ad hominem"]``, ``"ad hominem"``, ``{"labels": [...]}`` (or the keys
    ``fallacies``, ``fallacy``, ``label``, ``types``, ``type``). An empty list, ``null`` or
    a "no fallacy" phrase mean ⊥. Strings are matched like the strict parser; unknown
    strings are ignored unless nothing is known, then the output is unreadable.
    """

    table: _LabelTable
    name: str = "json"
    version: str = "1"

    def parse(self, output: str) -> ParseResult:
        value = self._load(output)
        if value is UNREADABLE:
            return UNREADABLE
        if isinstance(value, dict):
            key = next((k for k in _LABEL_KEYS if k in value), None)
            if key is None:
                return UNREADABLE
            value = value[key]
        if value is None:
            return frozenset({NO_FALLACY})
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            return UNREADABLE
        if not value:
            return frozenset({NO_FALLACY})
        labels = {label for item in value if (label := self.table.lookup(item)) is not None}
        return frozenset(labels) if labels else UNREADABLE

    @staticmethod
    def _load(output: str) -> object:
        fenced = _FENCE_RE.search(output)
        candidates = [fenced.group(1)] if fenced else []
        stripped = output.strip()
        candidates.append(stripped)
        for opening, closing in (("[", "]"), ("{", "}")):
            first, last = stripped.find(opening), stripped.rfind(closing)
            if first != -1 and last > first:
                candidates.append(stripped[first : last + 1])
        for candidate in candidates:
            try:
                return json.loads(candidate)
            except ValueError:
                continue
        return UNREADABLE


@dataclass(frozen=True)
class TaxonomyKeywordParser:
    """The keyword reading for a taxonomy other than MAFALDA's (whose keyword list is the
    published parser's): every label name or alias of ``table`` that occurs as whole words
    in the output (case-insensitive, punctuation read as spaces); none found but a negation
    (``NO_FALLACY_RE``): ⊥; nothing: unreadable."""

    table: _LabelTable
    name: str = "taxonomy-keyword"
    version: str = "1"

    def parse(self, output: str) -> ParseResult:
        cleaned = f" {' '.join(_PUNCTUATION_RE.sub(' ', output.lower()).split())} "
        labels = set()
        for spelling, label in self.table.by_spelling.items():
            words = " ".join(_PUNCTUATION_RE.sub(" ", spelling).split())
            if label != NO_FALLACY and words and f" {words} " in cleaned:
                labels.add(label)
        if not labels and NO_FALLACY_RE.search(cleaned):
            labels.add(NO_FALLACY)
        return frozenset(labels) if labels else UNREADABLE


def taxonomy_parser(
    name: str, labels: Iterable[str], aliases: dict[str, str] | None = None
) -> OutputParser:
    """The parser ``name`` reading ``labels`` (a taxonomy's own): ``keyword`` becomes
    ``TaxonomyKeywordParser``; ``strict`` and ``json`` match those labels."""
    if name == "keyword":
        return TaxonomyKeywordParser(_LabelTable(labels, aliases))
    return make_parser(name, labels=labels, aliases=aliases)


def _mafalda_table() -> _LabelTable:
    return _LabelTable(MAFALDA_TYPE_TO_CATEGORY)


def make_parser(
    name: str, labels: Iterable[str] | None = None, aliases: dict[str, str] | None = None
) -> OutputParser:
    """A parser by name; ``strict``/``json`` match ``labels`` (default: MAFALDA types)."""
    if name == "keyword":
        return KeywordParser()
    table = _LabelTable(labels, aliases) if labels is not None else _mafalda_table()
    if name == "strict":
        return StrictParser(table)
    if name == "json":
        return JsonParser(table)
    raise ScoringInputError(f"unknown parser {name!r}; available: {', '.join(PARSER_NAMES)}")


PARSER_NAMES: tuple[str, ...] = ("keyword", "strict", "json")
_REGISTRY: dict[str, OutputParser] = {}


def get_parser(name: str) -> OutputParser:
    """The registered parser ``name`` (MAFALDA label set for ``strict``/``json``)."""
    if name not in _REGISTRY:
        _REGISTRY[name] = make_parser(name)
    return _REGISTRY[name]
