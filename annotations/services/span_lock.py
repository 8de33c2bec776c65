"""The lock every span write starts with: one hand-written query
(``annotations.services.annotations`` holds the writes and their concurrency contract).

Span writes are the API's hot path; the ORM took longer to build and compile this query
(visibility, four tables, four subqueries) than PostgreSQL took to run it. Rows come back
through the backend's converters (``fallacy_platform.rows.instance``), as from a queryset,
so both PostgreSQL and the embedded SQLite get the same Python values.
"""

from __future__ import annotations

from typing import Any

from django.db import connection
from fallacy_platform.rows import instance

from annotations.models import Annotation, Document, Membership, Project, Sentence, Span, Taxonomy
from annotations.selectors.access import STAFF_ROLES


def is_offset(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


ANNOTATION_TABLE = Annotation._meta.db_table
_A, _D, _P, _T = (m._meta.db_table for m in (Annotation, Document, Project, Taxonomy))
_S, _SN = Span._meta.db_table, Sentence._meta.db_table
_MEMBERSHIP = Membership._meta.db_table

LOCK_SQL = f"""SELECT a.id, a.document_id, a.annotator_id, a.status, a.revision,
    d.project_id, p.name, p.archived_at, p.taxonomy_id, t.name, t.version, t.created_at,
    LENGTH(d.text),
    EXISTS (SELECT 1 FROM {_SN} sn WHERE sn.document_id = a.document_id AND sn.start = %s),
    EXISTS (SELECT 1 FROM {_SN} sn WHERE sn.document_id = a.document_id AND sn."end" = %s),
    (SELECT r.revision FROM {_A} r WHERE r.id = a.id),
    (SELECT s.id FROM {_S} s WHERE s.annotation_id = a.id AND s.client_id = %s)
FROM {_A} a JOIN {_D} d ON d.id = a.document_id JOIN {_P} p ON p.id = d.project_id
    JOIN {_T} t ON t.id = p.taxonomy_id
WHERE {{where}}{{visible}}{{lock}}"""
_BY_ANNOTATION = "a.id = %s"
_BY_SPAN = f"a.id = (SELECT s.annotation_id FROM {_S} s WHERE s.id = %s)"
# annotations_for(user): staff of the project see all of its annotations, members their own
_VISIBLE = f""" AND EXISTS (SELECT 1 FROM {_MEMBERSHIP} m WHERE m.project_id = d.project_id
    AND m.user_id = %s AND (m.role IN (%s, %s) OR a.annotator_id = %s))"""

SPAN_SQL = f"""SELECT s.*,
    EXISTS (SELECT 1 FROM {_SN} sn WHERE sn.document_id = %s AND sn.start = COALESCE(%s, s.start)),
    EXISTS (SELECT 1 FROM {_SN} sn WHERE sn.document_id = %s AND sn."end" = COALESCE(%s, s."end"))
FROM {_S} s WHERE s.id = %s AND s.annotation_id = %s"""


def lock_for_span_write(
    *,
    annotation: Annotation | int | None = None,
    span_id: int | None = None,
    by: Any | None,
    start: Any = None,
    end: Any = None,
    client_id: Any = None,
) -> Annotation:
    """Lock the annotation (given, or the one of span ``span_id``) in one query that also
    reads what the checks need; ``by``: only an annotation ``by`` may see (else
    ``DoesNotExist``: a 404, as for one that does not exist).

    The locked row is the newest version even when the lock had to wait, but subqueries
    read the statement's snapshot: ``seen_revision`` differing from ``revision`` says a
    concurrent write committed meanwhile (``client_span`` may then be stale).
    """
    if by is not None and not by.is_authenticated:
        raise Annotation.DoesNotExist("anonymous users write nothing")
    if client_id is not None:  # as the ORM would (ValidationError for a malformed one)
        client_id = Span._meta.get_field("client_id").get_db_prep_value(client_id, connection)
    where = _BY_SPAN if span_id is not None else _BY_ANNOTATION
    key = span_id if span_id is not None else getattr(annotation, "pk", annotation)
    params: list[Any] = [
        start if is_offset(start) else None,
        end if is_offset(end) else None,
        client_id,
        key,
    ]
    visible = ""
    if by is not None and not getattr(by, "is_superuser", False):
        visible = _VISIBLE
        params += [by.pk, *(role.value for role in STAFF_ROLES), by.pk]
    lock = " FOR UPDATE OF a" if connection.features.has_select_for_update_of else ""
    with connection.cursor() as cursor:
        cursor.execute(LOCK_SQL.format(where=where, visible=visible, lock=lock), params)
        row = cursor.fetchone()
    if row is None:
        raise Annotation.DoesNotExist(f"annotation {key} not found")
    (pk, document_id, annotator_id, status, revision, project_id, name, archived_at) = row[:8]
    (taxonomy_id, taxonomy_name, version, created_at, length, start_ok, end_ok) = row[8:15]
    seen_revision, client_span = row[15:]
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
    locked = instance(
        Annotation,
        {
            "id": pk,
            "document_id": document_id,
            "annotator_id": annotator_id,
            "status": status,
            "revision": revision,
        },
    )
    locked.document = document
    locked.text_length = length
    if is_offset(start) and is_offset(end):
        locked.boundaries = (bool(start_ok), bool(end_ok))
    locked.seen_revision, locked.client_span = seen_revision, client_span
    return locked
