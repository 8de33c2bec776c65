"""Writes on annotations and spans.

Concurrency: concurrent edits of one annotation never lose each other's changes. Every write
bumps ``annotation.revision`` (and ``span.revision`` for the span it touches), and a caller
passes the revision it last saw: a stale one raises ``ConflictError`` carrying the current
object (the API's 409).

- Status changes (start, submit, reopen) are one transaction each that first locks the
  annotation row (``select_for_update``); they keep their annotation history rows.
- Span writes (create, change, delete) are the annotation API's hot path, so their
  statements are counted (``tests/annotations/api/test_write_query_counts.py``): one read without a
  lock (``span_sql``: who may write the annotation, its status and revision, the project, the
  text's length, whether start and end are sentence boundaries, a span with the request's
  ``client_id``, the span to change), the checks, then one write that applies only if the
  annotation's revision is still the one read: on PostgreSQL a single statement (bump the
  revision, write the span, record the span's history row: who changed what), elsewhere one
  transaction. When another write got in between, the service reads and checks again
  holding the annotation's row lock, so it always ends in one outcome: written, or refused
  with the reason as of now (a 409 when the span moved on). Labels are checked against a
  per-process cache of the taxonomy (``label_index``); what a valid span is, is stated in
``annotations.spans``.

Validation errors are ``django.core.exceptions.ValidationError`` with a ``{field: [message]}``
dict whose messages say what is wrong and where (the API returns them as a 400 body).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone

from annotations.justification import SpanSlots, describe, empty_slots
from annotations.labels import normalise_label
from annotations.models import (
    Annotation,
    Assignment,
    Document,
    Span,
)
from annotations.selectors.policy import may_annotate, may_review
from annotations.services.span_sql import (
    change_span,
    insert_span,
    lock_annotation,
    read_for_span_write,
    remove_span,
)
from annotations.spans import (
    NotYourAnnotation,
    canonical_details,
    canonical_labels,
    check_active,
    check_writable,
    label_index,
    range_errors,
)


class ConflictError(Exception):
    """The client's revision is stale; ``current`` is the object as it is now."""

    def __init__(self, message: str, *, current: Annotation | Span) -> None:
        super().__init__(message)
        self.current = current


def _validated_fields(
    annotation: Annotation,
    *,
    start: int,
    end: int,
    labels: Iterable[str],
    details: dict[str, Any] | None,
    where: str = "",
) -> tuple[list[str], dict[str, Any]]:
    """Check a span's fields; return (labels, details) canonicalised or raise."""
    document = annotation.document
    errors = range_errors(
        document,
        start,
        end,
        length=getattr(annotation, "text_length", None),
        boundaries=getattr(annotation, "boundaries", None),
    )
    index = label_index(document.project.taxonomy)
    canon, label_errors = canonical_labels(index, labels)
    if label_errors:
        errors["labels"] = label_errors
    canon_details, detail_errors = canonical_details(index, canon, details)
    if detail_errors and not label_errors:
        errors["details"] = detail_errors
    if errors:
        raise ValidationError({k: [f"{where}{m}" for m in v] for k, v in errors.items()})
    return canon, canon_details


def locked_annotation(annotation: Annotation) -> Annotation:
    """Re-read the annotation under a row lock (writers of one annotation queue here)."""
    return (
        Annotation.objects.select_for_update(of=("self",))
        .select_related("document__project__taxonomy")
        .get(pk=annotation.pk)
    )


# --- services ---------------------------------------------------------------------------


@transaction.atomic
def start_annotation(*, document: Document, annotator: Any) -> Annotation:
    """The annotator's annotation of the document, created if needed.

    Only a member of the project with the document in their queue (an Assignment) may start one.
    """
    existing = Annotation.objects.filter(document=document, annotator=annotator).first()
    if existing is not None:
        return existing
    check_active(document.project)
    if not Assignment.objects.filter(document=document, annotator=annotator).exists():
        raise PermissionDenied(f"document {document.pk} is not assigned to {annotator}")
    if not may_annotate(annotator, document.project_id):
        raise PermissionDenied(f"{annotator} is not a member of project {document.project}")
    annotation, _ = Annotation.objects.get_or_create(document=document, annotator=annotator)
    return annotation


