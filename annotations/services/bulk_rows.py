"""New documents and sentences written in bulk (``create_documents``'s writes).

- Replaces: ``Document.objects.bulk_create`` and ``Sentence.objects.bulk_create``, which
  prepare every value through its field and build a model instance per sentence.
- Writes: on PostgreSQL, documents by ``COPY`` with ids drawn from their identity sequence in
  one query (what each row's default would take), sentences by binary ``COPY``; elsewhere (the
  embedded SQLite) documents by multi-row ``INSERT … RETURNING id`` and sentences by multi-row
  ``INSERT`` on SQLite's own cursor. Triggers, constraints and foreign keys apply as to any
  insert (``COPY`` fires the statement triggers that keep the project's counters and check
  that the sentences' documents exist, migration 0015).
- Pays: ``bench/import_api.py --runs 3 --backends sqlite,postgresql --compare-with`` main
  (10,000 plain texts, 26 MB, 319k sentences; 2 cores at load 2.5 from another benchmark):
  PostgreSQL's import took 7.6 s against 10.2 s with documents by multi-row ``INSERT`` and
  sentences by text ``COPY`` (medians of 3 alternating runs, 0.74; web and worker CPU
  3.0 s against 3.5 s); ``import_texts`` alone in one process: 1.05 s of CPU against 1.6 s.
  On SQLite, multi-row ``VALUES`` are 2.4x faster than ``executemany``.
- Equivalence: ``tests/annotations/services/test_bulk_rows.py`` (the rows stored equal those of
  ``bulk_create``, on either database).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from functools import cache
from itertools import chain
from typing import Any, TypeVar

from django.db import connection
from django.utils import timezone

from annotations.models import Document, Sentence

ROWS = 500  # documents per statement
SENTENCE_ROWS = 500  # rows per INSERT on SQLite: 2,000 parameters (its limit: 32,766)
T = TypeVar("T")


def _chunks(items: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    for first in range(0, len(items), size):
        yield items[first : first + size]


def insert_documents(documents: Sequence[Document]) -> None:
    """Write new documents (no pk yet), every column adapted as the model fields would. Sets
    each document's pk and ``created_at``; counters start at 0 (the database keeps them)."""
    if not documents:
        return
    now = timezone.now()
    fields = [f for f in Document._meta.concrete_fields if not f.primary_key]
    names = [f.attname for f in fields]
    created = connection.ops.adapt_datetimefield_value(now)
    for document in documents:
        document.created_at = now
    rows = (_document_row(document, names, created) for document in documents)
    if connection.vendor == "postgresql":
        pks = _copy_documents(len(documents), [f.column for f in fields], rows)
    else:
        pks = _insert_documents(len(documents), [f.column for f in fields], rows)
    for document, pk in zip(documents, pks, strict=True):
        document.pk = pk
        document._state.adding = False
        document._state.db = connection.alias


def _document_row(document: Document, names: list[str], created: Any) -> list[Any]:
    row = {
        **dict.fromkeys(Document.COUNTERS, 0),
        "project_id": document.project_id,
        "name": document.name,
        "text": document.text,
        "source": document.source,
        "external_id": document.external_id,
        "metadata": connection.ops.adapt_json_value(document.metadata, None),
        "position": document.position,
        "in_search_index": document.in_search_index,
        "created_at": created,
        "updated_at": None,  # not saved since its import
    }
    return [row[name] for name in names]


def _copy_documents(count: int, columns: list[str], rows: Iterable[list[Any]]) -> list[int]:
    """``COPY`` of the rows with ids from the table's identity sequence, in order."""
    quote = connection.ops.quote_name
    meta = Document._meta
    table = quote(meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)",
            [meta.db_table, meta.pk.column, count],
        )
        pks = sorted(pk for (pk,) in cursor.fetchall())
        names = ", ".join(quote(c) for c in [meta.pk.column, *columns])
        with (
            connection.wrap_database_errors,
            cursor.cursor.copy(f"COPY {table} ({names}) FROM STDIN") as copy,
        ):
            for pk, row in zip(pks, rows, strict=True):
                copy.write_row([pk, *row])
    return pks


def _insert_documents(count: int, columns: list[str], rows: Iterable[list[Any]]) -> list[int]:
    """Multi-row ``INSERT … RETURNING id`` of ``ROWS`` rows each."""
    quote = connection.ops.quote_name
    meta = Document._meta
    placeholder = "(" + ", ".join(["%s"] * len(columns)) + ")"
    all_rows = list(rows)
    pks: list[int] = []
    with connection.cursor() as cursor:
        for batch in _chunks(all_rows, ROWS):
            cursor.execute(
                f"INSERT INTO {quote(meta.db_table)} ({', '.join(map(quote, columns))}) VALUES "
                + ", ".join([placeholder] * len(batch))
                + f" RETURNING {quote(meta.pk.column)}",
                list(chain.from_iterable(batch)),
            )
            pks += [pk for (pk,) in cursor.fetchall()]
    return pks


def insert_sentences(rows: Sequence[tuple[int, int, int, int]]) -> None:
    """Write ``(document id, index, start, end)`` rows in bulk. No model instances, no signals
    (``Sentence`` has none). Errors are Django's, as from its cursor."""
    if not rows:
        return
    meta = Sentence._meta
    quote = connection.ops.quote_name
    columns = ", ".join(
        quote(meta.get_field(name).column) for name in ("document", "index", "start", "end")
    )
    table = quote(meta.db_table)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            with (
                connection.wrap_database_errors,
                cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN (FORMAT BINARY)") as copy,
            ):
                copy.set_types(["int8", "int4", "int4", "int4"])
                for row in rows:
                    copy.write_row(row)
            return
        # written with SQLite's own placeholders on its cursor (Django's wrapper rewrites
        # every "%s" of each 2,000-parameter statement with a regex: 9% of a plain-text
        # import's time)
        with connection.wrap_database_errors:
            for batch in _chunks(rows, SENTENCE_ROWS):
                sqlite3.Cursor.execute(
                    cursor.cursor,
                    _sqlite_rows_insert(table, columns, 4, len(batch)),
                    list(chain.from_iterable(batch)),
                )


@cache
def _sqlite_rows_insert(table: str, columns: str, width: int, rows: int) -> str:
    """``INSERT`` of ``rows`` rows with SQLite's ``?`` placeholders."""
    row = "(" + ", ".join(["?"] * width) + ")"
    return f"INSERT INTO {table} ({columns}) VALUES " + ", ".join([row] * rows)
