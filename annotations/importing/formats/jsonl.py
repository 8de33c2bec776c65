"""Streaming JSON Lines and the checks the record readers share."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from annotations.importing.formats.errors import DatasetFormatError
from annotations.importing.formats.storable import TOO_DEEP, json_problem, shown

Source = str | Path | IO[str] | IO[bytes]


@dataclass(frozen=True)
class LabelTriple:
    start: int
    end: int
    label: str


def source_name(source: Source, name: str | None = None) -> str:
    if name:
        return name
    if isinstance(source, str | Path):
        return str(source)
    return str(getattr(source, "name", "") or "<upload>")


@contextmanager
def open_text(source: Source) -> Iterator[IO[str]]:
    """A text stream over a path or an open (text or binary) file; only paths get closed."""
    if isinstance(source, str | Path):
        with open(source, encoding="utf-8", newline="") as stream:
            yield stream
    elif isinstance(source, io.TextIOBase):
        yield source
    else:
        wrapper = io.TextIOWrapper(source, encoding="utf-8", newline="")  # type: ignore[arg-type]
        try:
            yield wrapper
        finally:
            wrapper.detach()  # leave the caller's file open


def iter_json_objects(source: Source, name: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for each non-blank line; one line at a time in memory.
    ``DatasetFormatError`` for a line that is not a JSON object or holds text no database
    can store (``storable``)."""
    with open_text(source) as stream:
        line_number = 0
        try:
            for line_number, line in enumerate(stream, start=1):  # noqa: B007
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as error:
                    raise DatasetFormatError(
                        name, line_number, None, f"invalid JSON: {error.msg} (column {error.colno})"
                    ) from None
                except RecursionError:
                    raise DatasetFormatError(name, line_number, None, TOO_DEEP) from None
                if not isinstance(record, dict):
                    raise DatasetFormatError(
                        name, line_number, None, f"expected a JSON object, got {json_kind(record)}"
                    )
                found = json_problem(record)
                if found:
                    raise DatasetFormatError(name, line_number, shown(found[0]) or None, found[1])
                yield line_number, record
        except UnicodeDecodeError as error:
            line = undecodable_line(source) or line_number + 1
            raise DatasetFormatError(name, line, None, f"not UTF-8 text: {error.reason}") from None


def undecodable_line(source: Source) -> int | None:
    """The line of the first byte that is not UTF-8 (a stream decodes by chunks, so its
    position is not that of the line read last), or None if the bytes cannot be read again."""
    if isinstance(source, str | Path):
        data = Path(source).read_bytes()
    elif not isinstance(source, io.TextIOBase) and source.seekable():
        source.seek(0)
        data = source.read()
    else:
        return None
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        return data[: error.start].count(b"\n") + 1
    return None


def json_kind(value: object) -> str:
    return {
        dict: "an object",
        list: "an array",
        str: "a string",
        bool: "a boolean",
        int: "a number",
        float: "a number",
        type(None): "null",
    }.get(type(value), type(value).__name__)


class RecordChecker:
    """Field checks for one record, raising ``DatasetFormatError`` with its location."""

    def __init__(self, name: str, line: int, record: dict[str, Any]) -> None:
        self.name = name
        self.line = line
        self.record = record

    def fail(self, field: str | None, message: str) -> DatasetFormatError:
        return DatasetFormatError(self.name, self.line, field, message)

    def string(self, key: str, *, required: bool = True, default: str = "") -> str:
        if key not in self.record:
            if required:
                raise self.fail(key, "required field is missing")
            return default
        value = self.record[key]
        if not isinstance(value, str):
            raise self.fail(key, f"expected a string, got {json_kind(value)}")
        return value

    def string_list(self, key: str, *, required: bool = False) -> list[str]:
        if key not in self.record:
            if required:
                raise self.fail(key, "required field is missing")
            return []
        value = self.record[key]
        if not isinstance(value, list):
            raise self.fail(key, f"expected an array of strings, got {json_kind(value)}")
        for index, item in enumerate(value):
            if not isinstance(item, str):
                raise self.fail(f"{key}[{index}]", f"expected a string, got {json_kind(item)}")
        return value

    def triples(self, key: str, text: str) -> list[LabelTriple]:
        """``[[start, end, label], ...]`` with integer offsets inside ``text``."""
        if key not in self.record:
            raise self.fail(key, "required field is missing")
        value = self.record[key]
        if not isinstance(value, list):
            raise self.fail(
                key, f"expected an array of [start, end, label], got {json_kind(value)}"
            )
        triples: list[LabelTriple] = []
        for index, item in enumerate(value):
            where = f"{key}[{index}]"
            if not isinstance(item, list) or len(item) != 3:
                raise self.fail(where, "expected [start, end, label]")
            start, end, label = item
            for position, offset in ((0, start), (1, end)):
                if isinstance(offset, bool) or not isinstance(offset, int):
                    raise self.fail(
                        f"{where}[{position}]",
                        f"expected an integer offset, got {json_kind(offset)}",
                    )
            if start < 0:
                raise self.fail(f"{where}[0]", f"start {start} is negative")
            if end > len(text):
                raise self.fail(f"{where}[1]", f"end {end} is beyond the text (length {len(text)})")
            if start >= end:
                raise self.fail(f"{where}[1]", f"end {end} is not after start {start}")
            if not isinstance(label, str) or not label.strip():
                raise self.fail(f"{where}[2]", "expected a non-empty label string")
            triples.append(LabelTriple(start, end, label))
        return triples


def write_jsonl(records: Iterator[dict[str, Any]], out: IO[str]) -> int:
    """Write one compact JSON object a line (non-ASCII kept); return how many."""
    count = 0
    for record in records:
        out.write(json.dumps(record, ensure_ascii=False))
        out.write("\n")
        count += 1
    return count


def decode_array_element(
    decoder: json.JSONDecoder, text: str, position: int, *, name: str, line: int
) -> tuple[Any, int]:
    """The JSON value starting at ``position`` of a JSON array's text and the position after
    it; invalid or too deeply nested JSON raises ``DatasetFormatError`` naming the line."""
    try:
        return decoder.raw_decode(text, position)
    except json.JSONDecodeError as error:
        raise DatasetFormatError(
            name, error.lineno, None, f"invalid JSON: {error.msg} (column {error.colno})"
        ) from None
    except RecursionError:
        raise DatasetFormatError(name, line, None, TOO_DEEP) from None
