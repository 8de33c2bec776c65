"""A page of the document list with its figures, in one SQL statement built once.

``document_page`` gives the rows of ``GET /api/projects/ID/documents/``: for staff each
document's counters, project-level status and who works on it; for annotators their own
status. The project order (the list as it first opens, and every page after it while no
search or filter is given) is one statement: the page is chosen by the ``(project,
position)`` index, and its assignments and annotations come in the same round trip (``UNION
ALL``). Searches, filters and the other orders choose the page's ids with
``documents.document_list`` (the ORM) and then read the rows with the same statement on
those ids.

- Replaces: the page by the ORM (``document_list``'s page with ``prefetch_related`` of its
  assignments and annotations with their users, counted in Python), whose four querysets
  cost more to build and compile than the database to run (pyinstrument under
  ``bench/read_api.py``: the rows and their annotators were 42% of the request); the staff
  statement takes 0.7 ms in PostgreSQL at 100,000 documents, 4 queries a request instead
  of 7.
- Pays: ``bench/fenced.py --only document_page`` (the first 25 rows for staff): the ORM
  takes 9.6 times as long (9.9 against 1.0 ms; 20,000 documents, 2 cores at load 2; 8.3
  times at load 15).
- Same rows:
  ``tests/annotations/selectors/test_document_list.py::test_the_staff_page_equals_the_orm_s``
  (against the bench's ORM page) and
  ``test_rows_are_the_same_in_the_project_order_and_through_a_search``;
  ``tests/annotations/selectors/test_visibility_world.py`` checks every read path against a
  plain-Python oracle.

Reads only, in autocommit: one statement sees one snapshot (PostgreSQL; SQLite readers see
the last commit); the page's ids and rows of a search are two statements, and a document
deleted between them is left out of the page.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection

from annotations.models import Annotation, Assignment, Document, Project
from annotations.selectors.access import annotator_documents_join_sql
from annotations.selectors.documents import DocumentQuery, document_list, status_of

SUBMITTED = Annotation.Status.SUBMITTED
IN_PROGRESS = Annotation.Status.IN_PROGRESS


@dataclass
class AnnotatorStatus:
    id: int
    username: str
    status: str  # todo | in_progress | submitted


@dataclass
class DocumentWork:
    """Who works on a document (staff rows): per annotator, and the counts."""

    assigned: int
    in_progress: int
    submitted: int
    annotators: list[AnnotatorStatus]
    updated_at: datetime | None  # the latest annotation change


@dataclass
class DocumentRow:  # the first five: the statements' first columns, in their order
    id: int
    name: str
    external_id: str
    position: int
    length: int  # characters
    updated_at: datetime | None
    status: str  # staff: the project-level status; annotators: my_status
    my_status: str | None
    work: DocumentWork | None = None  # staff only


def in_project_order(query: DocumentQuery) -> bool:
    """True when the list is the project order unsearched and unfiltered (one statement)."""
    return (
        not query.q
        and query.status is None
        and query.annotator is None
        and query.fewer_than is None
        and query.ordering in ("position", "-position")
    )


@cache
def _sql(vendor: str) -> dict[str, str]:
    """The statements for this database; ``{page}`` picks the page's documents: in the
    project order (params: project, limit, offset) or by id (params: the ids)."""
    q = connection.ops.quote_name
    doc, assignment = q(Document._meta.db_table), q(Assignment._meta.db_table)
    annotation, user = q(Annotation._meta.db_table), q(get_user_model()._meta.db_table)
    columns = "d.id, d.name, d.external_id, d.position, LENGTH(d.text) AS length"
    counters = "d.assignment_count, d.annotation_count, d.submitted_count"
    staff = (
        f"WITH page AS (SELECT {columns}, {counters} FROM {doc} d {{page}})"
        # kind 2: the page's annotations, 0: its documents, 1: their assignments (the
        # annotations first: PostgreSQL types the NULLs of a UNION by the branches before)
        " SELECT 2, a.document_id, a.annotator_id, u.username, a.status, NULL, NULL, NULL,"
        f" NULL, a.updated_at FROM {annotation} a JOIN page p ON p.id = a.document_id"
        f" JOIN {user} u ON u.id = a.annotator_id"
        " UNION ALL SELECT 0, p.id, p.position, p.name, p.external_id, p.length,"
        " p.assignment_count, p.annotation_count, p.submitted_count, NULL FROM page p"
        " UNION ALL SELECT 1, s.document_id, s.annotator_id, u.username, NULL, NULL, NULL,"
        f" NULL, NULL, NULL FROM {assignment} s JOIN page p ON p.id = s.document_id"
        f" JOIN {user} u ON u.id = s.annotator_id"
    )
    # an annotator: the documents they see (``access.annotator_documents_join_sql``), with their
    # own annotation's status
    mine = (
        f"SELECT {columns}, a.status, a.updated_at FROM {doc} d{{visible}}"
        f" LEFT JOIN {annotation} a ON a.document_id = d.id AND a.annotator_id = %s {{page}}"
    )
    ordered = "WHERE d.project_id = %s ORDER BY d.position {way}, d.id {way} LIMIT %s OFFSET %s"
    return {
        "staff": staff,
        "mine": mine,
        "position": ordered.format(way="ASC"),
        "-position": ordered.format(way="DESC"),
        "ids": "WHERE d.id IN ({ids})",
    }


def _when(value: Any) -> datetime | None:
    """A datetime column as the model field reads it (SQLite gives text)."""
    convert = getattr(connection.ops, "convert_datetimefield_value", None)
    if value is None or convert is None:
        return value
    return convert(value, None, connection)


def document_page(
    user: Any, project: Project, query: DocumentQuery, *, staff: bool, offset: int, limit: int
) -> list[DocumentRow]:
    """The rows of the list's page [offset, offset + limit), in the list's order.

    ``updated_at`` is the latest annotation change (anyone's for staff, the user's own for
    annotators); ``my_status`` the user's own status (their annotation's, else ``todo``
    when assigned to them, else null); staff rows carry the project-level ``status``
    (``documents.status_of``) and who works on the document.
    """
    sql = _sql(connection.vendor)
    if in_project_order(query):
        ids = None
        page, params = sql[query.ordering], [project.pk, limit, offset]
    else:
        found = document_list(user, project, query, staff=staff).values_list("id", flat=True)
        ids = list(found[offset : offset + limit])
        if not ids:
            return []
        page, params = sql["ids"].format(ids=", ".join(["%s"] * len(ids))), ids
    with connection.cursor() as cursor:
        if staff:
            cursor.execute(sql["staff"].format(page=page), params)
            rows = _staff_rows(user, project, cursor.fetchall())
        else:
            # the documents the rules give an annotator (a join: as fast as the plain one)
            visible, joined = annotator_documents_join_sql(user, "d")
            statement = sql["mine"].format(visible=visible, page=page)
            cursor.execute(statement, [*joined, user.pk, *params])
            rows = [
                DocumentRow(*identity, _when(updated_at), status or "todo", status or "todo")
                for *identity, status, updated_at in cursor
            ]
    if ids is None:
        rows.sort(key=lambda r: (r.position, r.id), reverse=query.ordering == "-position")
    else:
        order = {pk: n for n, pk in enumerate(ids)}
        rows.sort(key=lambda r: order[r.id])
    return rows


def _staff_rows(user: Any, project: Project, fetched: list[tuple]) -> list[DocumentRow]:
    """DocumentRows of the staff statement's rows (kinds 0, 1 and 2), in no order."""
    people: dict[int, dict[int, AnnotatorStatus]] = defaultdict(dict)
    assigned: dict[int, int] = defaultdict(int)
    latest: dict[int, datetime] = {}
    documents = []
    for kind, pk, number, name, text, *rest in sorted(fetched, key=lambda row: row[0]):
        if kind == 0:
            documents.append((pk, number, name, text, *rest[:4]))
        elif kind == 1:  # number: the annotator; name: their username
            assigned[pk] += 1
            people[pk][number] = AnnotatorStatus(number, name, "todo")
        else:  # text: the annotation's status; an annotation outranks the assignment
            people[pk][number] = AnnotatorStatus(number, name, text)
            updated_at = _when(rest[4])
            latest[pk] = max(latest.get(pk, updated_at), updated_at)
    rows = []
    me = user.pk  # once: request.user is a lazy object, each attribute read goes through it
    for pk, position, name, external_id, length, *counters in documents:
        annotators = sorted(people[pk].values(), key=lambda a: a.username)
        my_status = next((a.status for a in annotators if a.id == me), None)
        rows.append(
            DocumentRow(
                pk,
                name,
                external_id,
                position,
                length,
                updated_at=latest.get(pk),
                status=status_of(*counters, project.annotators_per_document),
                my_status=my_status,
                work=DocumentWork(
                    assigned=assigned[pk],
                    in_progress=sum(a.status == IN_PROGRESS for a in annotators),
                    submitted=sum(a.status == SUBMITTED for a in annotators),
                    annotators=annotators,
                    updated_at=latest.get(pk),
                ),
            )
        )
    return rows
