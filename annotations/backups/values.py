"""Values of archive rows: a database value as the archive holds it and back.

References become archive-local ids (users their username), date-times UTC ISO 8601 text,
bytes base64, UUIDs text; JSON fields that hold references go through their table's
``JsonValue``. Decoding checks each value against its model field and raises
``ArchiveError`` naming the member, the line and the field.
"""

from __future__ import annotations

import base64
import datetime as dt
import uuid
from collections.abc import Callable
from typing import Any

from django.contrib.auth import get_user_model
from django.db import models

from annotations.backups.format import (
    ArchiveError,
    ExportRefs,
    ImportRefs,
    Table,
    model_table,
    table_named,
)


def field_target(model_field: models.Field) -> str | None:
    """'user', a table name for a reference, or None."""
    if not model_field.is_relation:
        return None
    related = model_field.related_model
    if related is get_user_model():
        return "user"
    return model_table(related) or related.__name__


def to_utc(value: dt.datetime | None) -> str | None:
    if value is None:
        return None
    return value.astimezone(dt.UTC).isoformat()


def encode_value(table: Table, name: str, value: Any, refs: ExportRefs) -> Any:
    """A database value (attname value) as the archive holds it."""
    model_field = table.model._meta.get_field(name)
    orphan = table.history_of is not None
    if table.history_of is not None and name == "id":
        return refs.local(table.history_of, value, orphan=True)
    target = field_target(model_field)
    if target == "user":
        return refs.username(value)
    if target is not None:
        return refs.local(target, value, orphan=orphan)
    if value is None:
        return None
    if isinstance(model_field, models.DateTimeField):
        return to_utc(value)
    if isinstance(model_field, models.BinaryField):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(model_field, models.UUIDField):
        return str(value)
    if isinstance(model_field, models.JSONField):
        return _json_out(table, name, value, refs)
    return value


def _json_out(table: Table, name: str, value: Any, refs: ExportRefs) -> Any:
    codec = dict(_base(table).json).get(name)
    return value if codec is None else codec.encode(value, refs)


def _base(table: Table) -> Table:
    """The table itself, or the table whose history it records."""
    return table if table.history_of is None else table_named(table.history_of)


def _fail(member: str, line: int, name: str, message: str) -> ArchiveError:
    return ArchiveError(member, line, name, message)


def decode_value(table: Table, name: str, value: Any, refs: ImportRefs, line: int) -> Any:
    """An archive value as the attname value to store; bad values raise ``ArchiveError``."""
    model_field = table.model._meta.get_field(name)
    member = table.member

    def need(ok: bool, message: str) -> None:
        if not ok:
            raise _fail(member, line, name, message)

    if value is None:
        need(model_field.null, "is required")
        return None
    if table.history_of is not None and name == "id":
        need(_is_int(value) and value > 0, "expected a positive archive id")
        return refs.pk(table.history_of, value, orphan=True)
    target = field_target(model_field)
    if target == "user":
        need(isinstance(value, str), "expected a username")
        user_id = refs.user(value)
        need(user_id is not None, f"user {value!r} is not in users.jsonl")
        return user_id
    if target is not None:
        need(_is_int(value) and value > 0, f"expected an id of {target}")
        found = refs.pk(target, value, orphan=table.history_of is not None)
        need(found is not None, f"no row {value} in {target}.jsonl")
        return found
    if isinstance(model_field, models.JSONField):
        return _json_in(table, name, value, refs, line)
    return _decode_plain(
        model_field, value, need, lambda message: _fail(member, line, name, message)
    )


def _decode_plain(
    model_field: models.Field,
    value: Any,
    need: Callable[[bool, str], None],
    fail: Callable[[str], ArchiveError],
) -> Any:
    """A value that is no reference and no JSON, parsed or checked against its field:
    ``need(ok, message)`` raises unless ``ok``; ``fail(message)`` is the error to raise."""
    if isinstance(model_field, models.DateTimeField):
        need(isinstance(value, str), "expected an ISO 8601 date and time")
        try:
            parsed = dt.datetime.fromisoformat(value)
        except ValueError:
            raise fail(f"not an ISO 8601 date and time: {value!r}") from None
        need(parsed.tzinfo is not None, "needs a time zone")
        return parsed
    if isinstance(model_field, models.BinaryField):
        need(isinstance(value, str), "expected base64 text")
        try:
            return base64.b64decode(value, validate=True)
        except ValueError:
            raise fail("not base64") from None
    if isinstance(model_field, models.UUIDField):
        try:
            return uuid.UUID(str(value))
        except ValueError:
            raise fail(f"not a UUID: {value!r}") from None
    if isinstance(model_field, models.BooleanField):
        need(isinstance(value, bool), "expected true or false")
    elif isinstance(model_field, models.FloatField):
        need(isinstance(value, int | float) and not isinstance(value, bool), "expected a number")
    elif isinstance(model_field, models.IntegerField):
        need(_is_int(value), "expected an integer")
        if isinstance(model_field, POSITIVE):
            need(value >= 0, "must not be negative")
    elif isinstance(model_field, models.CharField | models.TextField):
        need(isinstance(value, str), "expected a string")
        limit = getattr(model_field, "max_length", None)
        if isinstance(model_field, models.CharField) and limit:
            need(len(value) <= limit, f"longer than {limit} characters")
    return value


POSITIVE = (
    models.PositiveIntegerField,
    models.PositiveSmallIntegerField,
    models.PositiveBigIntegerField,
)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _json_in(table: Table, name: str, value: Any, refs: ImportRefs, line: int) -> Any:
    codec = dict(_base(table).json).get(name)
    if codec is None:
        return value
    return codec.decode(value, refs, lambda message: _fail(table.member, line, name, message))
