"""Writes on annotations and spans.

Concurrency: concurrent edits of one annotation never lose each other's changes. Every write
bumps ``annotation.revision`` (and ``span.revision`` for the span it touches), and a caller
passes the revision it last saw: a stale one raises ``ConflictError`` carrying the current
object (the API's 409).

- Status changes (start, submit, reopen) are one transaction each that first locks the
  annotation row (``select_for_update``); they keep their annotation history rows.
- Span writes (create, change, delete) are the annotation API's hot path, so their
  statements are counted (``tests/test_write_query_counts.py``): one read without a lock
  (``span_sql``: who may write the annotation, its status and revision, the project, the
  text's length, whether start and end are sentence boundaries, a span with the request's
  ``client_id``, the span to change), the checks, then one write that applies only if the
  annotation's revision is still the one read: on PostgreSQL a single statement (bump the
  revision, write the span, record the span's history row: who changed what), elsewhere one
  transaction. When another write got in between, the service reads and checks again
  holding the annotation's row lock, so it always ends in one outcome: written, or refused
  with the reason as of now (a 409 when the span moved on). Labels are checked against a
  per-process cache of the taxonomy (``label_index``).

Validation errors are ``django.core.exceptions.ValidationError`` with a ``{field: [message]}``
dict whose messages say what is wrong and where (the API returns them as a 400 body).
"""

from __future__ import annotations

import bisect
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.utils import timezone

from annotations.labels import NO_FALLACY, NO_FALLACY_ALIASES, normalise_label
from annotations.models import (
    Annotation,
    Assignment,
    Document,
    Project,
    Span,
    Taxonomy,
    TaxonomyNode,
)
from annotations.selectors.access import STAFF_ROLES, role_in
from annotations.services.span_sql import (
    change_span,
    insert_span,
    is_offset,
    lock_annotation,
    read_for_span_write,
    remove_span,
)


class ConflictError(Exception):
    """The client's revision is stale; ``current`` is the object as it is now."""

    def __init__(self, message: str, *, current: Annotation | Span) -> None:
        super().__init__(message)
        self.current = current


class NotYourAnnotation(PermissionDenied):
    """Someone other than the annotator tried to write (the API answers 404)."""


# --- validation helpers -----------------------------------------------------------------


@dataclass(frozen=True)
class LabelIndex:
    """The level-2 types of a taxonomy, for resolving labels case-insensitively."""

    taxonomy: str
    canonical: dict[str, str]  # normalised name or alias -> canonical name
    slots: dict[str, list[str]]  # canonical name -> slot names
    categories: frozenset[str]  # normalised level-0/1 names (to explain a wrong pick)


# Per-process cache of label indexes, keyed by (taxonomy id, created_at) so that a reused id
# (SQLite after a rollback) never finds another taxonomy's index. An edit of a node through
# save()/delete() (the Django admin) clears this process's cache at once; other processes
# see it after LABEL_INDEX_TTL seconds.
LABEL_INDEX_TTL = 30.0
_label_indexes: dict[tuple[int, Any], tuple[float, LabelIndex]] = {}


def label_index(taxonomy: Taxonomy) -> LabelIndex:
    """The taxonomy's label index (cached per process, see ``LABEL_INDEX_TTL``)."""
    key = (taxonomy.pk, taxonomy.created_at)
    now = time.monotonic()
    hit = _label_indexes.get(key)
    if hit is not None and hit[0] > now:
        return hit[1]
    index = _build_label_index(taxonomy)
    if len(_label_indexes) > 256:
        _label_indexes.clear()
    _label_indexes[key] = (now + LABEL_INDEX_TTL, index)
    return index


def forget_label_indexes(**_: Any) -> None:
    _label_indexes.clear()


for _signal in (post_save, post_delete):
    for _model in (Taxonomy, TaxonomyNode):
        _signal.connect(forget_label_indexes, sender=_model, dispatch_uid=f"labels-{_model}")


def _build_label_index(taxonomy: Taxonomy) -> LabelIndex:
    canonical = {normalise_label(alias): NO_FALLACY for alias in NO_FALLACY_ALIASES}
    slots: dict[str, list[str]] = {}
    categories: set[str] = set()
    nodes = TaxonomyNode.objects.filter(taxonomy=taxonomy).values_list(
        "level", "name", "aliases", "slots"
    )
    for level, name, aliases, node_slots in nodes:
        if level != TaxonomyNode.Level.TYPE:
            categories.add(normalise_label(name))
            continue
        slots[name] = [str(s) for s in node_slots or []]
        for alias in aliases or []:
            canonical.setdefault(normalise_label(str(alias)), name)
        canonical[normalise_label(name)] = name  # names win over aliases
    return LabelIndex(str(taxonomy), canonical, slots, frozenset(categories))


