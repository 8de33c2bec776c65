"""The span writes' SQL: one read and one write statement per request
(``annotations.services.annotations`` holds the services and their concurrency contract).

Span writes are the API's hot path. Each reads, in one hand-written statement, what its checks
need (who may write the annotation, its status and revision, the project, the text's length,
whether start and end are sentence boundaries, a span with the request's ``client_id``, and
for a change or a delete the span itself), then writes in one statement that applies only if
the annotation's revision is still the one read (every span write bumps it):

- on PostgreSQL, a data-modifying ``WITH``: bump the annotation's revision, write the span,
  record the span's history row (as simple_history would: who, when, ``+``/``~``/``-``);
- elsewhere (the embedded SQLite), the same three writes in one transaction.

A write returns ``None`` when the annotation moved on since the read (nothing written); the
service then reads again under the annotation's row lock (``lock_annotation``) and writes.
Rows come back through the backend's converters (``fallacy_platform.rows.instance``), as
from a queryset, so PostgreSQL and SQLite give the same Python values.

- Replaces: the ORM's span write (the annotation or span read under ``select_for_update``
  with ``select_related``, the text and sentences read for the checks, ``Span.save()`` /
  ``delete()`` recording the history row through simple_history, the revision bumped by
  ``QuerySet.update``), which took longer to build and compile than the database to run.
- Pays: ``bench/fenced.py --only span_sql`` (a create and a change through the services,
  against the same checks on ORM reads and writes): the ORM takes 3.3 times as long (11.8
  against 3.6 ms a create + change; 2 cores at load 2; 3.2 times at load 15).
- Same rows:
  ``tests/annotations/api/test_write_query_counts.py::test_span_writes_equal_the_orm_s``
  (the span, its history rows and the revision bumps equal the ORM's and simple_history's,
  on PostgreSQL and, through ``test_this_file_passes_on_the_embedded_sqlite_default_too``,
  on SQLite).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any

from django.db import connection, transaction
from fallacy_platform.rows import instance
from simple_history.models import HistoricalRecords

from annotations.models import Annotation, Document, Project, Sentence, Span, Taxonomy
from annotations.selectors.access import annotation_visible_sql
from annotations.spans import is_offset

_A, _D, _P, _T = (m._meta.db_table for m in (Annotation, Document, Project, Taxonomy))
_S, _SN = Span._meta.db_table, Sentence._meta.db_table
_H = Span.history.model._meta.db_table

# The span's columns in model order (what RETURNING gives back), the ones a write sets, and
# the ones its history row copies.
_SPAN_FIELDS = [f.attname for f in Span._meta.concrete_fields]
_SPAN_COLUMNS = [f.column for f in Span._meta.concrete_fields]
_SET = ["start", "end", "labels", "details"]
_INSERTED = [*_SET, "client_id", "created_at", "updated_at", "annotation_id"]
_TRACKED = [f.column for f in Span.history.model._meta.concrete_fields if f.column in _SPAN_COLUMNS]
_HISTORY_EXTRA = ["history_date", "history_change_reason", "history_type", "history_user_id"]


def _q(names: list[str], prefix: str = "") -> str:
    return ", ".join(prefix + connection.ops.quote_name(n) for n in names)


# --- the read ------------------------------------------------------------------------------

_READ = """SELECT a.id, a.document_id, a.annotator_id, a.status, a.revision,
    d.project_id, p.name, p.archived_at, p.taxonomy_id, t.name, t.version, t.created_at,
    LENGTH(d.text),
    EXISTS (SELECT 1 FROM {sn} sn WHERE sn.document_id = a.document_id
        AND sn.start = COALESCE(%s, {start})),
    EXISTS (SELECT 1 FROM {sn} sn WHERE sn.document_id = a.document_id
        AND sn."end" = COALESCE(%s, {end})),
    {client_span}{span_columns}
FROM {source} JOIN {d} d ON d.id = a.document_id JOIN {p} p ON p.id = d.project_id
    JOIN {t} t ON t.id = p.taxonomy_id
