"""Items in any CSV or JSON Lines file, read through a column mapping (pure Python).

The mapping names, for each *role*, the column (CSV header name or JSON key) holding it::

    {"text": "post", "id": "pid",
     "options": "choices"            # one column holding a JSON object {"A": ..., ...}
     | ["A", "B", "C", "D"],          # or several columns, named by their option keys
     "answer": "gold",                # gold of the multiple-choice field (an option key)
     "label": "type",                 # gold of the classification field (one label)
     "labels": "types",               # gold of the ranked field (comma-separated or a list)
     "detection": "fallacious",       # gold of the detection field (true/false, yes/no,
                                      #   1/0, fallacious/sound)
     "segments": "passages",          # gold of the segmentation field: "Label: passage"
                                      #   lines, or [[start, end, label], ...] (JSON)
     "reference": "explanation",      # gold of the free-text field (a reference text)
     "candidate": "reply"}            # the text being rated or judged

Only ``text`` is required. A segment given as "Label: passage" is located in the text
(exactly; the first occurrence not taken by an earlier segment of the cell); a passage
that is not in the text is an error naming the cell's line. A role's value may also be
``{"column": ..., "field": NAME}`` to say which form field its gold belongs to (by default:
the form's field of that kind).
Whether the file is CSV or JSON Lines follows its name (``.jsonl``/``.json``/``.ndjson``:
JSON Lines). An empty cell (or a missing key, ``null``) is "no value": no gold for it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from annotations.importing.formats.csv import csv_rows, header_names
from annotations.importing.formats.errors import DatasetFormatError
from annotations.importing.formats.jsonl import Source, iter_json_objects, json_kind, source_name
from annotations.importing.formats.storable import TOO_DEEP, json_problem, shown
from annotations.importing.formats.text_limit import checked_text

ROLES = (
    "text",
    "id",
    "options",
    "answer",
    "label",
    "labels",
    "detection",
    "segments",
    "reference",
    "candidate",
)
GOLD_ROLES = {
    "answer": "multiple-choice",
    "label": "classification",
    "labels": "ranked",
    "detection": "detection",
    "segments": "segmentation",
    "reference": "free-text",
}
TRUE_WORDS = frozenset({"true", "yes", "1", "fallacious", "fallacy"})
FALSE_WORDS = frozenset({"false", "no", "0", "sound", "none", "no fallacy"})
SEGMENT_LINE = re.compile(r"^\s*(.+?)\s*:\s*(.+?)\s*$", re.DOTALL)
JSONL_SUFFIXES = (".jsonl", ".json", ".ndjson")


class ColumnMappingError(ValueError):
    """A bad mapping; ``problems`` maps ``columns.<role>`` to a message."""

    def __init__(self, problems: Mapping[str, str]) -> None:
        self.problems = dict(problems)
        super().__init__("; ".join(f"{place}: {text}" for place, text in self.problems.items()))


@dataclass(frozen=True)
class ItemColumns:
    text: str
    id: str = ""
    options: str | tuple[str, ...] = ""
    answer: str = ""
    label: str = ""
    labels: str = ""
    detection: str = ""
    segments: str = ""
    reference: str = ""
    candidate: str = ""
    fields: dict[str, str] = field(default_factory=dict)  # role -> form field name

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for role in ROLES:
            value = getattr(self, role)
            if not value:
                continue
            value = list(value) if isinstance(value, tuple) else value
            out[role] = (
                {"column": value, "field": self.fields[role]} if role in self.fields else value
            )
        return out

    def used(self) -> list[str]:
        names: list[str] = []
        for role in ROLES:
            value = getattr(self, role)
            names += list(value) if isinstance(value, tuple) else [value] if value else []
        return names


def parse_columns(data: Any) -> ItemColumns:
    """The mapping from JSON (a dict, or a JSON string); ``ColumnMappingError``."""
    if isinstance(data, str):
        try:
            data = json.loads(data) if data.strip() else {}
        except json.JSONDecodeError as error:
            raise ColumnMappingError({"columns": f"not valid JSON: {error.msg}"}) from None
        except RecursionError:
            raise ColumnMappingError({"columns": TOO_DEEP}) from None
    found = json_problem(data)
    if found:
        place = shown(found[0])
        raise ColumnMappingError({f"columns.{place}" if place else "columns": found[1]})
    if not isinstance(data, Mapping):
        raise ColumnMappingError({"columns": "must be an object mapping roles to columns"})
    problems: dict[str, str] = {}
    values: dict[str, Any] = {}
    fields: dict[str, str] = {}
    for role, raw in data.items():
        place = f"columns.{role}"
        if role not in ROLES:
            problems[place] = f"unknown role; the roles are {', '.join(ROLES)}"
            continue
        if isinstance(raw, Mapping):
            target = raw.get("field")
            if target is not None:
                if role not in GOLD_ROLES:
                    problems[place] = f"only {', '.join(GOLD_ROLES)} name a form field"
                elif not isinstance(target, str) or not target:
                    problems[f"{place}.field"] = "must be a form field name"
                else:
                    fields[role] = target
            raw = raw.get("column")
        if role == "options" and isinstance(raw, str) and "," in raw:
            raw = [part.strip() for part in raw.split(",")]
        if role == "options" and isinstance(raw, list):
            if len(raw) < 2 or not all(isinstance(c, str) and c.strip() for c in raw):
                problems[place] = "several option columns: a list of two or more column names"
                continue
            values[role] = tuple(c.strip() for c in raw)
        elif raw in (None, ""):
            continue
        elif not isinstance(raw, str):
            problems[place] = "must be a column name"
        else:
            values[role] = raw.strip()
    if "text" not in values and "columns.text" not in problems:
        problems["columns.text"] = "the text column is required"
    if problems:
        raise ColumnMappingError(problems)
    return ItemColumns(**values, fields=fields)


@dataclass(frozen=True)
class ItemRecord:
    line: int
    text: str
    id: str
    record: dict[str, Any]  # the row ({column: cell}) or the JSON object, as read
    options: dict[str, str] = field(default_factory=dict)
    candidate: str = ""
    answer: str | None = None
    label: str | None = None
    labels: list[str] | None = None
    detection: bool | None = None
    segments: list[tuple[int, int, str]] | None = None  # raw labels, located in the text
    reference: str | None = None


def is_jsonl(name: str) -> bool:
    return PurePath(name).suffix.lower() in JSONL_SUFFIXES


class _Reader:
    def __init__(self, name: str, columns: ItemColumns) -> None:
        self.name = name
        self.columns = columns

    def fail(self, line: int, field_name: str | None, message: str) -> DatasetFormatError:
        return DatasetFormatError(self.name, line, field_name, message)

    def check_header(self, available: list[str]) -> None:
        for column in self.columns.used():
            if column not in available:
                raise self.fail(
                    1,
                    column,
                    f"no column named {column!r} in the file (columns: {', '.join(available)})",
                )

    def string(self, line: int, record: Mapping[str, Any], column: str) -> str | None:
        """The value of ``column`` as text; None when absent, null or empty."""
        if not column or column not in record:
            return None
        value = record[column]
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise self.fail(line, column, f"expected a string, got {json_kind(value)}")
        text = value if isinstance(value, str) else str(value)
        return text if text.strip() else None

    def item(self, line: int, record: dict[str, Any]) -> ItemRecord:
        columns = self.columns
        text = self.string(line, record, columns.text)
        if text is None:
            raise self.fail(line, columns.text, "the text is blank or missing")
        checked_text(text, name=self.name, line=line, field=columns.text)
        item_id = self.string(line, record, columns.id) or ""
        options: dict[str, str] = {}
        if isinstance(columns.options, tuple):
            for column in columns.options:
                value = self.string(line, record, column)
                if value is not None:
                    options[column] = value
        elif columns.options:
            options = self.options_object(line, record.get(columns.options), columns.options)
        answer = self.string(line, record, columns.answer)
        if answer is not None:
            answer = answer.strip()
            if answer not in options:
                keys = ", ".join(options) or "none"
                raise self.fail(
                    line, columns.answer, f"{answer!r} is not an option key (options: {keys})"
                )
        labels = self.labels(line, record, columns.labels) if columns.labels else None
        label = self.string(line, record, columns.label)
        return ItemRecord(
            line=line,
            text=text,
            id=item_id.strip(),
            record=record,
            options=options,
            candidate=self.string(line, record, columns.candidate) or "",
            answer=answer,
            label=label.strip() if label is not None else None,
            labels=labels,
            detection=self.detection(line, record, columns.detection),
            segments=self.segments(line, record, columns.segments, text),
            reference=self.string(line, record, columns.reference),
        )

    def options_object(self, line: int, value: Any, column: str) -> dict[str, str]:
        if value in (None, ""):
            return {}
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except json.JSONDecodeError as error:
                raise self.fail(
                    line, column, f"not a JSON object of options: {error.msg}"
                ) from None
        if not isinstance(value, dict):
            raise self.fail(line, column, f"expected an object of options, got {json_kind(value)}")
        for key, text in value.items():
            if not isinstance(text, str):
                raise self.fail(
                    line, f"{column}.{key}", f"expected a string, got {json_kind(text)}"
                )
        return dict(value)

    def labels(self, line: int, record: Mapping[str, Any], column: str) -> list[str] | None:
        if column not in record or record[column] is None:
            return None
        value = record[column]
        if isinstance(value, list):
            if not all(isinstance(v, str) for v in value):
                raise self.fail(line, column, "expected a list of label strings")
            return [v.strip() for v in value if v.strip()]
        if not isinstance(value, str):
            raise self.fail(
                line, column, f"expected comma-separated labels, got {json_kind(value)}"
            )
        return [part.strip() for part in value.split(",") if part.strip()]

    def detection(self, line: int, record: Mapping[str, Any], column: str) -> bool | None:
        if not column or record.get(column) is None:
            return None
        value = record[column]
        if isinstance(value, bool):
            return value
        word = str(value).strip().casefold() if isinstance(value, str | int) else None
        if word == "":
            return None
        if word in TRUE_WORDS:
            return True
        if word in FALSE_WORDS:
            return False
        raise self.fail(
            line, column, f"expected true or false (yes/no, fallacious/sound), got {value!r}"
        )

    def segments(
        self, line: int, record: Mapping[str, Any], column: str, text: str
    ) -> list[tuple[int, int, str]] | None:
        if not column or record.get(column) is None:
            return None
        value = record[column]
        if isinstance(value, str) and value.lstrip().startswith("["):
            try:
                value = json.loads(value)
            except json.JSONDecodeError as error:
                raise self.fail(line, column, f"not a JSON list of segments: {error.msg}") from None
        if isinstance(value, list):
            return self.segment_ranges(line, column, value, text)
        if not isinstance(value, str):
            raise self.fail(line, column, f"expected segments, got {json_kind(value)}")
        if not value.strip():
            return None  # an empty cell: no gold, as for every role
        if value.strip().casefold() in ("none", "no fallacy"):
            return []
        segments: list[tuple[int, int, str]] = []
        for number, row in enumerate(value.splitlines(), start=1):
            if not row.strip():
                continue
            match = SEGMENT_LINE.match(row)
            if not match:
                raise self.fail(line, column, f"segment {number}: expected 'Label: passage'")
            label, passage = match.groups()
            start = _free_place(text, passage, segments)
            if start is None:
                raise self.fail(
                    line, column, f"segment {number}: passage {passage[:60]!r} is not in the text"
                )
            segments.append((start, start + len(passage), label))
        return sorted(segments)

    def segment_ranges(
        self, line: int, column: str, value: list[Any], text: str
    ) -> list[tuple[int, int, str]]:
        segments: list[tuple[int, int, str]] = []
        for index, segment in enumerate(value):
            place = f"{column}[{index}]"
            if not (
                isinstance(segment, list)
                and len(segment) == 3
                and all(isinstance(x, int) and not isinstance(x, bool) for x in segment[:2])
                and isinstance(segment[2], str)
            ):
                raise self.fail(line, place, "expected [start, end, label]")
            start, end, label = segment
            if not 0 <= start < end <= len(text):
                raise self.fail(
                    line, place, f"range {start}-{end} is outside the text (0-{len(text)})"
                )
            segments.append((start, end, label))
        return sorted(segments)


def _free_place(text: str, passage: str, taken: list[tuple[int, int, str]]) -> int | None:
    """The first start of ``passage`` in ``text`` not overlapping a taken segment."""
    start = text.find(passage)
    while start != -1:
        end = start + len(passage)
        if not any(s < end and start < e for s, e, _ in taken):
            return start
        start = text.find(passage, start + 1)
    return None


def read_item_columns(
    source: Source, *, columns: ItemColumns, name: str | None = None
) -> Iterator[ItemRecord]:
    """Validated records, streamed; ``DatasetFormatError`` at the first bad line. A column
    of the mapping missing from a CSV header is an error on line 1; in JSON Lines, the
    ``text`` key must be in every object and other keys may be absent."""
    name = source_name(source, name)
    reader = _Reader(name, columns)
    if is_jsonl(name):
        for line, record in iter_json_objects(source, name):
            yield reader.item(line, record)
        return
    rows = csv_rows(source, name=name)
    try:
        _, header = next(rows)
    except StopIteration:
        raise DatasetFormatError(name, 1, None, "the file has no header row") from None
    item_rows = ItemRows(name, columns, header)
    for line, fields in rows:
        yield item_rows.record(line, fields)


class ItemRows:
    """A CSV header checked against the mapping; ``record`` reads one row."""

    def __init__(self, name: str, columns: ItemColumns, header: list[str]) -> None:
        self.names = header_names(name, header)
        self.reader = _Reader(name, columns)
        self.reader.check_header(self.names)

    def record(self, line: int, fields: list[str]) -> ItemRecord:
        if len(fields) != len(self.names):
            raise self.reader.fail(
                line,
                None,
                f"expected {len(self.names)} fields (as in the header), got {len(fields)}",
            )
        return self.reader.item(line, dict(zip(self.names, fields, strict=True)))