def _fmt_positions(values: list[int], near: int, width: int = 3) -> str:
    """A window of sorted positions around ``near``: "0, 45, 97, …"."""
    i = bisect.bisect_left(values, near)
    lo, hi = max(0, i - width), min(len(values), i + width)
    parts = [str(v) for v in values[lo:hi]]
    if lo > 0:
        parts.insert(0, "…")
    if hi < len(values):
        parts.append("…")
    return ", ".join(parts)


def _validate_range(
    document: Document,
    start: Any,
    end: Any,
    *,
    length: int | None = None,
    boundaries: tuple[bool, bool] | None = None,
) -> dict[str, list[str]]:
    """Errors of a span range; ``length`` (of the text) and ``boundaries`` (whether start
    and end are sentence boundaries), when the caller read them already, save queries."""
    errors: dict[str, list[str]] = {}
    for field, value in (("start", start), ("end", end)):
        if not is_offset(value):
            errors[field] = [f"{value!r} is not an integer character offset"]
    if errors:
        return errors
    if length is None:
        length = len(document.text)
    if not 0 <= start < length:
        errors["start"] = [f"{start} is outside the text (0 ≤ start < {length})"]
    if not 0 < end <= length:
        errors["end"] = [f"{end} is outside the text (0 < end ≤ {length})"]
    if not errors and start >= end:
        errors["end"] = [f"{end} must be greater than start ({start})"]
    if errors or boundaries == (True, True):
        return errors
    bounds = list(document.sentences.order_by().values_list("start", "end"))
    if not bounds:
        return {"start": [f"document {document.pk} has no sentences to annotate"]}
    starts = sorted(s for s, _ in bounds)
    ends = sorted(e for _, e in bounds)
    if start not in set(starts):
        errors["start"] = [
            f"{start} is not the start of a sentence (sentences start at "
            f"{_fmt_positions(starts, start)})"
        ]
    if end not in set(ends):
        errors["end"] = [
            f"{end} is not the end of a sentence (sentences end at {_fmt_positions(ends, end)})"
        ]
    return errors


def _canonical_labels(index: LabelIndex, labels: Any) -> tuple[list[str], list[str]]:
    """(sorted canonical labels, error messages)."""
    if not isinstance(labels, list | tuple) or not all(isinstance(x, str) for x in labels):
        return [], ["must be a list of label names"]
    if not labels:
        return [], ["at least one label is required"]
    errors: list[str] = []
    seen: dict[str, str] = {}
    for raw in labels:
        key = normalise_label(raw)
        name = index.canonical.get(key)
        if name is None:
            hint = " (it is a category; pick one of its types)" if key in index.categories else ""
            errors.append(f'"{raw}" is not a fallacy type of taxonomy {index.taxonomy}{hint}')
        elif name in seen:
            errors.append(f'"{raw}" duplicates "{seen[name]}"')
        else:
            seen[name] = raw
    if not errors and list(seen) == [NO_FALLACY]:
        errors.append(
            f'"{NO_FALLACY}" alone is not a span; add the fallacy it is an alternative to'
        )
    return sorted(seen), errors


