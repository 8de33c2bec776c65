"""A page of the user's project list with their role and progress, in one SQL statement.

``project_page`` gives the rows of ``GET /api/projects/`` as ``ProjectListSerializer``
renders them (``tests/annotations/selectors/test_query_counts.py`` compares the two for every kind
of user): the projects the user may see (``access.projects_for``, through
``access.project_visible_sql``), active or archived, by name, each with the user's role and the
progress of ``annotations.progress_for`` (staff: the project's counters; annotators: their
membership's), and the list's size (``COUNT(*) OVER ()``; a page past the end asks it
again).

Why SQL: with the ORM's count, page and memberships querysets and the serializer, a request
took 4.1 ms in process (``bench/read_api.py``'s fixture, through ``django.test.Client``);
with this statement 1.1 ms.
Reads only; one statement sees one snapshot.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from django.db import connection

from annotations.models import Membership, Project
from annotations.selectors.access import effective_role, is_staff_role, project_visible_sql


@cache
def _sql(vendor: str) -> dict[str, str]:
    q = connection.ops.quote_name
    project, membership = q(Project._meta.db_table), q(Membership._meta.db_table)
    done, archived = q("done_count"), q("archived_at")
    visible = (
        f"FROM {project} p LEFT JOIN {membership} m ON m.project_id = p.id AND m.user_id = %s"
        f" WHERE {{{{visible}}}} AND p.{archived} IS {{archived}} NULL"
    )
    page = (
        f"SELECT p.id, p.name, p.description, p.taxonomy_id, p.{archived},"
        f" p.annotators_per_document, p.document_count, p.{done}, p.assignment_count,"
        f" p.submitted_count, m.role, m.assigned_count, m.{done}, COUNT(*) OVER ()"
        f" {visible} ORDER BY p.name LIMIT %s OFFSET %s"
    )
    count = f"SELECT COUNT(*) {visible}"
    return {
        "active": page.format(archived=""),
        "archived": page.format(archived="NOT"),
        "count active": count.format(archived=""),
        "count archived": count.format(archived="NOT"),
    }


def project_page(
    user: Any, *, archived: bool, offset: int, limit: int
) -> tuple[list[dict[str, Any]], int]:
    """(the page's rows, the list's size): the projects the user may see, ``archived`` ones
    or the active ones, by name."""
    if not getattr(user, "is_authenticated", False):
        return [], 0
    which = "archived" if archived else "active"
    sql = _sql(connection.vendor)
    visible, params = project_visible_sql(user, "m")
    with connection.cursor() as cursor:
        cursor.execute(sql[which].format(visible=visible), [user.pk, *params, limit, offset])
        fetched = cursor.fetchall()
        if fetched:
            count = fetched[0][-1]
        else:
            statement = sql[f"count {which}"].format(visible=visible)
            cursor.execute(statement, [user.pk, *params])
            count = cursor.fetchone()[0]
    rows = []
    for (
        pk,
        name,
        description,
        taxonomy,
        archived_at,
        per_document,
        documents,
        done,
        assignments,
        submitted,
        role,
        my_assigned,
        my_done,
        _,
    ) in fetched:
        role = effective_role(user, role)
        if is_staff_role(role):
            progress = {
                "done": done,
                "total": documents,
                "assignments": assignments,
                "submitted": submitted,
            }
        else:
            progress = {"done": my_done or 0, "total": my_assigned or 0}
        rows.append(
            {
                "id": pk,
                "name": name,
                "description": description,
                "role": role,
                "taxonomy": taxonomy,
                "progress": progress,
                "archived": archived_at is not None,
                "annotators_per_document": per_document,
            }
        )
    return rows, count
