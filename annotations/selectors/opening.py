"""The hottest reads of the annotation server, their queries written out as SQL.

- ``document_opened``: what the annotation page needs (``GET /api/documents/ID/open/``),
  in four queries;
- ``project_with_role``: the project of a document-list page and the user's role in it,
  in one.

Each statement is built once per process: building the equivalent ORM querysets cost ~80%
of the requests' Python time (pyinstrument under ``bench/read_api.py``'s requests: 3 of the
open view's 3.6 ms went to queryset construction and compilation, 0.2 ms per query even for
the sentences; the list's project-and-role queryset 0.8 ms, its SQL 0.1). The open answer is
the JSON of ``DocumentSerializer`` plus ``/documents/ID/annotations/``
(``tests/annotations/selectors/test_query_counts.py`` compares them); column values are converted
here as the model fields would (JSON text, UUIDs, SQLite's naive datetimes).

Reads only (opening a document creates nothing), in autocommit: each query sees committed
rows; a span saved between two of them is either in the answer or in the next one, as
with the two calls this replaces.
"""

from __future__ import annotations

import json
import uuid
from functools import cache
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection
from fallacy_platform.rows import instance
from rest_framework.fields import DateTimeField

from annotations import orderings
from annotations.models import (
    Annotation,
    Assignment,
    Document,
    Membership,
    Project,
    Sentence,
    Span,
)
from annotations.selectors.access import (
    effective_role,
    listed_annotations_sql,
    project_visible_sql,
    sees_document,
)

_DATETIME = DateTimeField()  # DRF's rendering of datetimes, as the serializers give them


@cache
def _sql(vendor: str) -> dict[str, str]:
    """The four statements for this database (tables and columns quoted by its rules)."""
    q = connection.ops.quote_name
    doc, project = q(Document._meta.db_table), q(Project._meta.db_table)
    assignment, membership = q(Assignment._meta.db_table), q(Membership._meta.db_table)
    annotation, user = q(Annotation._meta.db_table), q(get_user_model()._meta.db_table)
    span, sentence = q(Span._meta.db_table), q(Sentence._meta.db_table)
    index, start, end = q("index"), q("start"), q("end")
    annotations = (
        f"SELECT a.id, a.annotator_id, u.username, a.status, a.revision, a.updated_at,"
        f" a.submitted_at FROM {annotation} a JOIN {user} u ON u.id = a.annotator_id"
        f" WHERE a.document_id = %s AND {{listed}} ORDER BY u.username, a.id"
    )
    return {
        # the facts ``access.sees_document`` decides on: assigned to the user? their role?
        "document": (
            f"SELECT d.id, d.project_id, d.name, d.external_id, d.text, p.kind,"
            f" EXISTS(SELECT 1 FROM {assignment} s"
            f"  WHERE s.document_id = d.id AND s.annotator_id = %s),"
            f" (SELECT m.role FROM {membership} m"
            f"  WHERE m.project_id = d.project_id AND m.user_id = %s LIMIT 1)"
            f" FROM {doc} d JOIN {project} p ON p.id = d.project_id WHERE d.id = %s"
        ),
        "annotations": annotations,
        "spans": (
            f"SELECT annotation_id, id, client_id, {start}, {end}, labels, details, revision"
            f" FROM {span} WHERE annotation_id IN ({{ids}}) ORDER BY {start}, {end}, id"
        ),
        "sentences": (
            f"SELECT {index}, {start}, {end} FROM {sentence}"
            f" WHERE document_id = %s ORDER BY {index}"
        ),
    }


def _when(value: Any) -> str | None:
    """A datetime column as DRF renders the model's field (SQLite gives it naive)."""
    if value is None:
        return None
    convert = getattr(connection.ops, "convert_datetimefield_value", None)
    if convert is not None:
        value = convert(value, None, connection)
    return _DATETIME.to_representation(value)