WHERE {where} AND {{visible}}"""


@cache
def _read_sql(vendor: str, by_span: bool) -> str:
    """The read, with ``{visible}`` left for ``access.annotation_visible_sql``."""
    tables = {"sn": _SN, "d": _D, "p": _P, "t": _T}
    if by_span:  # a change or a delete: the span with its annotation
        return _READ.format(
            **tables,
            start="s.start",
            end='s."end"',
            client_span="NULL",
            span_columns=", " + _q(_SPAN_COLUMNS, "s."),
            source=f"{_S} s JOIN {_A} a ON a.id = s.annotation_id",
            where="s.id = %s",
        )
    return _READ.format(
        **tables,
        start="NULL",
        end="NULL",
        client_span=f"(SELECT s.id FROM {_S} s WHERE s.annotation_id = a.id AND s.client_id = %s)",
        span_columns="",
        source=f"{_A} a",
        where="a.id = %s",
    )


def read_for_span_write(
    *,
    annotation: Annotation | int | None = None,
    span_id: int | None = None,
    by: Any | None,
    start: Any = None,
    end: Any = None,
    client_id: Any = None,
) -> Annotation:
    """The annotation (given, or the one of span ``span_id``) with what the checks need;
    ``by``: only an annotation ``by`` may see (else ``DoesNotExist``: a 404, as for one that
    does not exist). Takes no lock: the write checks that the revision read is still current.

    Sets on the annotation: ``document.project.taxonomy``, ``text_length``, ``boundaries``
    (whether ``start`` and ``end``, or the span's own where not given, are sentence edges),
    ``client_span`` (the id of the span with ``client_id``) and, read by span, ``span``.
    """
    if by is not None and not by.is_authenticated:
        raise Annotation.DoesNotExist("anonymous users write nothing")
    if client_id is not None:  # as the ORM would (ValidationError for a malformed one)
        client_id = Span._meta.get_field("client_id").get_db_prep_value(client_id, connection)
    by_span = span_id is not None
    params: list[Any] = [start if is_offset(start) else None, end if is_offset(end) else None]
    if not by_span:
        params.append(client_id)
    params.append(span_id if by_span else getattr(annotation, "pk", annotation))
    visible = "1 = 1"
    if by is not None:
        visible, visible_params = annotation_visible_sql(by, "a", "d")
        params += visible_params
    statement = _read_sql(connection.vendor, by_span).format(visible=visible)
    with connection.cursor() as cursor:
        cursor.execute(statement, params)
        row = cursor.fetchone()
    if row is None:
        if by_span:
            raise Span.DoesNotExist(f"span {span_id} not found")
        raise Annotation.DoesNotExist(f"annotation {params[3]} not found")
    seen = _annotation_of(row)
    start_ok, end_ok = row[13:15]
    seen.client_span = row[15]
    if by_span:
        seen.span = _span(row[16:])
    # a create checks its own range; a change the range it will have (its own where not given)
    checkable = is_offset if not by_span else (lambda v: v is None or is_offset(v))
    if checkable(start) and checkable(end):
        seen.boundaries = (bool(start_ok), bool(end_ok))
    return seen


def _annotation_of(row: tuple[Any, ...]) -> Annotation:
    """The annotation of a read's row (its first 13 columns) with its document, project and
    taxonomy, and ``text_length``."""
    (pk, document_id, annotator_id, status, revision, project_id, name, archived_at) = row[:8]
    (taxonomy_id, taxonomy_name, version, created_at, length) = row[8:13]
    taxonomy = instance(
        Taxonomy,
        {"id": taxonomy_id, "name": taxonomy_name, "version": version, "created_at": created_at},
    )
    project = instance(
        Project,
        {"id": project_id, "name": name, "archived_at": archived_at, "taxonomy_id": taxonomy_id},
    )
    project.taxonomy = taxonomy
    document = instance(Document, {"id": document_id, "project_id": project_id})
    document.project = project
    seen = instance(
        Annotation,
        {
            "id": pk,
            "document_id": document_id,
            "annotator_id": annotator_id,
            "status": status,
            "revision": revision,
        },
    )
    seen.document = document
    seen.text_length = length
    return seen


def lock_annotation(pk: int) -> None:
    """Wait for the annotation's row lock (PostgreSQL; SQLite's IMMEDIATE transactions
    already hold the database's write lock), inside the caller's transaction."""
    if connection.features.has_select_for_update:
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT id FROM {_A} WHERE id = %s FOR UPDATE", [pk])


# --- the writes ------------------------------------------------------------------------------


def _span(values: Any) -> Span:
    return instance(Span, dict(zip(_SPAN_FIELDS, values, strict=True)))


def _history_user_id() -> int | None:
    """Who simple_history would record: the request's authenticated user, else nobody."""
    request = getattr(HistoricalRecords.context, "request", None)
    user = getattr(request, "user", None)
    return user.pk if user is not None and user.is_authenticated else None


def _values(fields: dict[str, Any]) -> list[Any]:
    """``fields`` (start, end, labels, details) as the database stores them."""
    return [Span._meta.get_field(name).get_db_prep_save(fields[name], connection) for name in _SET]


_BUMP = f"UPDATE {_A} SET revision = revision + 1, updated_at = %s WHERE id = %s AND revision = %s"
_HISTORY_INSERT = f"INSERT INTO {_H} ({{tracked}}, {{extra}}) SELECT {{tracked}}, %s, NULL, %s, %s"


@dataclass(frozen=True)
class _WriteSQL:
    single: str | None  # PostgreSQL: the whole write in one statement
    bump: str  # elsewhere: the annotation's revision, if it is the one read
    span: str  # then the span's write, returning the span
    history: str  # and its history row, copied from the span (by id)
    history_first: bool  # a delete records the span before it goes


@cache
def _write_sql(vendor: str, op: str) -> _WriteSQL:
    """The statements of a span write ``op``: ``+`` create, ``~`` change, ``-`` delete."""
    q = connection.ops.quote_name
    returning = _q(_SPAN_COLUMNS)
    history = _HISTORY_INSERT.format(tracked=_q(_TRACKED), extra=_q(_HISTORY_EXTRA))
    insert = f"INSERT INTO {_S} ({_q([*_INSERTED, 'revision'])})"
    values = ", ".join(["%s"] * len(_INSERTED) + ["1"])
    assignments = ", ".join(f"{q(c)} = %s" for c in _SET)
    change = f"UPDATE {_S} SET {assignments}, revision = revision + 1, updated_at = %s"
    delete = f"DELETE FROM {_S}"
    single = None
    if vendor == "postgresql":
        gate = "annotation_id IN (SELECT id FROM bumped)"
        span = {
            "+": f"{insert} SELECT {values} FROM bumped",
            "~": f"{change} WHERE id = %s AND {gate}",
            "-": f"{delete} WHERE id = %s AND {gate}",
        }[op]
        single = (
            f"WITH bumped AS ({_BUMP} RETURNING id), span AS ({span} RETURNING {returning}),"
            f" history AS ({history} FROM span) SELECT {returning} FROM span"
        )
    span = {"+": f"{insert} VALUES ({values})", "~": change, "-": delete}[op]
    if op != "+":
        span += " WHERE id = %s"
    return _WriteSQL(
        single,
        _BUMP,
        f"{span} RETURNING {returning}",
        f"{history} FROM {_S} WHERE id = %s",
        history_first=op == "-",
    )


def _write(
    op: str, seen: Annotation, now: datetime, span_params: list[Any], span_id: int | None
) -> Span | None:
    """Run ``op``'s statements; the span as written (deleted), or ``None`` when the
    annotation's revision is no longer ``seen.revision`` (nothing written)."""
    at = connection.ops.adapt_datetimefield_value(now)
    bump = [at, seen.pk, seen.revision]
    history = [at, op, _history_user_id()]
    sql = _write_sql(connection.vendor, op)
    with connection.cursor() as cursor:
        if sql.single is not None:
            cursor.execute(sql.single, [*bump, *span_params, *history])
            row = cursor.fetchone()
            return None if row is None else _span(row)
        with transaction.atomic():
            cursor.execute(sql.bump, bump)
            if cursor.rowcount != 1:
                return None
            if sql.history_first:
                cursor.execute(sql.history, [*history, span_id])
            cursor.execute(sql.span, span_params)
            row = cursor.fetchone()
            if not sql.history_first:
                cursor.execute(sql.history, [*history, row[0]])
        return _span(row)


def insert_span(
    seen: Annotation, fields: dict[str, Any], client_id: Any, now: datetime
) -> Span | None:
    client = Span._meta.get_field("client_id").get_db_prep_value(client_id, connection)
    at = connection.ops.adapt_datetimefield_value(now)
    return _write("+", seen, now, [*_values(fields), client, at, at, seen.pk], None)


def change_span(
    seen: Annotation, span_id: int, fields: dict[str, Any], now: datetime
) -> Span | None:
    at = connection.ops.adapt_datetimefield_value(now)
    return _write("~", seen, now, [*_values(fields), at, span_id], span_id)


def remove_span(seen: Annotation, span_id: int, now: datetime) -> Span | None:
    return _write("-", seen, now, [span_id], span_id)