T = TypeVar("T")


def _optimistically(attempt: Callable[[], tuple[T | None, Annotation]]) -> T:
    """Run a span write's ``attempt`` (read, check, write if the revision read is current);
    when another write got in between, once more holding the annotation's row lock."""
    outcome, seen = attempt()
    if outcome is not None:
        return outcome
    with transaction.atomic():
        lock_annotation(seen.pk)
        outcome, _ = attempt()
    if outcome is None:  # cannot happen: nobody else writes the locked annotation
        raise RuntimeError(f"annotation {seen.pk} changed while locked")
    return outcome


def _check_annotator(seen: Annotation, by: Any | None) -> None:
    if by is not None and by.pk != seen.annotator_id:
        raise NotYourAnnotation("only the annotator writes this annotation")


def create_or_get_span(
    *,
    annotation: Annotation | int,
    start: int,
    end: int,
    labels: Iterable[str],
    details: dict[str, Any] | None = None,
    client_id: uuid.UUID | str | None = None,
    by: Any | None = None,
) -> tuple[Span, bool]:
    """Create a span; with a ``client_id`` already used in this annotation, return that span.

    Returns ``(span, created)``. ``annotation`` may be an id; with ``by``, only one that
    ``by`` may see (``Annotation.DoesNotExist`` otherwise).
    """

    def attempt() -> tuple[tuple[Span, bool] | None, Annotation]:
        seen = read_for_span_write(
            annotation=annotation, by=by, start=start, end=end, client_id=client_id
        )
        _check_annotator(seen, by)
        if client_id is not None and seen.client_span is not None:
            return (Span.objects.get(pk=seen.client_span), False), seen
        check_writable(seen, by)
        canon, canon_details = _validated_fields(
            seen, start=start, end=end, labels=labels, details=details
        )
        fields = {"start": start, "end": end, "labels": canon, "details": canon_details}
        span = insert_span(seen, fields, client_id, timezone.now())
        if span is None:
            return None, seen
        if isinstance(annotation, Annotation):
            annotation.revision = seen.revision + 1
        return (span, True), seen

    return _optimistically(attempt)


def create_span(
    *,
    annotation: Annotation | int,
    start: int,
    end: int,
    labels: Iterable[str],
    details: dict[str, Any] | None = None,
    client_id: uuid.UUID | str | None = None,
    by: Any | None = None,
) -> Span:
    """Create a span (idempotent on ``client_id``)."""
    span, _ = create_or_get_span(
        annotation=annotation,
        start=start,
        end=end,
        labels=labels,
        details=details,
        client_id=client_id,
        by=by,
    )
    return span


def _read_span(
    span: Span | int, expected_revision: int, by: Any | None, **edges: Any
) -> Annotation:
    """The span's annotation as read for a write (``read_for_span_write``), its ``span`` at
    ``expected_revision`` (else ``ConflictError`` with the span as it is)."""
    span_id = span if isinstance(span, int) else span.pk
    seen = read_for_span_write(span_id=span_id, by=by, **edges)
    _check_annotator(seen, by)
    current = seen.span
    if current.revision != expected_revision:
        raise ConflictError(
            f"span {span_id} is at revision {current.revision}, not {expected_revision}; "
            "reload it and apply your change again",
            current=current,
        )
    check_writable(seen, by)
    return seen


