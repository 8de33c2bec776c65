"""The longest text an import takes (``IMPORT_MAX_TEXT_CHARS``), checked by every reader where
it takes a record's text, so the error names the file, line and field like any other."""

from __future__ import annotations

from fallacy_platform.bounded import limit

from annotations.importing.formats.errors import DatasetFormatError


def checked_text(text: str, *, name: str, line: int, field: str | None = "text") -> str:
    """``text``, or a ``DatasetFormatError`` when it is longer than the limit."""
    most = limit("IMPORT_MAX_TEXT_CHARS")
    if len(text) > most:
        raise DatasetFormatError(
            name,
            line,
            field,
            f"the text has {len(text):,} characters, more than the limit"
            f" (IMPORT_MAX_TEXT_CHARS = {most:,})",
        )
    return text
