"""Reads behind the annotation API: progress, annotations with their spans (the work queue:
``annotations.selectors.queue``).

Progress is per requesting user:
- annotator: ``total`` = documents of the project assigned to them, ``done`` = those of
  them whose annotation by the user is submitted;
- reviewer/admin: ``total`` = all documents of the project, ``done`` = documents done by
  the one project-level definition (``annotations.selectors.documents``: at least
  ``project.annotators_per_document`` submitted annotations); ``assignments`` and
  ``submitted`` count every (document, annotator) assignment and every submitted
  annotation of the project.
"""

from __future__ import annotations

from typing import Any, TypedDict

from django.db.models import Prefetch, QuerySet

from annotations.models import (
    Annotation,
    Membership,
    Project,
    Span,
)
from annotations.selectors.access import (
    annotations_for,
    effective_role,
    is_staff_role,
)
from annotations.selectors.documents import project_totals

SUBMITTED = Annotation.Status.SUBMITTED


class Progress(TypedDict, total=False):
    done: int
    total: int
    assignments: int
    submitted: int


def _staff_progress(project: Project) -> Progress:
    """From the project's counters (kept by the database: no query)."""
    totals = project_totals(project)
    return {
        "done": totals["done"],
        "total": totals["documents"],
        "assignments": totals["assignments"],
        "submitted": totals["submitted"],
    }


def progress_for(user: Any, projects: list[Project]) -> dict[int, tuple[str | None, Progress]]:
    """{project_id: (role, progress)} for the user, in one query (the user's memberships with
    their counters); staff progress comes from the ``projects``' counters as loaded, an
    annotator's from their membership's (``assigned_count``, ``done_count``), all kept by
    the database."""
    mine = {}
    if getattr(user, "is_authenticated", False):
        mine = {
            pid: (role, assigned, done)
            for pid, role, assigned, done in Membership.objects.filter(user=user).values_list(
                "project_id", "role", "assigned_count", "done_count"
            )
        }
    out: dict[int, tuple[str | None, Progress]] = {}
    for project in projects:
        role, assigned, done = mine.get(project.pk, (None, 0, 0))
        role = effective_role(user, role)
        if is_staff_role(role):
            out[project.pk] = (role, _staff_progress(project))
        else:
            out[project.pk] = (role, {"done": done, "total": assigned})
    return out


def annotation_with_spans(queryset: QuerySet[Annotation]) -> QuerySet[Annotation]:
    return queryset.select_related("document").prefetch_related(
        Prefetch("spans", queryset=Span.objects.order_by("start", "end", "id"))
    )


def visible_annotations(user: Any) -> QuerySet[Annotation]:
    """Annotations the user may read, with spans prefetched."""
    return annotation_with_spans(annotations_for(user))


def visible_spans(user: Any) -> QuerySet[Span]:
    """Spans of the annotations the user may read."""
    return Span.objects.filter(annotation__in=annotations_for(user)).select_related("annotation")