def update_span(
    *,
    span: Span | int,
    expected_revision: int,
    by: Any | None = None,
    start: int | None = None,
    end: int | None = None,
    labels: Iterable[str] | None = None,
    details: dict[str, Any] | None = None,
) -> Span:
    """Change some of start, end, labels, details.

    When labels change and no details are given, details of labels that were removed are dropped.
    ``span`` may be an id; with ``by``, only one that ``by`` may see (``DoesNotExist``).
    """
    given_labels = None if labels is None else list(labels)  # read once: may be an iterator

    def attempt() -> tuple[Span | None, Annotation]:
        seen = _read_span(span, expected_revision, by, start=start, end=end)
        current = seen.span
        new_labels = current.labels if given_labels is None else given_labels
        kept = details
        if kept is None:
            index = label_index(seen.document.project.taxonomy)
            keep = {index.canonical.get(normalise_label(str(label))) for label in new_labels}
            kept = {k: v for k, v in current.details.items() if k in keep}
        fields = {
            "start": current.start if start is None else start,
            "end": current.end if end is None else end,
        }
        canon, canon_details = _validated_fields(
            seen, **fields, labels=new_labels, details=kept, where=f"span {current.pk}: "
        )
        fields.update(labels=canon, details=canon_details)
        return change_span(seen, current.pk, fields, timezone.now()), seen

    return _optimistically(attempt)


def delete_span(*, span: Span | int, expected_revision: int, by: Any | None = None) -> None:
    def attempt() -> tuple[Span | None, Annotation]:
        seen = _read_span(span, expected_revision, by)
        return remove_span(seen, seen.span.pk, timezone.now()), seen

    _optimistically(attempt)


def _refuse_empty_slots(annotation: Annotation) -> None:
    """A project whose templates are required refuses a span with an empty slot, naming
    each span (``ValidationError`` on ``spans``)."""
    project = annotation.document.project
    if project.kind != "spans" or project.justification_templates != "required":
        return
    rows = Span.objects.filter(annotation=annotation).values_list(
        "id", "start", "end", "labels", "details"
    )
    empty = empty_slots([SpanSlots(*row) for row in rows], label_index(project.taxonomy).slots)
    if empty:
        bounds = list(annotation.document.sentences.values_list("start", "end").order_by("index"))
        raise ValidationError(
            {"spans": [f"{describe(e, bounds)} (templates are required)" for e in empty]}
        )


@transaction.atomic
def submit_annotation(
    *, annotation: Annotation, expected_revision: int | None = None, by: Any | None = None
) -> Annotation:
    """Mark the annotation submitted (read-only until reopened). Submitting twice is a no-op.
    A project whose justification templates are required refuses spans with empty slots."""
    locked = locked_annotation(annotation)
    if by is not None and by.pk != locked.annotator_id:
        raise NotYourAnnotation("only the annotator submits this annotation")
    if expected_revision is not None and locked.revision != expected_revision:
        raise ConflictError(
            f"annotation {locked.pk} is at revision {locked.revision}, not {expected_revision}",
            current=locked,
        )
    if locked.status == Annotation.Status.SUBMITTED:
        return locked
    check_active(locked.document.project)
    _refuse_empty_slots(locked)
    locked.status = Annotation.Status.SUBMITTED
    locked.submitted_at = timezone.now()
    locked.revision += 1
    locked.save(update_fields=["status", "submitted_at", "revision", "updated_at"])
    return locked


@transaction.atomic
def reopen_annotation(*, annotation: Annotation, by: Any) -> Annotation:
    """Make a submitted annotation editable again (reviewers/admins of the project only)."""
    locked = locked_annotation(annotation)
    if not may_review(by, locked.document.project_id):
        raise PermissionDenied("only a reviewer or admin of the project can reopen an annotation")
    if locked.status == Annotation.Status.IN_PROGRESS:
        return locked
    locked.status = Annotation.Status.IN_PROGRESS
    locked.submitted_at = None
    locked.revision += 1
    locked.save(update_fields=["status", "submitted_at", "revision", "updated_at"])
    return locked


__all__ = [
    "ConflictError",
    "create_or_get_span",
    "create_span",
    "delete_span",
    "locked_annotation",
    "reopen_annotation",
    "start_annotation",
    "submit_annotation",
    "update_span",
]
