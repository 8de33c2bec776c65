"""Model instances from rows read with hand-written SQL, as a queryset would give them.

The hot reads and writes (the session's user, token authentication, the span writes) run
SQL built once, not ORM querysets; ``instance`` turns their column values into the model's
Python values through the same converters a queryset applies (SQLite's text datetimes made
aware, JSON decoded...), so every database gives the same objects.

- Replaces: the queryset that reads and builds the instance (``User.objects.get(pk=...)``,
  as ``ModelBackend.get_user`` reads the session's user on every browser request).
- Pays: ``bench/fenced.py --only rows``: the queryset takes 2.4 times as long (324 against
  135 us a call; 20,000 documents, a 2-core machine at load 2, median of 7 alternating
  rounds; 1.9 times at load 15).
- Same answers: ``tests/platform/test_sessions.py::test_users_read_by_hand_equal_the_orm_s``
  (every field of the session's and the token's user equals the ORM's, datetimes aware).
"""

from __future__ import annotations

from typing import Any

from django.db import connection

_converters: dict[tuple[type, str], list[Any]] = {}


def all_columns(model: type, alias: str) -> tuple[str, list[str]]:
    """The select list of every column of ``model`` (table alias ``alias``) and the fields'
    attnames in its order, for ``instance``."""
    quote = connection.ops.quote_name
    fields = model._meta.concrete_fields
    return ", ".join(f"{alias}.{quote(f.column)}" for f in fields), [f.attname for f in fields]


def instance(model: type, values: dict[str, Any]) -> Any:
    """``model`` from raw column values (by attname) through the backend's converters; the
    fields not given stay deferred (loaded on access; ``save()`` writes only the loaded
    ones)."""
    for name, value in values.items():
        key = (model, name)
        if key not in _converters:
            field = model._meta.get_field(name)
            col = field.get_col(model._meta.db_table)
            found = connection.ops.get_db_converters(col) + field.get_db_converters(connection)
            _converters[key] = [(c, col) for c in found]
        for convert, col in _converters[key]:
            value = convert(value, col, connection)
        values[name] = value
    fields = [f.attname for f in model._meta.concrete_fields if f.attname in values]
    return model.from_db(connection.alias, fields, [values[f] for f in fields])
