"""Reads behind the project pages: the document list, document statuses and progress.

The project-level status of a document has ONE definition (``status_expression``), used by
the document list, its filters, the progress endpoint and the projects' ``progress``:

- ``done``: at least ``project.annotators_per_document`` submitted annotations;
- ``in_progress``: not done, and at least one annotation exists (an annotation exists only
  after its first saved change: opening a document creates nothing);
- ``todo``: assigned to someone, no annotation yet;
- ``unassigned``: no assignment and no annotation.

An annotator's own status of a document (``my_status_expression``) is ``submitted`` /
``in_progress`` from their annotation, else ``todo`` when it is assigned to them, else null.

The status is computed from counters the database keeps on each document (assignments,
annotations, submitted: ``annotations.models``, migration 0007) and the totals from the
project's counters, so nothing scans the project's documents: the list is paginated first
(the ``(project, position)`` index gives the default order; the unfiltered count is the
project's ``document_count`` or the member's ``assigned_count``), and the page's rows with
their per-annotator detail are read by ``document_page`` (one statement).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import connection
from django.db.models import (
    Case,
    CharField,
    Exists,
    F,
    Func,
    IntegerField,
    Max,
    OuterRef,
    Q,
    QuerySet,
    Value,
    When,
)
from django.db.models.functions import Coalesce, Length

from annotations.models import (
    Annotation,
    AnnotatorCounter,
    Assignment,
    Document,
    Membership,
    Project,
)
from annotations.orderings import disagreement_first
from annotations.selectors.access import STAFF_ROLES, annotator_documents

SUBMITTED = Annotation.Status.SUBMITTED
IN_PROGRESS = Annotation.Status.IN_PROGRESS
PROJECT_STATUSES = ("unassigned", "todo", "in_progress", "done")
MY_STATUSES = ("todo", "in_progress", "submitted")
# "disagreement": documents where the runs turned into suggestions disagree most first (a
# score stored per document by evaluation.suggestions.services; none counts as 0)
ORDERINGS = (
    "position",
    "-position",
    "length",
    "-length",
    "updated",
    "-updated",
    "disagreement",
    "-disagreement",
)


# --- the one definition of a document's status -------------------------------------------


def _status_tests(required: Any) -> tuple[Q, Q, Q]:
    """The three facts the status is made of, on the document's counters (kept by the
    database, ``annotations.models``): done (enough submissions), started (an annotation
    exists), assigned (an assignment exists)."""
    need = F("project__annotators_per_document") if required is None else required
    return (
        Q(submitted_count__gte=need),
        Q(annotation_count__gt=0),
        Q(assignment_count__gt=0),
    )


def status_conditions(
    *, within: dict[str, Any] | None = None, required: Any = None
) -> dict[str, Q]:
    """The project-level statuses as mutually exclusive conditions on documents, for
    filters (``required``: the project's ``annotators_per_document``, or None to read each
    document's project's; ``within`` is accepted for compatibility and not needed)."""
    done, started, assigned = _status_tests(required)
    return {
        "done": done,
        "in_progress": ~done & started,
        "todo": ~started & assigned,
        "unassigned": ~started & ~assigned,
    }


def status_expression(*, within: dict[str, Any] | None = None, required: Any = None) -> Case:
    """The project-level status of a document as one value: the first that holds of done,
    in_progress (started), todo (assigned), else unassigned; the same tests as
    ``status_conditions``."""
    done, started, assigned = _status_tests(required)
    return Case(
        When(done, then=Value("done")),
        When(started, then=Value("in_progress")),
        When(assigned, then=Value("todo")),
        default=Value("unassigned"),
        output_field=CharField(),
    )


def status_of(assigned: int, annotated: int, submitted: int, required: int) -> str:
    """``status_expression`` in Python, on a document's counters."""
    if submitted >= required:
        return "done"
    if annotated:
        return "in_progress"
    return "todo" if assigned else "unassigned"


