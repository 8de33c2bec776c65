"""doccano's JSON Lines export for sequence labelling, as in MAFALDA's ``users_results``.

One object a line: ``id``, ``text``, ``label`` (``[start, end, label]`` triples, end
exclusive) and ``Comments`` (a list of strings). Label spellings are the project's own
(MAFALDA's, for MAFALDA data).
"""

from __future__ import annotations

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


@dataclass(frozen=True)
class DoccanoRecord:
    line: int
    id: int | str | None
    text: str
    labels: list[LabelTriple]
    comments: list[str] = field(default_factory=list)


def _record_id(check: RecordChecker) -> int | str | None:
    value = check.record.get("id")
    if value is None or (isinstance(value, int | str) and not isinstance(value, bool)):
        return value
    raise check.fail("id", "expected an integer or a string")


def read_doccano(source: Source, *, name: str | None = None) -> Iterator[DoccanoRecord]:
    """Validated records, streamed; ``DatasetFormatError`` at the first bad line."""
    name = source_name(source, name)
    for line, record in iter_json_objects(source, name):
        check = RecordChecker(name, line, record)
        text = checked_text(check.string("text"), name=name, line=line)
        yield DoccanoRecord(
            line=line,
            id=_record_id(check),
            text=text,
            labels=check.triples("label", text),
            comments=check.string_list("Comments"),
        )


def doccano_object(
    *,
    id: int | str,  # the format's own field name
    text: str,
    labels: Iterable[tuple[int, int, str]],
    comments: list[str],
) -> dict[str, Any]:
    return {
        "id": id,
        "text": text,
        "label": [[start, end, label] for start, end, label in labels],
        "Comments": comments,
    }


def write_doccano(objects: Iterable[dict[str, Any]], out: IO[str]) -> int:
    return write_jsonl(iter(objects), out)