def document_opened(user: Any, pk: int) -> dict[str, Any] | None:
    """The document as ``DocumentSerializer`` gives it plus ``annotations`` as
    ``/documents/ID/annotations/`` does (staff: everyone's; annotators: only their own, 0
    or 1); None when the user may not see the document. Four queries whatever the number
    of sentences or spans."""
    if not getattr(user, "is_authenticated", False):
        return None
    sql = _sql(connection.vendor)
    with connection.cursor() as cursor:
        cursor.execute(sql["document"], [user.pk, user.pk, pk])
        doc = cursor.fetchone()
        if doc is None:
            return None
        doc_id, project_id, name, external_id, text, kind, assigned, my_role = doc
        role = effective_role(user, my_role)
        if not sees_document(user, role, assigned=bool(assigned)):
            return None
        listed, params = listed_annotations_sql(user, role, "a")
        cursor.execute(sql["annotations"].format(listed=listed), [pk, *params])
        rows = cursor.fetchall()
        spans = _spans_of(cursor, sql["spans"], [row[0] for row in rows])
        cursor.execute(sql["sentences"], [pk])
        sentences = [{"index": i, "start": s, "end": e} for i, s, e in cursor.fetchall()]
    return {
        "id": doc_id,
        "project": project_id,
        "name": name,
        "external_id": external_id,
        "text": text,
        "sentences": sentences,
        "my_status": next(
            (row[3] for row in rows if row[1] == user.pk),
            "todo" if assigned else None,
        ),
        "project_kind": kind,
        "annotations": [_annotation_json(row, spans[row[0]]) for row in rows],
    }


def _spans_of(cursor: Any, statement: str, ids: list[int]) -> dict[int, list[dict[str, Any]]]:
    """The spans of each of the annotations ``ids``, as the annotations endpoint gives them
    (one query, none without annotations)."""
    spans: dict[int, list[dict[str, Any]]] = {annotation_id: [] for annotation_id in ids}
    if not spans:
        return spans
    ids = list(spans)
    cursor.execute(statement.format(ids=", ".join(["%s"] * len(ids))), ids)
    for (
        annotation_id,
        span_id,
        client_id,
        start,
        end,
        labels,
        details,
        revision,
    ) in cursor.fetchall():
        spans[annotation_id].append(
            {
                "id": span_id,
                "client_id": None if client_id is None else str(uuid.UUID(str(client_id))),
                "start": start,
                "end": end,
                "labels": json.loads(labels),
                "details": json.loads(details),
                "revision": revision,
            }
        )
    return spans


def _annotation_json(row: tuple[Any, ...], spans: list[dict[str, Any]]) -> dict[str, Any]:
    """An annotation row of the ``annotations`` statement with its spans."""
    aid, uid, username, status, revision, updated_at, submitted_at = row
    return {
        "id": aid,
        "annotator": {"id": uid, "username": username},
        "status": status,
        "revision": revision,
        "updated_at": _when(updated_at),
        "submitted_at": _when(submitted_at),
        "spans": spans,
    }


# the project's columns the document list reads (the rest stay deferred: loaded on access)
PROJECT_FIELDS = ("id", "name", "kind", "annotators_per_document", "document_count")


@cache
def _project_sql(vendor: str) -> str:
    q = connection.ops.quote_name
    columns = ", ".join(f"p.{q(Project._meta.get_field(f).column)}" for f in PROJECT_FIELDS)
    # the annotators' queue order: in the model another app registered (orderings), if any
    settings = orderings.queue_settings()
    ordering, join = "NULL", ""
    if settings is not None:
        table, meta = q(settings._meta.db_table), settings._meta
        ordering = f"s.{q(meta.get_field('ordering').column)}"
        join = f" LEFT JOIN {table} s ON s.{q(meta.get_field('project').column)} = p.id"
    return (
        f"SELECT {columns}, m.role, m.assigned_count, {ordering}, {{visible}}"
        f" FROM {q(Project._meta.db_table)} p"
        f" LEFT JOIN {q(Membership._meta.db_table)} m ON m.project_id = p.id AND m.user_id = %s"
        f"{join} WHERE p.id = %s"
    )


def project_with_role(user: Any, pk: int) -> Project | None:
    """The project (``PROJECT_FIELDS`` loaded) with ``my_role`` and ``my_assigned`` (the
    user's membership, or None) and ``queue_ordering`` (its suggestion settings' order, or
    None), ``visible`` (whether ``access.projects_for`` holds it: ``project_visible_sql``)
    and ``role`` (the role the user acts with: ``access.effective_role``); None when there
    is no such project."""
    visible, params = project_visible_sql(user, "m")
    statement = _project_sql(connection.vendor).format(visible=visible)
    with connection.cursor() as cursor:
        cursor.execute(statement, [*params, user.pk, pk])
        row = cursor.fetchone()
    if row is None:
        return None
    n = len(PROJECT_FIELDS)
    project = instance(Project, dict(zip(PROJECT_FIELDS, row[:n], strict=True)))
    project.my_role, project.my_assigned, project.queue_ordering, visible = row[n:]
    project.visible = bool(visible)
    project.role = effective_role(user, project.my_role) if project.visible else None
    return project