def my_status_conditions(user: Any) -> dict[str, Q]:
    """A user's own status of a document (submitted, in_progress, todo) as conditions."""
    mine = Annotation.objects.filter(document=OuterRef("pk"), annotator=user)
    assigned = Assignment.objects.filter(document=OuterRef("pk"), annotator=user)
    return {
        "submitted": Q(Exists(mine.filter(status=SUBMITTED))),
        "in_progress": Q(Exists(mine.filter(status=IN_PROGRESS))),
        "todo": ~Q(Exists(mine)) & Q(Exists(assigned)),
    }


def my_status_expression(user: Any) -> Case:
    conditions = my_status_conditions(user)
    return Case(
        *(When(condition, then=Value(name)) for name, condition in conditions.items()),
        default=None,
        output_field=CharField(),
    )


# --- the document list ----------------------------------------------------------------------


# a document's disagreement score (evaluation.models.DocumentDisagreement; no row: 0)
DISAGREEMENT = Coalesce(F("suggestion_disagreement__score"), 0, output_field=IntegerField())


def default_ordering(project: Project, *, staff: bool) -> str:
    """The document list's order when none is asked: annotators get the project's queue
    order (documents where the suggesting runs disagree first, when the project's
    suggestion settings say so), everyone else the project order. Reads the project's
    ``queue_ordering`` annotation when it has one (no query)."""
    if staff:
        return "position"
    if hasattr(project, "queue_ordering"):
        disagreement = project.queue_ordering == "disagreement"
    else:
        disagreement = disagreement_first(project)
    return "disagreement" if disagreement else "position"


def text_search(q: str) -> Q:
    """Documents whose text or name holds ``q`` (any case). Written once for the documents
    in the trigram indexes and once for those an import has not yet added to them
    (``services.search_index``), so that on PostgreSQL each part has an index: the partial
    trigram indexes, and the partial one of the few pending documents."""
    text, name = Q(text__icontains=q), Q(name__icontains=q)
    indexed, pending = Q(in_search_index=True), Q(in_search_index=False)
    return (indexed & text) | (indexed & name) | (pending & (text | name))


@dataclass(frozen=True)
class DocumentQuery:
    """Search, filters and order of the document list (validated by the API)."""

    q: str = ""
    status: str | None = None
    annotator: int | None = None  # staff: assigned to this user
    fewer_than: int | None = None  # staff: fewer than this many submitted annotations
    ordering: str = "position"


def document_list(
    user: Any, project: Project, query: DocumentQuery, *, staff: bool
) -> QuerySet[Document]:
    """The ids of the user's documents of the project, searched, filtered and ordered (page
    it, then ``document_rows`` gives the page's figures). Annotators: their assigned
    documents only; ``status`` is their own then, the project-level one for staff.

    The length order is by size in bytes (``octet_length``: read from the stored value's
    header, where counting characters would decompress every text), which is the character
    order for ASCII text.
    """
    qs = Document.objects.filter(project=project).only("id")
    if not staff:
        qs = qs.filter(annotator_documents(user))
    if query.q:
        qs = qs.filter(text_search(query.q))
    if staff:
        required = project.annotators_per_document
        if query.status:
            qs = qs.filter(status_conditions(required=required)[query.status])
        if query.annotator is not None:
            assigned = Assignment.objects.filter(
                document=OuterRef("pk"), annotator_id=query.annotator
            )
            qs = qs.filter(Exists(assigned))
        if query.fewer_than is not None:
            qs = qs.filter(submitted_count__lt=query.fewer_than)
    elif query.status:
        qs = qs.filter(my_status_conditions(user)[query.status])
    key = query.ordering.lstrip("-")
    descending = query.ordering.startswith("-")
    if key == "position":
        return qs.order_by(*(["-position", "-id"] if descending else ["position", "id"]))
    if key == "disagreement":  # most disagreement first; "-disagreement": least first
        qs = qs.alias(disagreement=DISAGREEMENT)
        column = F("disagreement").asc() if descending else F("disagreement").desc()
        return qs.order_by(column, "position", "id")
    if key == "length":
        # SQLite before 3.43 has no octet_length; length() reads its header-less text anyway
        size = (
            Length("text")
            if connection.vendor == "sqlite"
            else Func(F("text"), function="octet_length", output_field=IntegerField())
        )
        qs = qs.alias(size=size)
        column = F("size").desc() if descending else F("size").asc()
    else:  # updated: the latest annotation change; never-touched documents last either way
        mine = None if staff else Q(annotations__annotator=user)
        qs = qs.alias(last=Max("annotations__updated_at", filter=mine))
        column = F("last").desc(nulls_last=True) if descending else F("last").asc(nulls_last=True)
    return qs.order_by(column, "position", "id")


