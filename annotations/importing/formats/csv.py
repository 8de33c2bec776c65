"""Unannotated texts in a CSV file (pure Python): a header row, then one text a row.

The caller picks the text column and, optionally, the id column by their header names;
every other column goes to the document's ``metadata`` (``{column: value}``). The
delimiter is the one of ``,`` ``;`` tab ``|`` most frequent in the header (tab for
``.tsv``); fields are quoted with ``"``; a UTF-8 byte order mark is ignored. Line numbers
are the file's physical lines (a quoted field may span several; a row's number is that of
its first line).
"""

from __future__ import annotations

import csv
import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import PurePath

from annotations.importing.formats.errors import DatasetFormatError
from annotations.importing.formats.jsonl import Source, open_text, source_name
from annotations.importing.formats.plaintext import TextRecord
from annotations.importing.formats.storable import NUL
from annotations.importing.formats.text_limit import checked_text

DELIMITERS = (",", ";", "\t", "|")
SAMPLE_ROWS = 3
# Texts can be long; the csv module refuses fields over 128 KiB by default.
csv.field_size_limit(max(csv.field_size_limit(), 64 * 1024 * 1024))


@dataclass(frozen=True)
class CsvPreview:
    """What the import page shows before the columns are chosen."""

    columns: list[str]
    rows: int  # data rows (the header not counted)
    sample: list[list[str]]  # the first data rows


def _delimiter(name: str, header_line: str) -> str:
    if PurePath(name).suffix.lower() == ".tsv":
        return "\t"
    counts = {delimiter: header_line.count(delimiter) for delimiter in DELIMITERS}
    best = max(counts, key=lambda delimiter: counts[delimiter])
    return best if counts[best] else ","


def csv_rows(source: Source, *, name: str | None = None) -> Iterator[tuple[int, list[str]]]:
    """``(first line, fields)`` for every non-blank row, the header first.

    ``DatasetFormatError`` for an empty file, text that is not UTF-8, a NUL character or
    broken quoting (these end the file: nothing after them can be read reliably)."""
    name = source_name(source, name)
    with open_text(source) as stream:
        line = 0
        try:
            first = stream.readline()
            if not first.strip():
                raise DatasetFormatError(
                    name,
                    1,
                    None,
                    "the file is empty or starts with a blank line (a CSV file"
                    " starts with its header row)",
                )
            reader = csv.reader(
                itertools.chain([first.lstrip("\ufeff")], stream),
                delimiter=_delimiter(name, first),
                quotechar='"',
                strict=True,
            )
            for fields in reader:
                start, line = line + 1, reader.line_num
                if any("\x00" in field for field in fields):
                    raise DatasetFormatError(name, start, None, NUL)
                if fields and any(field.strip() for field in fields):
                    yield start, fields
        except UnicodeDecodeError as error:
            raise DatasetFormatError(
                name, line + 1, None, f"not UTF-8 text: {error.reason}"
            ) from None
        except csv.Error as error:
            raise DatasetFormatError(name, line + 1, None, f"broken CSV: {error}") from None


class CsvColumns:
    """The chosen columns of a header; ``record`` turns one row into a ``TextRecord``."""

    def __init__(
        self, name: str, header: list[str], *, text_column: str, id_column: str = ""
    ) -> None:
        self.name = name
        self.columns = header_names(name, header)
        self.text_column = text_column
        self.id_column = id_column
        for role, column in (("text", text_column), ("id", id_column)):
            if column and column not in self.columns:
                raise DatasetFormatError(
                    name,
                    1,
                    column,
                    f"no {role} column named '{column}' in the header"
                    f" (columns: {', '.join(self.columns)})",
                )
        if text_column == id_column:
            raise DatasetFormatError(
                name, 1, text_column, "the text and id columns must be different"
            )
        self.text_index = self.columns.index(text_column)
        self.id_index = self.columns.index(id_column) if id_column else None

    def record(self, line: int, fields: list[str]) -> TextRecord:
        if len(fields) != len(self.columns):
            raise DatasetFormatError(
                self.name,
                line,
                None,
                f"expected {len(self.columns)} fields (as in the header), got {len(fields)}",
            )
        text = checked_text(
            fields[self.text_index], name=self.name, line=line, field=self.text_column
        )
        if not text.strip():
            raise DatasetFormatError(self.name, line, self.text_column, "the text is blank")
        chosen = {self.text_index, self.id_index}
        return TextRecord(
            line=line,
            text=text,
            external_id="" if self.id_index is None else fields[self.id_index].strip(),
            metadata={
                column: value
                for index, (column, value) in enumerate(zip(self.columns, fields, strict=True))
                if index not in chosen
            },
        )


def first_row(rows: Iterator[tuple[int, list[str]]], name: str) -> list[str]:
    """The header row of ``csv_rows``; ``DatasetFormatError`` when the file has none (only
    delimiters or blank fields, e.g. a lone ``|``)."""
    try:
        return next(rows)[1]
    except StopIteration:
        raise DatasetFormatError(name, 1, None, "the file has no header row") from None


def header_names(name: str, header: list[str]) -> list[str]:
    """Trimmed column names; an unnamed column is called ``column N``; no repeats."""
    columns = [cell.strip() or f"column {index}" for index, cell in enumerate(header, start=1)]
    seen: set[str] = set()
    for column in columns:
        if column in seen:
            raise DatasetFormatError(name, 1, column, "this column name appears twice")
        seen.add(column)
    return columns


def inspect_csv(source: Source, *, name: str | None = None) -> CsvPreview:
    """The columns, how many data rows, and the first ``SAMPLE_ROWS`` of them."""
    name = source_name(source, name)
    rows = csv_rows(source, name=name)
    columns = header_names(name, first_row(rows, name))
    count, sample = 0, []
    for _, fields in rows:
        count += 1
        if len(sample) < SAMPLE_ROWS:
            sample.append(fields)
    return CsvPreview(columns=columns, rows=count, sample=sample)


def read_csv_texts(
    source: Source, *, name: str | None = None, text_column: str = "text", id_column: str = ""
) -> Iterator[TextRecord]:
    """Validated records, streamed; ``DatasetFormatError`` at the first bad row."""
    name = source_name(source, name)
    rows = csv_rows(source, name=name)
    header = first_row(rows, name)
    columns = CsvColumns(name, header, text_column=text_column, id_column=id_column)
    for line, fields in rows:
        yield columns.record(line, fields)
