"""The SmartyPat-Bench CSV format (sentences labelled with logical fallacy types).

Files come with or without a header row:

- **With a header** (the platform's export, hand-made files): the columns ``id``,
  ``original post``, ``fallacy types`` (comma-separated type names; empty: the sentence is
  sound) and ``declarative rewrite`` (the post restated as plain statements), found by
  name ignoring case, ``_``/``-`` and repeated spaces (``Original_Post`` works), with a few
  other spellings (``text``, ``sentence``, ``types``, ``rewrite``); only the text column is
  required (no ``id``: ids are made as below; no types column: every sentence is sound).
  Any other column is kept in the record.
- **Without a header** (the published files): the columns by position, as published:
  4 cells ``id, original post, fallacy types, declarative rewrite`` (the Bench), 3 cells
  ``id, original post, fallacy types``, 2 cells ``sentence, fallacy types`` (generated
  sentences), 1 cell ``sentence`` (a benign file: every sentence is sound). Rows without an
  id get ``<file stem>-<line>`` (``good-12``), so several files go into one project. The
  record of such a row is kept under the format's four column names (an export writes
  them with a header; import it back with ``text_column`` as the first import had it).

The first row is a header when at least two of its cells (its one cell, for a one-column
file) are spellings of the format's columns; otherwise it is the first item.

The item text (``text_column``): ``rewrite`` (the declarative rewrite), ``post`` (the
original post, or the one sentence column), a header's column name, or a 1-based column
position. By default a file without a header gives the rewrite where it has one (what the
paper gave the models) and a file with a header gives the original post (as the platform's
export writes it). Reading uses ``formats.csv`` (delimiter, quoting, line numbers as
there). Writing neutralises spreadsheet formulas (``formats.cells``: ``=...`` is written
``'=...``) and reading removes exactly the quote it added.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import IO, Any

from annotations.importing.formats.cells import csv_writer, unescape_cell
from annotations.importing.formats.csv import csv_rows, header_names
from annotations.importing.formats.errors import DatasetFormatError
from annotations.importing.formats.jsonl import Source, source_name
from annotations.importing.formats.text_limit import checked_text

COLUMNS = ("id", "original post", "fallacy types", "declarative rewrite")
POST, TYPES, REWRITE = "original post", "fallacy types", "declarative rewrite"
_SPELLINGS: dict[str, tuple[str, ...]] = {
    "id": ("id", "item id", "post id"),
    POST: ("original post", "post", "text", "sentence"),
    TYPES: ("fallacy types", "fallacy type", "types", "fallacies", "labels", "label"),
    REWRITE: ("declarative rewrite", "declarative", "rewrite"),
}
#: the columns of a file without a header, by how many cells its rows have
POSITIONS: dict[int, tuple[str, ...]] = {
    1: ("sentence",),
    2: ("sentence", TYPES),
    3: ("id", POST, TYPES),
    4: ("id", POST, TYPES, REWRITE),
}
TEXT_CHOICES = ("rewrite", "post")


def _key(column: str) -> str:
    return " ".join(column.replace("_", " ").replace("-", " ").split()).casefold()


_KNOWN = {spelling for spellings in _SPELLINGS.values() for spelling in spellings}


def split_types(cell: str) -> list[str]:
    """``"false dilemma, equivocation"`` -> the names, trimmed, empty ones dropped."""
    return [part.strip() for part in cell.split(",") if part.strip()]


def is_header(row: Sequence[str]) -> bool:
    """Whether a first row names the format's columns (see the module docstring)."""
    known = sum(_key(unescape_cell(cell)) in _KNOWN for cell in row)
    return known >= min(2, len(row))


@dataclass(frozen=True)
class SmartyPatRecord:
    line: int
    id: str
    text: str
    types: list[str]  # as spelt in the file, in file order; [] for a sound sentence
    rewrite: str
    record: dict[str, str]  # {column: cell}, in column order
    types_cell: str = ""  # the fallacy types cell as written
    text_column: str = POST  # the column the text came from


