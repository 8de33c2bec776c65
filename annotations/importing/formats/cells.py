"""CSV cells that a spreadsheet will not run as formulas (pure Python).

Every CSV the platform writes goes through ``csv_writer``: a text cell starting with ``=``,
``+``, ``-``, ``@``, a tab or a carriage return gets a leading ``'`` (OWASP's advice against
CSV injection), so ``=HYPERLINK(...)`` shows as text. Numbers stay numbers: an ``int`` or
``float``, or a text that is exactly a decimal number (``-0.5000``, ``1e-3``), is written as is.

The escape can be undone exactly (``unescape_cell``): a text that already starts with quotes
followed by one of those characters gets one more quote, and reading removes one quote from
exactly those cells. Readers of the platform's own exports (SmartyPat) undo it, so an export
imports back to the same texts.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable
from typing import IO, Any

TRIGGERS = "=+-@\t\r"
_ESCAPED = re.compile(r"'*[=+\-@\t\r]")
_UNESCAPE = re.compile(r"'+[=+\-@\t\r]")
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def safe_cell(value: Any) -> Any:
    """``value`` as it may stand in a CSV cell: a text a spreadsheet would read as a formula
    gets a leading ``'``; numbers and every other text are unchanged."""
    if not isinstance(value, str) or _NUMBER.fullmatch(value):
        return value
    return "'" + value if _ESCAPED.match(value) else value


def unescape_cell(cell: str) -> str:
    """The text ``safe_cell`` was given for ``cell`` (one added quote removed)."""
    return cell[1:] if _UNESCAPE.match(cell) else cell


class SafeCsvWriter:
    """``csv.writer`` whose rows go through ``safe_cell``."""

    def __init__(self, out: IO[str], **options: Any) -> None:
        self._writer = csv.writer(out, **options)

    def writerow(self, row: Iterable[Any]) -> Any:
        return self._writer.writerow([safe_cell(value) for value in row])

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        for row in rows:
            self.writerow(row)


def csv_writer(out: IO[str], **options: Any) -> SafeCsvWriter:
    """The CSV writer of every export (``lineterminator="\\n"`` unless given)."""
    options.setdefault("lineterminator", "\n")
    return SafeCsvWriter(out, **options)
