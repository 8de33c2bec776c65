"""Reading a file of published item-run outputs: one record per item, its id and the
model's raw answer (plain Python, no Django).

Three shapes, chosen by the file name as for item imports (``.jsonl``/``.json``/
``.ndjson``: JSON, anything else: CSV):

- JSON Lines (the default): ``{"id": <item id>, "output": <raw answer>}`` one a line;
- a JSON array of such objects (a JSON file whose first character, blanks aside, is
  ``[``): each object is numbered by the line it starts on;
- CSV with a header row: the columns ``id`` and ``output``.

``id_column`` / ``output_column`` rename the id and the output (JSON keys or CSV
columns). An id is a non-blank string or an integer (read as its decimal digits); an
output is a string (an empty one is an answer nobody can read: it counts as unparseable)
or a JSON list of strings (stored as its JSON text, which the label parsers read as a
list). ``output_column`` ``*`` (``WHOLE_RECORD``) takes the whole record as the answer,
stored as its JSON text: SmartyPat's published outputs ``{id, sentence, logic_error,
logic_fallacies, details}`` are read through their ``logic_error`` / ``logic_fallacies``
keys (a CSV row becomes the object of its header's columns). ``id_prefix`` is put before
every id (``good-`` turns a benign file's ``1`` into the item id ``good-1``).
The first bad record raises ``DatasetFormatError`` naming the file, line and key/column.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from annotations.importing.formats import DatasetFormatError
from annotations.importing.formats.csv import csv_rows, header_names
from annotations.importing.formats.item_columns import is_jsonl
from annotations.importing.formats.jsonl import (
    Source,
    decode_array_element,
    iter_json_objects,
    json_kind,
    open_text,
    undecodable_line,
)
from annotations.importing.formats.storable import json_problem, shown
from annotations.importing.parsing import content_of

ID_COLUMN = "id"
OUTPUT_COLUMN = "output"
WHOLE_RECORD = "*"
SPAN_RUN_KEYS = ("text", "prediction")
PEEK_CHARS = 4096


@dataclass(frozen=True)
class OutputRecord:
    line: int
    id: str
    output: str


@dataclass(frozen=True)
class OutputColumns:
    id: str = ID_COLUMN
    output: str = OUTPUT_COLUMN
    id_prefix: str = ""

    @property
    def whole_record(self) -> bool:
        return self.output == WHOLE_RECORD


def file_shape(source: Source, name: str) -> str:
    """``jsonl``, ``json`` (an array) or ``csv``."""
    if not is_jsonl(name):
        return "csv"
    return "json" if _first_char(source) == "[" else "jsonl"


def _first_char(source: Source) -> str:
    """The first character that is not blank (nor a byte-order mark); the stream is left
    where it was."""
    if isinstance(source, str | Path):
        with open(source, "rb") as stream:
            head = stream.read(PEEK_CHARS)
    else:
        position = source.tell()
        head = source.read(PEEK_CHARS)
        source.seek(position)
    if isinstance(head, bytes):
        head = head.decode("utf-8", errors="replace")
    return head.lstrip("\ufeff \t\r\n")[:1]


def read_outputs(source: Source, *, name: str, columns: OutputColumns) -> Iterator[OutputRecord]:
    """The file's records, validated one by one (see the module docstring)."""
    shape = file_shape(source, name)
    if shape == "csv":
        yield from _csv_records(source, name, columns)
        return
    objects = _array_objects(source, name) if shape == "json" else iter_json_objects(source, name)
    for line, record in objects:
        yield _json_record(name, line, record, columns)


def _json_record(name: str, line: int, record: Any, columns: OutputColumns) -> OutputRecord:
    if not isinstance(record, dict):
        raise DatasetFormatError(
            name, line, None, f"expected a JSON object, got {json_kind(record)}"
        )
    if columns.id not in record and all(key in record for key in SPAN_RUN_KEYS):
        raise DatasetFormatError(
            name,
            line,
            columns.id,
            "this is a span run's record ({text, prediction}); an item run's outputs are "
            f'one record per item: {{"{columns.id}": <item id>, "{columns.output}": <raw answer>}}',
        )
    for key in (columns.id,) if columns.whole_record else (columns.id, columns.output):
        if key not in record:
            raise DatasetFormatError(name, line, key, _missing(key, columns))
    item_id = record[columns.id]
    if isinstance(item_id, bool) or not isinstance(item_id, str | int):
        raise DatasetFormatError(
            name, line, columns.id, f"expected a string or an integer, got {json_kind(item_id)}"
        )
    if columns.whole_record:
        return _record(name, line, str(item_id), json.dumps(record, ensure_ascii=False), columns)
    output = record[columns.output]
    if isinstance(output, list) and all(isinstance(piece, str) for piece in output):
        output = json.dumps(output, ensure_ascii=False)
    if not isinstance(output, str):
        raise DatasetFormatError(
            name,
            line,
            columns.output,
            f"expected a string or a list of strings, got {json_kind(output)}",
        )
    return _record(name, line, str(item_id), output, columns)


