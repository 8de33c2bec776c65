"""The FLUB JSON Lines format (THUKElab/FLUB: "cunning texts" in Chinese).

One object a line with seven fields, all required: ``text`` (string), ``is_question``
(boolean), ``type`` (the raw type string; the file has it ``null`` or ``NaN`` when the
text has none), ``explanation`` (string), ``id`` (string or integer), ``options`` (an
object whose keys are among ``A``-``D``, each a string) and ``answer`` (one of the option
keys). ``NaN`` is not JSON but the published file has it (a pandas export); the reader
accepts it and keeps the record exactly as read, so that writing it back gives the line's
values again (``NaN`` included).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Any

from annotations.importing.formats.jsonl import (
    RecordChecker,
    Source,
    iter_json_objects,
    json_kind,
    source_name,
    write_jsonl,
)
from annotations.importing.formats.text_limit import checked_text

FIELDS = ("text", "is_question", "type", "explanation", "id", "options", "answer")
OPTION_KEYS = ("A", "B", "C", "D")


def is_nan(value: Any) -> bool:
    return isinstance(value, float) and math.isnan(value)


@dataclass(frozen=True)
class FlubRecord:
    line: int
    text: str
    is_question: bool
    type: str | None  # None: the file has null or NaN (see ``record``)
    explanation: str
    id: str
    options: dict[str, str]
    answer: str
    record: dict[str, Any]  # the object as read, key order and NaN kept


def _check(check: RecordChecker) -> FlubRecord:
    record = check.record
    for key in FIELDS:
        if key not in record:
            raise check.fail(key, "required field is missing")
    text = checked_text(check.string("text"), name=check.name, line=check.line)
    if not text.strip():
        raise check.fail("text", "the text is blank")
    is_question = record["is_question"]
    if not isinstance(is_question, bool):
        raise check.fail("is_question", f"expected true or false, got {json_kind(is_question)}")
    raw_type = record["type"]
    if raw_type is not None and not is_nan(raw_type) and not isinstance(raw_type, str):
        raise check.fail("type", f"expected a string, null or NaN, got {json_kind(raw_type)}")
    explanation = check.string("explanation")
    raw_id = record["id"]
    if isinstance(raw_id, bool) or not isinstance(raw_id, str | int) or str(raw_id).strip() == "":
        raise check.fail(
            "id", f"expected a non-empty string or an integer, got {json_kind(raw_id)}"
        )
    options = record["options"]
    if not isinstance(options, dict) or not options:
        raise check.fail("options", f"expected an object of options A-D, got {json_kind(options)}")
    for key, value in options.items():
        if key not in OPTION_KEYS:
            raise check.fail(f"options.{key}", "option keys are A, B, C and D")
        if not isinstance(value, str):
            raise check.fail(f"options.{key}", f"expected a string, got {json_kind(value)}")
    answer = record["answer"]
    if not isinstance(answer, str) or answer not in options:
        raise check.fail(
            "answer", f"expected one of the option keys {', '.join(options)}, got {answer!r}"
        )
    return FlubRecord(
        line=check.line,
        text=text,
        is_question=is_question,
        type=raw_type if isinstance(raw_type, str) else None,
        explanation=explanation,
        id=str(raw_id).strip(),
        options=dict(options),
        answer=answer,
        record=record,
    )


def read_flub(source: Source, *, name: str | None = None) -> Iterator[FlubRecord]:
    """Validated records, streamed; ``DatasetFormatError`` at the first bad line."""
    name = source_name(source, name)
    for line, record in iter_json_objects(source, name):
        yield _check(RecordChecker(name, line, record))


def write_flub(records: Iterable[dict[str, Any]], out: IO[str]) -> int:
    """Write records (``NaN`` written as the published file has it); return how many."""
    return write_jsonl(iter(records), out)
