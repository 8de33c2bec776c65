"""Unannotated texts: ``.txt`` (one text per blank-line-separated block) or ``.jsonl``
(objects with ``text`` and optional ``id``, ``source`` and ``metadata``)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from annotations.importing.formats.errors import DatasetFormatError
from annotations.importing.formats.jsonl import (
    RecordChecker,
    Source,
    iter_json_objects,
    open_text,
    source_name,
    undecodable_line,
)
from annotations.importing.formats.storable import NUL
from annotations.importing.formats.text_limit import checked_text


@dataclass(frozen=True)
class TextRecord:
    line: int  # first line of the text in the file
    text: str
    external_id: str = ""
    source: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)


def read_text_blocks(source: Source, *, name: str | None = None) -> Iterator[TextRecord]:
    """One record per block of non-blank lines, stripped of surrounding whitespace.
    ``DatasetFormatError`` (at the line) for text that is not UTF-8 or holds a NUL."""
    name = source_name(source, name)
    with open_text(source) as stream:
        block: list[str] = []
        first_line = 0
        line_number = 0
        try:
            for line_number, line in enumerate(stream, start=1):  # noqa: B007
                if "\x00" in line:
                    raise DatasetFormatError(name, line_number, None, NUL)
                if line.strip():
                    if not block:
                        first_line = line_number
                    block.append(line)
                elif block:
                    yield _block(name, first_line, block)
                    block = []
        except UnicodeDecodeError as error:
            line = undecodable_line(source) or line_number + 1
            raise DatasetFormatError(name, line, None, f"not UTF-8 text: {error.reason}") from None
        if block:
            yield _block(name, first_line, block)


def _block(name: str, line: int, block: list[str]) -> TextRecord:
    return TextRecord(
        line=line, text=checked_text("".join(block).strip(), name=name, line=line, field=None)
    )


def read_text_jsonl(source: Source, *, name: str | None = None) -> Iterator[TextRecord]:
    name = source_name(source, name)
    for line, record in iter_json_objects(source, name):
        check = RecordChecker(name, line, record)
        text = checked_text(check.string("text"), name=name, line=line)
        if not text.strip():
            raise check.fail("text", "the text is blank")
        raw_id = record.get("id", "")
        if isinstance(raw_id, bool) or not isinstance(raw_id, int | str):
            raise check.fail("id", "expected an integer or a string")
        metadata = record.get("metadata", {})
        if not isinstance(metadata, dict):
            raise check.fail("metadata", "expected an object")
        yield TextRecord(
            line=line,
            text=text,
            external_id=str(raw_id),
            source=check.string("source", required=False),
            metadata=metadata,
        )


def read_texts(source: Source, *, name: str | None = None) -> Iterator[TextRecord]:
    """By file name: ``.jsonl`` as JSON Lines, anything else as blank-line-separated text."""
    name = source_name(source, name)
    reader = read_text_jsonl if name.lower().endswith(".jsonl") else read_text_blocks
    return reader(source, name=name)