class SmartyPatColumns:
    """Where each of the format's columns is, in a header or by position (cells read with
    the quote that ``write_smartypat`` adds before a formula removed)."""

    def __init__(
        self,
        name: str,
        header: list[str],
        *,
        text_column: str | None = None,
        positional: bool = False,
    ) -> None:
        self.name = name
        self.positional = positional
        if positional:
            if len(header) not in POSITIONS:
                raise DatasetFormatError(
                    name,
                    1,
                    None,
                    f"a file without a header has 1 to 4 columns, this row has {len(header)}"
                    " (with a header, name the columns id, original post, fallacy types,"
                    " declarative rewrite)",
                )
            self.columns = list(POSITIONS[len(header)])
        else:
            self.columns = header_names(name, [unescape_cell(cell) for cell in header])
        self.index: dict[str, int] = {}
        keys = [_key(column) for column in self.columns]
        for column, spellings in _SPELLINGS.items():
            for spelling in spellings:
                if spelling in keys:
                    self.index[column] = keys.index(spelling)
                    break
        if POST not in self.index:
            raise DatasetFormatError(
                name,
                1,
                POST,
                f"no column {POST!r} in the header (columns: {', '.join(self.columns)};"
                f" expected {', '.join(COLUMNS)})",
            )
        self.stem = PurePath(name).stem or "item"
        self.text_index = self._text_index(text_column)

    def _text_index(self, choice: str | None) -> int:
        if choice in (None, ""):
            if self.positional and REWRITE in self.index:
                return self.index[REWRITE]
            return self.index[POST]
        assert choice is not None
        if choice in TEXT_CHOICES:
            role = REWRITE if choice == "rewrite" else POST
            if role not in self.index:
                raise DatasetFormatError(
                    self.name, 1, "text_column", f"the file has no {role!r} column"
                )
            return self.index[role]
        if choice.strip().isdigit():
            position = int(choice)
            if not 1 <= position <= len(self.columns):
                raise DatasetFormatError(
                    self.name,
                    1,
                    "text_column",
                    f"column {position} does not exist (the file has {len(self.columns)})",
                )
            return position - 1
        keys = [_key(column) for column in self.columns]
        if self.positional or _key(choice) not in keys:
            raise DatasetFormatError(
                self.name,
                1,
                "text_column",
                f"no column {choice!r} (rewrite, post, a column position"
                + ("" if self.positional else f" or one of: {', '.join(self.columns)}")
                + ")",
            )
        return keys.index(_key(choice))

    def record(self, line: int, fields: list[str]) -> SmartyPatRecord:
        if len(fields) != len(self.columns):
            where = "as in the first row" if self.positional else "as in the header"
            raise DatasetFormatError(
                self.name,
                line,
                None,
                f"expected {len(self.columns)} fields ({where}), got {len(fields)}",
            )
        fields = [unescape_cell(field) for field in fields]

        def cell(column: str) -> str:
            index = self.index.get(column)
            return "" if index is None else fields[index]

        item_id = cell("id").strip() if "id" in self.index else f"{self.stem}-{line}"
        if not item_id:
            raise DatasetFormatError(
                self.name, line, self.columns[self.index["id"]], "the id is empty"
            )
        column = self.columns[self.text_index]
        text = checked_text(fields[self.text_index], name=self.name, line=line, field=column)
        if not text.strip():
            raise DatasetFormatError(
                self.name, line, self.columns[self.text_index], "the text is blank"
            )
        return SmartyPatRecord(
            line=line,
            id=item_id,
            text=text,
            types=split_types(cell(TYPES)),
            rewrite=cell(REWRITE),
            record=self._as_record(item_id, fields),
            types_cell=cell(TYPES),
            text_column=self.columns[self.text_index],
        )

    def _as_record(self, item_id: str, fields: list[str]) -> dict[str, str]:
        if not self.positional:
            return dict(zip(self.columns, fields, strict=True))
        # a file without a header: the format's four columns (made ids included)
        cells = dict(zip(self.columns, fields, strict=True))
        return {
            "id": item_id,
            POST: cells.get(POST, cells.get("sentence", "")),
            TYPES: cells.get(TYPES, ""),
            REWRITE: cells.get(REWRITE, ""),
        }

    def column_of(self, column: str) -> str:
        """The file's spelling of one of ``COLUMNS``."""
        index = self.index.get(column)
        return column if index is None else self.columns[index]


def smartypat_columns(
    name: str, first: list[str], *, text_column: str | None = None
) -> tuple[SmartyPatColumns, bool]:
    """The columns of a file from its first row, and whether that row is a header."""
    header = is_header(first)
    return (
        SmartyPatColumns(name, first, text_column=text_column, positional=not header),
        header,
    )


def read_smartypat(
    source: Source, *, name: str | None = None, text_column: str | None = None
) -> Iterator[SmartyPatRecord]:
    """Validated records, streamed; ``DatasetFormatError`` at the first bad row."""
    name = source_name(source, name)
    rows = csv_rows(source, name=name)
    try:
        first_line, first = next(rows)
    except StopIteration:
        raise DatasetFormatError(name, 1, None, "the file has no rows") from None
    columns, header = smartypat_columns(name, first, text_column=text_column)
    if not header:
        yield columns.record(first_line, first)
    for line, fields in rows:
        yield columns.record(line, fields)


def write_smartypat(
    rows: Iterable[Sequence[Any]], out: IO[str], *, header: Sequence[str] = COLUMNS
) -> int:
    """Write the header, then one row each (formulas neutralised); return how many rows."""
    writer = csv_writer(out)
    writer.writerow(header)
    count = 0
    for row in rows:
        writer.writerow(row)
        count += 1
    return count
