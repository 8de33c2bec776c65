"""The MAFALDA JSON Lines format (Helwe et al., 2024).

One object a line: ``text``; ``labels``, ``[start, end, label]`` triples (end exclusive;
triples sharing ``(start, end)`` are alternative labels of one span); ``comments``, a list of
strings; ``sentences_with_labels``, a JSON-encoded *string* holding an object
``{sentence: [[label, ...], ...]}`` whose keys, in order, are the text's sentence units.
Label spellings are MAFALDA's: lower case except ``"Appeal to Ridicule"``; ``"nothing"`` is
⊥ ("no fallacy" is acceptable); ``"to clean"`` marks regions the authors excluded.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any

from annotations.importing.formats.jsonl import (
    LabelTriple,
    RecordChecker,
    Source,
    iter_json_objects,
    source_name,
    write_jsonl,
)
from annotations.importing.formats.text_limit import checked_text

NOTHING = "nothing"
TO_CLEAN = "to clean"
# The 23 level-2 types, spelt as in MAFALDA's files.
LABELS: tuple[str, ...] = (
    "ad hominem",
    "ad populum",
    "appeal to (false) authority",
    "appeal to anger",
    "appeal to fear",
    "appeal to nature",
    "appeal to pity",
    "appeal to positive emotion",
    "Appeal to Ridicule",
    "appeal to tradition",
    "appeal to worse problems",
    "causal oversimplification",
    "circular reasoning",
    "equivocation",
    "fallacy of division",
    "false analogy",
    "false causality",
    "false dilemma",
    "guilt by association",
    "hasty generalization",
    "slippery slope",
    "straw man",
    "tu quoque",
)


@dataclass(frozen=True)
class MafaldaRecord:
    line: int
    text: str
    labels: list[LabelTriple]
    comments: list[str] = field(default_factory=list)
    sentence_units: list[str] | None = None  # keys of sentences_with_labels, if present


def _sentence_units(check: RecordChecker) -> list[str] | None:
    if "sentences_with_labels" not in check.record:
        return None
    raw = check.string("sentences_with_labels")
    try:
        # Pairs, not a dict: a repeated sentence stays a separate unit.
        pairs = json.loads(raw, object_pairs_hook=lambda pairs: pairs)
    except json.JSONDecodeError as error:
        raise check.fail(
            "sentences_with_labels", f"the string does not hold valid JSON: {error.msg}"
        ) from None
    if not isinstance(pairs, list) or (pairs and not isinstance(pairs[0], tuple)):
        raise check.fail("sentences_with_labels", "the string does not hold a JSON object")
    return [sentence for sentence, _ in pairs]


def read_mafalda(source: Source, *, name: str | None = None) -> Iterator[MafaldaRecord]:
    """Validated records, streamed; ``DatasetFormatError`` at the first bad line."""
    name = source_name(source, name)
    for line, record in iter_json_objects(source, name):
        check = RecordChecker(name, line, record)
        text = checked_text(check.string("text"), name=name, line=line)
        yield MafaldaRecord(
            line=line,
            text=text,
            labels=check.triples("labels", text),
            comments=check.string_list("comments"),
            sentence_units=_sentence_units(check),
        )


def sentences_with_labels(sentences: Iterable[tuple[str, list[list[str]]]]) -> str:
    """The JSON string of ``{sentence: [[label, ...], ...]}``, written pair by pair so that
    a sentence repeated in a text keeps its own entry."""
    items = (f"{json.dumps(sentence)}: {json.dumps(groups)}" for sentence, groups in sentences)
    return "{" + ", ".join(items) + "}"


def mafalda_object(
    *,
    text: str,
    labels: Iterable[tuple[int, int, str]],
    comments: list[str],
    sentences: Iterable[tuple[str, list[list[str]]]],
) -> dict[str, Any]:
    return {
        "text": text,
        "labels": [[start, end, label] for start, end, label in labels],
        "comments": comments,
        "sentences_with_labels": sentences_with_labels(sentences),
    }


def write_mafalda(objects: Iterable[dict[str, Any]], out: IO[str]) -> int:
    """Write objects made by ``mafalda_object``; return how many."""
    return write_jsonl(iter(objects), out)