def _canonical_details(
    index: LabelIndex, labels: list[str], details: Any
) -> tuple[dict[str, Any], list[str]]:
    """Details keyed by canonical labels of the span, normalised to {slots, explanation}."""
    if details is None:
        return {}, []
    if not isinstance(details, dict):
        return {}, ["must be an object mapping a label to {slots, explanation}"]
    errors: list[str] = []
    out: dict[str, Any] = {}
    by_key = {normalise_label(label): label for label in labels if label != NO_FALLACY}
    for raw_label, entry in details.items():
        label = by_key.get(normalise_label(str(raw_label)))
        if label is None:
            why = (
                f'"{NO_FALLACY}" takes no details'
                if index.canonical.get(normalise_label(str(raw_label))) == NO_FALLACY
                else f"it is not a label of this span (labels: {', '.join(labels)})"
            )
            errors.append(f'"{raw_label}": {why}')
            continue
        if not isinstance(entry, dict):
            errors.append(f"{label}: must be an object with slots and explanation")
            continue
        unknown = sorted(set(entry) - {"slots", "explanation"})
        if unknown:
            errors.append(
                f"{label}: unknown keys {', '.join(unknown)} (allowed: slots, explanation)"
            )
        slots_in = entry.get("slots") or {}
        explanation = entry.get("explanation", "")
        allowed = index.slots.get(label, [])
        slot_names = {s.lower(): s for s in allowed}
        slots_out: dict[str, str] = {}
        if not isinstance(slots_in, dict):
            errors.append(f"{label}.slots: must be an object mapping a slot to a string")
            slots_in = {}
        for slot, value in slots_in.items():
            name = slot_names.get(str(slot).strip().lower())
            if name is None:
                errors.append(
                    f'{label}.slots: "{slot}" is not a slot of "{label}" '
                    f"(slots: {', '.join(allowed) or 'none'})"
                )
            elif not isinstance(value, str):
                errors.append(f"{label}.slots.{name}: must be a string")
            else:
                slots_out[name] = value
        if not isinstance(explanation, str):
            errors.append(f"{label}.explanation: must be a string")
            explanation = ""
        out[label] = {"slots": slots_out, "explanation": explanation}
    return out, errors


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
    errors = _validate_range(
        document,
        start,
        end,
        length=getattr(annotation, "text_length", None),
        boundaries=getattr(annotation, "boundaries", None),
    )
    index = label_index(document.project.taxonomy)
    canon, label_errors = _canonical_labels(index, labels)
    if label_errors:
        errors["labels"] = label_errors
    canon_details, detail_errors = _canonical_details(index, canon, details)
    if detail_errors and not label_errors:
        errors["details"] = detail_errors
    if errors:
        raise ValidationError({k: [f"{where}{m}" for m in v] for k, v in errors.items()})
    return canon, canon_details


def _lock(annotation: Annotation) -> Annotation:
    """Re-read the annotation under a row lock (writers of one annotation queue here)."""
    return (
        Annotation.objects.select_for_update(of=("self",))
        .select_related("document__project__taxonomy")
        .get(pk=annotation.pk)
    )


def _check_writable(annotation: Annotation, by: Any | None) -> None:
    if by is not None and by.pk != annotation.annotator_id:
        raise NotYourAnnotation("only the annotator writes this annotation")
    if annotation.status == Annotation.Status.SUBMITTED:
        raise ValidationError({"annotation": ["submitted annotations are read-only"]})
    _check_active(annotation.document.project)


def _check_active(project: Project) -> None:
    if project.archived_at is not None:
        raise ValidationError(
            {"annotation": [f"project '{project.name}' is archived: its annotations are read-only"]}
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
    _check_active(document.project)
    if not Assignment.objects.filter(document=document, annotator=annotator).exists():
        raise PermissionDenied(f"document {document.pk} is not assigned to {annotator}")
    if role_in(annotator, document.project_id) is None:
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
        _check_writable(seen, by)
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
    _check_writable(seen, by)
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


@transaction.atomic
def submit_annotation(
    *, annotation: Annotation, expected_revision: int | None = None, by: Any | None = None
) -> Annotation:
    """Mark the annotation submitted (read-only until reopened). Submitting twice is a no-op."""
    locked = _lock(annotation)
    if by is not None and by.pk != locked.annotator_id:
        raise NotYourAnnotation("only the annotator submits this annotation")
    if expected_revision is not None and locked.revision != expected_revision:
        raise ConflictError(
            f"annotation {locked.pk} is at revision {locked.revision}, not {expected_revision}",
            current=locked,
        )
    if locked.status == Annotation.Status.SUBMITTED:
        return locked
    _check_active(locked.document.project)
    locked.status = Annotation.Status.SUBMITTED
    locked.submitted_at = timezone.now()
    locked.revision += 1
    locked.save(update_fields=["status", "submitted_at", "revision", "updated_at"])
    return locked


@transaction.atomic
def reopen_annotation(*, annotation: Annotation, by: Any) -> Annotation:
    """Make a submitted annotation editable again (reviewers/admins of the project only)."""
    locked = _lock(annotation)
    if role_in(by, locked.document.project_id) not in STAFF_ROLES:
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
    "NotYourAnnotation",
    "create_or_get_span",
    "create_span",
    "delete_span",
    "reopen_annotation",
    "start_annotation",
    "submit_annotation",
    "update_span",
]
