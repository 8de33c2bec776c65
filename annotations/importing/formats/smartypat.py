"""The SmartyPat-Bench CSV format (Reddit posts labelled with logical fallacy types).

A header row, then one item a row with the columns ``id``, ``original post`` (the text),
``fallacy types`` (comma-separated type names; empty: the sentence is sound) and
``declarative rewrite`` (the post restated as plain statements; optional). Header names
are matched ignoring case, ``_``/``-`` and repeated spaces (``Original_Post`` works), and
a few other spellings are accepted (``text``, ``types``, ``rewrite``); any other column is
kept in the record. Reading uses ``formats.csv`` (delimiter, quoting, line numbers as
there). Writing neutralises spreadsheet formulas (``formats.cells``: ``=...`` is written
``'=...``) and reading removes exactly the quote it added.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import IO, Any

from annotations.importing.formats.cells import csv_writer, unescape_cell
from annotations.importing.formats.csv import csv_rows, header_names
from annotations.importing.formats.errors import DatasetFormatError
from annotations.importing.formats.jsonl import Source, source_name

COLUMNS = ("id", "original post", "fallacy types", "declarative rewrite")
_SPELLINGS: dict[str, tuple[str, ...]] = {
    "id": ("id", "item id", "post id"),
    "original post": ("original post", "post", "text", "sentence"),
    "fallacy types": ("fallacy types", "fallacy type", "types", "fallacies", "labels", "label"),
    "declarative rewrite": ("declarative rewrite", "declarative", "rewrite"),
}
REQUIRED = ("id", "original post", "fallacy types")


def _key(column: str) -> str:
    return " ".join(column.replace("_", " ").replace("-", " ").split()).casefold()


def split_types(cell: str) -> list[str]:
    """``"false dilemma, equivocation"`` -> the names, trimmed, empty ones dropped."""
    return [part.strip() for part in cell.split(",") if part.strip()]


@dataclass(frozen=True)
class SmartyPatRecord:
    line: int
    id: str
    text: str
    types: list[str]  # as spelt in the file, in file order; [] for a sound sentence
    rewrite: str
    record: dict[str, str]  # {header column: cell}, in header order


class SmartyPatColumns:
    """Where each of the format's columns is in a header (cells read with the quote that
    ``write_smartypat`` adds before a formula removed)."""

    def __init__(self, name: str, header: list[str]) -> None:
        self.name = name
        self.columns = header_names(name, [unescape_cell(cell) for cell in header])
        self.index: dict[str, int] = {}
        keys = [_key(column) for column in self.columns]
        for column, spellings in _SPELLINGS.items():
            for spelling in spellings:
                if spelling in keys:
                    self.index[column] = keys.index(spelling)
                    break
        missing = [column for column in REQUIRED if column not in self.index]
        if missing:
            raise DatasetFormatError(
                name,
                1,
                missing[0],
                f"no column {missing[0]!r} in the header (columns: {', '.join(self.columns)};"
                f" expected {', '.join(COLUMNS)})",
            )

    def record(self, line: int, fields: list[str]) -> SmartyPatRecord:
        if len(fields) != len(self.columns):
            raise DatasetFormatError(
                self.name,
                line,
                None,
                f"expected {len(self.columns)} fields (as in the header), got {len(fields)}",
            )
        fields = [unescape_cell(field) for field in fields]

        def cell(column: str) -> str:
            index = self.index.get(column)
            return "" if index is None else fields[index]

        item_id = cell("id").strip()
        if not item_id:
            raise DatasetFormatError(
                self.name, line, self.columns[self.index["id"]], "the id is empty"
            )
        text = cell("original post")
        if not text.strip():
            raise DatasetFormatError(
                self.name, line, self.columns[self.index["original post"]], "the text is blank"
            )
        return SmartyPatRecord(
            line=line,
            id=item_id,
            text=text,
            types=split_types(cell("fallacy types")),
            rewrite=cell("declarative rewrite"),
            record=dict(zip(self.columns, fields, strict=True)),
        )

    def column_of(self, column: str) -> str:
        """The header's spelling of one of ``COLUMNS``."""
        index = self.index.get(column)
        return column if index is None else self.columns[index]


def read_smartypat(source: Source, *, name: str | None = None) -> Iterator[SmartyPatRecord]:
    """Validated records, streamed; ``DatasetFormatError`` at the first bad row."""
    name = source_name(source, name)
    rows = csv_rows(source, name=name)
    try:
        _, header = next(rows)
    except StopIteration:
        raise DatasetFormatError(name, 1, None, "the file has no header row") from None
    columns = SmartyPatColumns(name, header)
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