# --- progress -------------------------------------------------------------------------------


@dataclass
class AnnotatorProgress:
    id: int
    username: str
    assigned: int
    in_progress: int
    submitted: int
    last_active: datetime | None


def project_totals(project: Project) -> dict[str, int]:
    """{documents, done, in_progress, todo, unassigned, assignments, submitted} of the
    project by the one definition, from its counters (kept by the database: no scan)."""
    done, in_progress, todo = project.done_count, project.in_progress_count, project.todo_count
    return {
        "documents": project.document_count,
        "done": done,
        "in_progress": in_progress,
        "todo": todo,
        "unassigned": project.document_count - done - in_progress - todo,
        "assignments": project.assignment_count,
        "submitted": project.submitted_count,
    }


def _annotator_rows(project: Project, user: Any | None = None) -> list[AnnotatorProgress]:
    """Per person: every annotator member and anyone with assignments or annotations in the
    project, members or not (just ``user`` when given), from the counters the database
    keeps per (project, person) (``AnnotatorCounter``): no scan of the project's rows."""
    counters = AnnotatorCounter.objects.filter(project=project).filter(
        Q(assigned_count__gt=0) | Q(in_progress_count__gt=0) | Q(submitted_count__gt=0)
    )
    if user is not None:
        counters = counters.filter(annotator=user)
    rows = {
        uid: AnnotatorProgress(uid, name, assigned, in_progress, submitted, last)
        for uid, name, assigned, in_progress, submitted, last in counters.values_list(
            "annotator_id",
            "annotator__username",
            "assigned_count",
            "in_progress_count",
            "submitted_count",
            "last_active",
        )
    }
    if user is not None:
        rows.setdefault(user.pk, AnnotatorProgress(user.pk, user.username, 0, 0, 0, None))
    else:
        members = Membership.objects.filter(project=project, role=Membership.Role.ANNOTATOR)
        for uid, name in members.values_list("user_id", "user__username"):
            rows.setdefault(uid, AnnotatorProgress(uid, name, 0, 0, 0, None))
    return sorted(rows.values(), key=lambda r: r.username)


def _own_totals(user: Any, project: Project) -> dict[str, int]:
    """An annotator's own queue by their status of each assigned document, from their
    counters (``AnnotatorCounter``)."""
    mine = AnnotatorCounter.objects.filter(project=project, annotator=user).values_list(
        "assigned_count", "done_count", "started_count"
    )
    assigned, done, started = mine.first() or (0, 0, 0)
    return {
        "documents": assigned,
        "done": done,
        "in_progress": started,
        "todo": assigned - done - started,
        "unassigned": 0,
        "assignments": assigned,
        "submitted": done,
    }


def project_progress(user: Any, project: Project, role: str | None) -> dict[str, Any]:
    """The progress page: totals and the per-annotator table.

    Staff: the project's totals (statuses as defined above; ``assignments`` and
    ``submitted`` count rows) and a row per annotator. Annotators: their own queue
    (``documents`` = assigned to them, ``done`` = submitted by them; ``unassigned`` = 0)
    and their own row. ``role``: the role the user acts with (``access.effective_role``).
    """
    if role in STAFF_ROLES:
        totals = project_totals(Project.objects.get(pk=project.pk))  # fresh counters
        rows = _annotator_rows(project)
    else:
        totals = _own_totals(user, project)
        rows = _annotator_rows(project, user)
    return {
        "role": role,
        "annotators_per_document": project.annotators_per_document,
        "totals": totals,
        "annotators": [vars(r) for r in rows],
    }
