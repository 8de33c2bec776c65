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

from django.db.models import Exists, F, OuterRef, Prefetch, QuerySet, Subquery
from rest_framework.fields import DateTimeField

from annotations.models import (
    Annotation,
    Assignment,
    Document,
    Membership,
    Project,
    Sentence,
    Span,
)
from annotations.selectors.access import STAFF_ROLES, annotations_for, documents_for
from annotations.selectors.documents import DISAGREEMENT, project_totals

SUBMITTED = Annotation.Status.SUBMITTED
_DATETIME = DateTimeField()  # DRF's rendering of datetimes, as the serializers give them


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
    superuser = bool(getattr(user, "is_superuser", False))
    out: dict[int, tuple[str | None, Progress]] = {}
    for project in projects:
        role, assigned, done = mine.get(project.pk, (None, 0, 0))
        role = role or ("admin" if superuser else None)
        if role in STAFF_ROLES:
            out[project.pk] = (role, _staff_progress(project))
        else:
            out[project.pk] = (role, {"done": done, "total": assigned})
    return out


def next_document(user: Any, project: Project) -> Document | None:
    """The first document assigned to the user, in project order, not yet submitted by them;
    when the project orders its queue by disagreement (its suggestion settings), the
    documents where the suggesting runs disagree most come first (then project order)."""
    from evaluation.services.suggestions import disagreement_first  # evaluation builds on us

    submitted = Annotation.objects.filter(document=OuterRef("pk"), annotator=user, status=SUBMITTED)
    assigned = Assignment.objects.filter(document=OuterRef("pk"), annotator=user)
    queue = documents_for(user, project).filter(Exists(assigned)).exclude(Exists(submitted))
    if disagreement_first(project):
        queue = queue.alias(disagreement=DISAGREEMENT).order_by("-disagreement", "position", "id")
    else:
        queue = queue.order_by("position", "id")
    return queue.first()


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


# --- opening a document: one call ------------------------------------------------------------


def _when(value: Any) -> str | None:
    return None if value is None else _DATETIME.to_representation(value)


def document_opened(user: Any, pk: int) -> dict[str, Any] | None:
    """What the annotation page needs to open a document, read in four queries whatever the
    number of sentences or spans (None when the user may not see the document): the
    document as ``DocumentSerializer`` gives it, and ``annotations`` as
    ``/documents/ID/annotations/`` does (staff: everyone's; annotators: only their own, 0
    or 1). Reads only: opening a document creates nothing.

    Built as plain dicts (no serializer per span): the same JSON as those two endpoints.
    """
    if not getattr(user, "is_authenticated", False):
        return None
    # the visibility of ``documents_for`` (staff: every document of the project; annotators:
    # the assigned ones; superusers: all), decided here on one cheap row
    assigned = Assignment.objects.filter(document=OuterRef("pk"), annotator=user)
    role = Membership.objects.filter(project=OuterRef("project_id"), user=user)
    doc = (
        Document.objects.filter(pk=pk)
        .annotate(
            assigned_to_me=Exists(assigned),
            my_role=Subquery(role.values("role")[:1]),
            project_kind=F("project__kind"),
        )
        .values(
            "id",
            "project_id",
            "name",
            "external_id",
            "text",
            "assigned_to_me",
            "my_role",
            "project_kind",
        )
        .first()
    )
    if doc is None:
        return None
    superuser = bool(getattr(user, "is_superuser", False))
    # as role_in: a superuser without membership counts as admin (one with a membership
    # has that role: an annotator one sees only their own annotation, as in the
    # annotations endpoint)
    role = doc["my_role"] or ("admin" if superuser else None)
    staff = role in STAFF_ROLES
    if not (superuser or staff or (role is not None and doc["assigned_to_me"])):
        return None
    sentences = Sentence.objects.filter(document_id=pk).order_by("index")
    annotations = Annotation.objects.filter(document_id=pk)
    if not staff:
        annotations = annotations.filter(annotator=user)
    rows = list(
        annotations.order_by("annotator__username", "id").values_list(
            "id",
            "annotator_id",
            "annotator__username",
            "status",
            "revision",
            "updated_at",
            "submitted_at",
        )
    )
    spans: dict[int, list[dict[str, Any]]] = {row[0]: [] for row in rows}
    if rows:
        for annotation_id, span_id, client_id, start, end, labels, details, revision in (
            Span.objects.filter(annotation_id__in=list(spans))
            .order_by("start", "end", "id")
            .values_list(
                "annotation_id", "id", "client_id", "start", "end", "labels", "details", "revision"
            )
        ):
            spans[annotation_id].append(
                {
                    "id": span_id,
                    "client_id": None if client_id is None else str(client_id),
                    "start": start,
                    "end": end,
                    "labels": labels,
                    "details": details,
                    "revision": revision,
                }
            )
    return {
        "id": doc["id"],
        "project": doc["project_id"],
        "name": doc["name"],
        "external_id": doc["external_id"],
        "text": doc["text"],
        "sentences": [
            {"index": i, "start": s, "end": e}
            for i, s, e in sentences.values_list("index", "start", "end")
        ],
        "my_status": next(
            (row[3] for row in rows if row[1] == user.pk),
            "todo" if doc["assigned_to_me"] else None,
        ),
        "project_kind": doc["project_kind"],
        "annotations": [
            {
                "id": aid,
                "annotator": {"id": uid, "username": username},
                "status": status,
                "revision": revision,
                "updated_at": _when(updated_at),
                "submitted_at": _when(submitted_at),
                "spans": spans[aid],
            }
            for aid, uid, username, status, revision, updated_at, submitted_at in rows
        ],
    }
