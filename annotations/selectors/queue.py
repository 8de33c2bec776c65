"""A user's queue of a project's documents, in the order they work through it, and a
document's neighbours in it (the document page's previous / next).

- The documents assigned to the user (as ``access.documents_for`` lets them see them), in
  the annotators' queue order: project order, or, when the project's suggestion settings
  say so, the documents where the suggesting runs disagree most first (``orderings``);
  submitted ones included. ``next_document`` is its first one not submitted by the user.
- A document not assigned to the user (a reviewer or admin reading it) sits in the
  documents the user sees of its project, in project order: the staff's document list.
- A reviewer or admin reading one annotator's work (``annotator``) walks the documents of
  the project where that annotator has an annotation, in project order.

Neighbours are found by the order's key (keyset), not by listing the queue.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Exists, F, OuterRef, Q, QuerySet

from annotations.models import Annotation, Assignment, Document, Project
from annotations.orderings import disagreement_first
from annotations.selectors.access import documents_for, is_staff_of
from annotations.selectors.documents import DISAGREEMENT

SUBMITTED = Annotation.Status.SUBMITTED
NEIGHBOUR_FIELDS = ("id", "name", "external_id")


def _assigned(user: Any) -> Exists:
    return Exists(Assignment.objects.filter(document=OuterRef("pk"), annotator=user))


def assigned_queue(user: Any, project: Project) -> QuerySet[Document]:
    """The documents of the project assigned to the user, in queue order."""
    queue = documents_for(user, project).filter(_assigned(user))
    if disagreement_first(project):
        return queue.alias(disagreement=DISAGREEMENT).order_by("-disagreement", "position", "id")
    return queue.order_by("position", "id")


def next_document(user: Any, project: Project) -> Document | None:
    """The first document of the user's queue not yet submitted by them."""
    submitted = Annotation.objects.filter(document=OuterRef("pk"), annotator=user, status=SUBMITTED)
    return assigned_queue(user, project).exclude(Exists(submitted)).first()


@dataclass(frozen=True)
class Neighbours:
    """Where a document sits in the user's queue: ``queue`` is "assigned" (their assigned
    documents), "project" (the documents they see of the project) or "annotator" (those of
    them one annotator has an annotation on); ``position`` counts
    from 1 of ``total``; ``previous`` / ``next`` as {id, name, external_id}, or None at an
    end."""

    queue: str
    position: int
    total: int
    previous: dict[str, Any] | None
    next: dict[str, Any] | None


def _after(keys: tuple[str, ...], values: tuple[Any, ...], descending: tuple[bool, ...]) -> Q:
    """Rows after ``values`` in the order by ``keys`` (each ascending unless ``descending``):
    the first key past its value, or equal and the rest after."""
    key, value, desc = keys[0], values[0], descending[0]
    past = Q(**{f"{key}__{'lt' if desc else 'gt'}": value})
    if len(keys) == 1:
        return past
    return past | (Q(**{key: value}) & _after(keys[1:], values[1:], descending[1:]))


def document_neighbours(user: Any, pk: int, *, annotator: int | None = None) -> Neighbours | None:
    """The previous and next document of the user's queue around document ``pk`` (see the
    module); ``annotator``: a staff member reading that annotator's work (ignored for the
    others, and when that annotator has no annotation on the document). None when the user
    may not see the document."""
    row = documents_for(user).filter(pk=pk).values("project_id").first()
    if row is None:
        return None
    project = Project.objects.get(pk=row["project_id"])
    if (
        annotator is not None
        and is_staff_of(user, project)
        and Annotation.objects.filter(document_id=pk, annotator_id=annotator).exists()
    ):
        kind = "annotator"
        theirs = Annotation.objects.filter(document=OuterRef("pk"), annotator_id=annotator)
        queue = documents_for(user, project).filter(Exists(theirs)).order_by("position", "id")
        disagreement = False
    elif Assignment.objects.filter(document_id=pk, annotator=user).exists():
        kind, queue = "assigned", assigned_queue(user, project)
        disagreement = disagreement_first(project)
    else:
        kind, queue = "project", documents_for(user, project).order_by("position", "id")
        disagreement = False
    keys: tuple[str, ...] = ("position", "id")
    descending: tuple[bool, ...] = (False, False)
    if disagreement:
        queue = queue.annotate(disagreement_key=DISAGREEMENT)
        keys, descending = ("disagreement_key", *keys), (True, *descending)
    values = tuple(queue.filter(pk=pk).values_list(*keys).get())
    later = _after(keys, values, descending)
    earlier = ~later & ~Q(pk=pk)
    reverse = [F(k).asc() if d else F(k).desc() for k, d in zip(keys, descending, strict=True)]
    following = queue.filter(later).values(*NEIGHBOUR_FIELDS).first()
    preceding = queue.filter(earlier).order_by(*reverse).values(*NEIGHBOUR_FIELDS).first()
    return Neighbours(
        queue=kind,
        position=queue.filter(earlier).count() + 1,
        total=queue.count(),
        previous=preceding,
        next=following,
    )
