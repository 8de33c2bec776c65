"""Recompute the counters the database keeps (``annotations.models``: "counters kept by the
database"; triggers of migrations 0007, 0018 and 0020).

The triggers keep every ``*_count`` column right on every write, so no service needs to
call anything here. ``refresh_counts`` recomputes them from the rows: a repair after
restoring a dump made without triggers, and what the tests compare the triggers against.

Concurrency: one transaction; it locks the projects' rows first (the triggers' order), so
writes to those projects wait for it and it never sees half of one.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import connection, transaction

from annotations.models import Project

_DOCUMENTS = """UPDATE annotations_document SET
    assignment_count = (SELECT count(*) FROM annotations_assignment a
        WHERE a.document_id = annotations_document.id),
    annotation_count = (SELECT count(*) FROM annotations_annotation a
        WHERE a.document_id = annotations_document.id),
    submitted_count = (SELECT count(*) FROM annotations_annotation a
        WHERE a.document_id = annotations_document.id AND a.status = 'submitted')
WHERE project_id IN ({ids})"""

_PROJECTS = """UPDATE annotations_project SET
    document_count = (SELECT count(*) FROM annotations_document d
        WHERE d.project_id = annotations_project.id),
    assignment_count = (SELECT coalesce(sum(d.assignment_count), 0)
        FROM annotations_document d WHERE d.project_id = annotations_project.id),
    submitted_count = (SELECT coalesce(sum(d.submitted_count), 0)
        FROM annotations_document d WHERE d.project_id = annotations_project.id),
    done_count = (SELECT count(*) FROM annotations_document d
        WHERE d.project_id = annotations_project.id
        AND d.submitted_count >= annotations_project.annotators_per_document),
    in_progress_count = (SELECT count(*) FROM annotations_document d
        WHERE d.project_id = annotations_project.id AND d.annotation_count > 0
        AND d.submitted_count < annotations_project.annotators_per_document),
    todo_count = (SELECT count(*) FROM annotations_document d
        WHERE d.project_id = annotations_project.id AND d.annotation_count = 0
        AND d.assignment_count > 0)
WHERE id IN ({ids})"""

_MEMBERS = """UPDATE annotations_membership SET
    assigned_count = (SELECT count(*) FROM annotations_assignment a
        JOIN annotations_document d ON d.id = a.document_id
        WHERE d.project_id = annotations_membership.project_id
        AND a.annotator_id = annotations_membership.user_id),
    in_progress_count = (SELECT count(*) FROM annotations_annotation a
        JOIN annotations_document d ON d.id = a.document_id
        WHERE d.project_id = annotations_membership.project_id
        AND a.annotator_id = annotations_membership.user_id AND a.status = 'in_progress'),
    submitted_count = (SELECT count(*) FROM annotations_annotation a
        JOIN annotations_document d ON d.id = a.document_id
        WHERE d.project_id = annotations_membership.project_id
        AND a.annotator_id = annotations_membership.user_id AND a.status = 'submitted'),
    done_count = (SELECT count(*) FROM annotations_assignment s
        JOIN annotations_document d ON d.id = s.document_id
        JOIN annotations_annotation a ON a.document_id = s.document_id
            AND a.annotator_id = s.annotator_id AND a.status = 'submitted'
        WHERE d.project_id = annotations_membership.project_id
        AND s.annotator_id = annotations_membership.user_id)
WHERE project_id IN ({ids})"""


_WORKERS_CLEAR = "DELETE FROM annotations_annotatorcounter WHERE project_id IN ({ids})"

# every (project, person) with assignments or annotations: a fresh row
_WORKERS = """INSERT INTO annotations_annotatorcounter (project_id, annotator_id, assigned_count,
    in_progress_count, submitted_count, started_count, done_count, last_active)
SELECT project_id, annotator_id, sum(assigned), sum(in_progress), sum(submitted),
       sum(started), sum(done), max(t)
FROM (
    SELECT d.project_id, a.annotator_id, 0 AS assigned,
        CASE WHEN a.status = 'in_progress' THEN 1 ELSE 0 END AS in_progress,
        CASE WHEN a.status = 'submitted' THEN 1 ELSE 0 END AS submitted,
        0 AS started, 0 AS done, a.updated_at AS t
    FROM annotations_annotation a JOIN annotations_document d ON d.id = a.document_id
    WHERE d.project_id IN ({ids})
    UNION ALL
    SELECT d.project_id, s.annotator_id, 1, 0, 0,
        CASE WHEN a.status = 'in_progress' THEN 1 ELSE 0 END,
        CASE WHEN a.status = 'submitted' THEN 1 ELSE 0 END, NULL
    FROM annotations_assignment s JOIN annotations_document d ON d.id = s.document_id
    LEFT JOIN annotations_annotation a ON a.document_id = s.document_id
        AND a.annotator_id = s.annotator_id
    WHERE d.project_id IN ({ids})
) x GROUP BY project_id, annotator_id"""


def refresh_counts(*, project_ids: Sequence[int] | None = None) -> None:
    """Recompute the documents', projects', members' and people's (``AnnotatorCounter``)
    counters of the given projects (every project when None) from their documents,
    assignments and annotations."""
    with transaction.atomic():
        projects = Project.objects.select_for_update().order_by("pk")
        if project_ids is not None:
            projects = projects.filter(pk__in=list(project_ids))
        ids = [int(pk) for pk in projects.values_list("pk", flat=True)]
        if not ids:
            return
        listed = ", ".join(str(pk) for pk in ids)
        with connection.cursor() as cursor:
            for sql in (_DOCUMENTS, _PROJECTS, _MEMBERS, _WORKERS_CLEAR, _WORKERS):
                cursor.execute(sql.format(ids=listed))