def _missing(key: str, columns: OutputColumns) -> str:
    if key != columns.output:
        return "required field is missing"
    return (
        f"required field is missing (the output column {WHOLE_RECORD!r} takes the whole record"
        " as the answer, as for SmartyPat's {id, logic_error, logic_fallacies} records)"
    )


def _record(
    name: str, line: int, item_id: str, output: str, columns: OutputColumns
) -> OutputRecord:
    if not item_id.strip():
        raise DatasetFormatError(name, line, columns.id, "the item id is blank")
    return OutputRecord(line=line, id=columns.id_prefix + item_id.strip(), output=output)


def _csv_records(source: Source, name: str, columns: OutputColumns) -> Iterator[OutputRecord]:
    rows = csv_rows(source, name=name)
    try:
        _, header = next(rows)
    except StopIteration:
        raise DatasetFormatError(name, 1, None, "the file has no header row") from None
    names = header_names(name, header)
    wanted = (columns.id,) if columns.whole_record else (columns.id, columns.output)
    for column in wanted:
        if column not in names:
            raise DatasetFormatError(
                name,
                1,
                column,
                f"no column named {column!r} in the file (columns: {', '.join(names)})",
            )
    id_at = names.index(columns.id)
    output_at = None if columns.whole_record else names.index(columns.output)
    for line, fields in rows:
        if len(fields) != len(names):
            raise DatasetFormatError(
                name,
                line,
                None,
                f"expected {len(names)} fields (as in the header), got {len(fields)}",
            )
        if output_at is None:
            output = json.dumps(dict(zip(names, fields, strict=True)), ensure_ascii=False)
        else:
            output = fields[output_at]
        yield _record(name, line, fields[id_at], output, columns)


def _array_objects(source: Source, name: str) -> Iterator[tuple[int, Any]]:
    """``(line, element)`` for each element of a JSON array, the line where it starts."""
    text = _read_all(source, name)
    decoder = json.JSONDecoder()
    lines = _LineCounter(text)
    position = _skip_blanks(text, text.index("["))
    position = _skip_blanks(text, position + 1)
    if text.startswith("]", position):
        _trailing(text, position + 1, name, lines)
        return
    while True:
        line = lines.at(position)
        element, position = decode_array_element(decoder, text, position, name=name, line=line)
        found = json_problem(element)
        if found:
            raise DatasetFormatError(name, line, shown(found[0]) or None, found[1])
        yield line, element
        position = _skip_blanks(text, position)
        if text.startswith("]", position):
            _trailing(text, position + 1, name, lines)
            return
        if not text.startswith(",", position):
            raise DatasetFormatError(
                name, lines.at(position), None, "invalid JSON: expected ',' or ']' after an element"
            )
        position = _skip_blanks(text, position + 1)


def _trailing(text: str, position: int, name: str, lines: _LineCounter) -> None:
    rest = _skip_blanks(text, position)
    if rest < len(text):
        raise DatasetFormatError(
            name, lines.at(rest), None, "invalid JSON: text after the end of the array"
        )


def _read_all(source: Source, name: str) -> str:
    try:
        with open_text(source) as stream:
            return stream.read().lstrip("\ufeff")
    except UnicodeDecodeError as error:
        line = undecodable_line(source) or 1
        raise DatasetFormatError(name, line, None, f"not UTF-8 text: {error.reason}") from None


def _skip_blanks(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t\r\n":
        position += 1
    return position


class _LineCounter:
    """Line numbers of increasing positions in a text (counted once, left to right)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.position = 0
        self.line = 1

    def at(self, position: int) -> int:
        self.line += self.text.count("\n", self.position, position)
        self.position = position
        return self.line


def parse_outputs_here(source: bytes | str, name: str, id_column: str, output_column: str) -> None:
    """Every record of the file read (in the bounded child, ``importing.parsing``); what is
    wrong with one is the import's to name."""
    content = content_of(source)
    columns = OutputColumns(id=id_column, output=output_column)
    try:
        for _ in read_outputs(io.BytesIO(content), name=name, columns=columns):
            pass
    except DatasetFormatError:
        return
