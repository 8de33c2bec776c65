"""Reads behind the annotation API: progress, the work queue, annotations with their spans.

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

from django.db.models import Count, Exists, OuterRef, Prefetch, QuerySet

from annotations.models import Annotation, Assignment, Document, Project, Span
from annotations.selectors.access import (
    STAFF_ROLES,
    annotations_for,
    documents_for,
    roles_by_project,
)
from annotations.selectors.documents import status_totals

SUBMITTED = Annotation.Status.SUBMITTED


class Progress(TypedDict, total=False):
    done: int
    total: int
    assignments: int
    submitted: int


def _annotator_progress(user: Any, project_ids: list[int]) -> dict[int, Progress]:
    submitted = Annotation.objects.filter(
        document=OuterRef("document"), annotator=user, status=SUBMITTED
    )
    rows = (
        Assignment.objects.filter(annotator=user, document__project_id__in=project_ids)
        .values("document__project_id")
        .annotate(total=Count("id"), done=Count("id", filter=Exists(submitted)))
    )
    return {r["document__project_id"]: {"done": r["done"], "total": r["total"]} for r in rows}


def _staff_progress(project_ids: list[int]) -> dict[int, Progress]:
    out: dict[int, Progress] = {
        pid: {"done": t["done"], "total": t["documents"], "assignments": 0, "submitted": 0}
        for pid, t in status_totals(project_ids).items()
    }
    for r in (
        Assignment.objects.filter(document__project_id__in=project_ids)
        .values("document__project_id")
        .annotate(n=Count("id"))
    ):
        out[r["document__project_id"]]["assignments"] = r["n"]
    for r in (
        Annotation.objects.filter(document__project_id__in=project_ids, status=SUBMITTED)
        .values("document__project_id")
        .annotate(n=Count("id"))
    ):
        out[r["document__project_id"]]["submitted"] = r["n"]
    return out


def progress_for(user: Any, projects: list[Project]) -> dict[int, tuple[str | None, Progress]]:
    """{project_id: (role, progress)} for the user, in a handful of queries."""
    roles = roles_by_project(user)
    superuser = bool(getattr(user, "is_superuser", False))
    role_of = {p.pk: roles.get(p.pk) or ("admin" if superuser else None) for p in projects}
    staff_ids = [pid for pid, role in role_of.items() if role in STAFF_ROLES]
    other_ids = [pid for pid in role_of if pid not in staff_ids]
    staff = _staff_progress(staff_ids) if staff_ids else {}
    mine = _annotator_progress(user, other_ids) if other_ids else {}
    empty_staff: Progress = {"done": 0, "total": 0, "assignments": 0, "submitted": 0}
    return {
        pid: (
            role,
            staff.get(pid, empty_staff)
            if pid in staff_ids
            else mine.get(pid, {"done": 0, "total": 0}),
        )
        for pid, role in role_of.items()
    }


def next_document(user: Any, project: Project) -> Document | None:
    """The first document assigned to the user, in project order, not yet submitted by them."""
    submitted = Annotation.objects.filter(document=OuterRef("pk"), annotator=user, status=SUBMITTED)
    assigned = Assignment.objects.filter(document=OuterRef("pk"), annotator=user)
    return (
        documents_for(user, project)
        .filter(Exists(assigned))
        .exclude(Exists(submitted))
        .order_by("position", "id")
        .first()
    )


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
