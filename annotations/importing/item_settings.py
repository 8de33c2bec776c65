"""An item import's settings, checked before any record is read: the ``set_metadata`` keys
written on every item (``parse_set_metadata``) and a column mapping given as JSON
(``columns_from``); a bad one is an ``ItemImportError`` naming it."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from annotations.importing.formats.item_columns import (
    ColumnMappingError,
    ItemColumns,
    parse_columns,
)


class ItemImportError(ValueError):
    """The import cannot start: not an item project, a bad column mapping or form."""


#: top-level metadata keys the item layout uses (``set_metadata`` may not write them)
LAYOUT_KEYS = frozenset(
    {"format", "record", "record_keys", "nan_fields", "options", "candidate", "gold"}
    | {"gold_text", "text_column", "doccano_ids"}
)
_METADATA_KEY = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,63}$")
MAX_METADATA_VALUE = 200


def parse_set_metadata(settings: Sequence[str] | Mapping[str, str] | None) -> dict[str, str]:
    """``["split=bench", ...]`` (or a mapping) as ``{key: value}``; ``ItemImportError``
    naming the bad setting (no ``=``, a key that is no name or that the layout uses, a
    blank or long value, a key given twice)."""
    if not settings:
        return {}
    pairs = (
        list(settings.items())
        if isinstance(settings, Mapping)
        else [tuple(str(s).partition("=")[::2]) for s in settings if "=" in str(s)]
    )
    if not isinstance(settings, Mapping) and len(pairs) != len(settings):
        bad = next(s for s in settings if "=" not in str(s))
        raise ItemImportError(f"set_metadata: {bad!r} is not key=value (e.g. split=bench)")
    found: dict[str, str] = {}
    for raw_key, raw_value in pairs:
        key, value = str(raw_key).strip(), str(raw_value).strip()
        if not _METADATA_KEY.match(key):
            raise ItemImportError(
                f"set_metadata: {key!r} is not a key (a letter, then letters, digits, _ . -)"
            )
        if key in LAYOUT_KEYS:
            raise ItemImportError(
                f"set_metadata: {key!r} is a key the item layout uses; choose another name"
            )
        if not value or len(value) > MAX_METADATA_VALUE:
            raise ItemImportError(
                f"set_metadata: the value of {key!r} must be 1 to {MAX_METADATA_VALUE} characters"
            )
        if key in found:
            raise ItemImportError(f"set_metadata: {key!r} is given twice")
        found[key] = value
    return found


def columns_from(data: Any) -> ItemColumns:
    """A column mapping from JSON; ``ItemImportError`` naming ``columns.<role>``."""
    try:
        return parse_columns(data)
    except ColumnMappingError as error:
        raise ItemImportError(str(error)) from error
