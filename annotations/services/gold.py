"""Writes on gold standards: the adjudication draft, a document's gold spans, publishing.

Concurrency contract:
- The project's adjudication draft (``GoldStandard`` with status draft and source
  ``ADJUDICATION``, unique per project in the database) is created under a lock on the
  project row, as a copy of the latest published version, so concurrent first saves
  create one draft.
- ``save_document_gold`` is one transaction that locks the draft row, so saves of one
  project's draft serialise; optimistic concurrency on top: the caller passes the revision
  of the document's gold it last saw (0: not in the draft yet) and a stale one raises
  ``GoldConflict`` carrying the current state. Every save bumps ``GoldDocument.revision``.
- ``publish_draft`` locks the project row, then the draft row: it waits for a save in
  progress, so its diff sees that save; a save that waited on it finds the draft published
  and moves on to a new draft (a copy of the version just published, revisions kept). The
  draft is renumbered after the latest published version when an import published one
  meanwhile; the diff against the previous published version is stored and the draft turns
  immutable (model guards and database triggers).

Validation errors are ``ValidationError({"spans[i].field": [message]})`` naming the span.
Writes go through ``save()``/``delete()`` one row at a time, so django-simple-history records
who changed what; the copy of a published version into a new draft is recorded too
(``bulk_create_with_history``), so a later edit of a copied span shows what it was.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from simple_history.utils import bulk_create_with_history

from annotations.adjudication import snap
from annotations.models import (
    ADJUDICATION,
    Document,
    GoldDocument,
    GoldSpan,
    GoldStandard,
    Project,
)
from annotations.selectors.gold import adjudication_draft, latest_published, version_diff
from annotations.spans import canonical_details, canonical_labels, is_offset, label_index


class GoldConflict(Exception):
    """The reviewer's revision of a document's gold is stale; ``current`` is the state now."""

    def __init__(self, message: str, *, document: Document, draft: GoldStandard) -> None:
        super().__init__(message)
        self.document = document
        self.draft = draft


class NothingToPublish(Exception):
    """The project has no adjudication draft (or an empty one)."""


@transaction.atomic
def get_or_create_draft(*, project: Project, by: Any | None) -> GoldStandard:
    """The adjudication draft, created as a copy of the latest published version if needed."""
    draft = adjudication_draft(project)
    if draft is not None:
        return draft
    Project.objects.select_for_update().get(pk=project.pk)
    draft = adjudication_draft(project)
    if draft is not None:
        return draft
    base = latest_published(project)
    last = project.gold_standards.aggregate(last=Max("version"))["last"] or 0
    draft = GoldStandard.objects.create(
        project=project, version=last + 1, source=ADJUDICATION, created_by=by, based_on=base
    )
    if base is not None:
        # the copy keeps each document's revision: a page loaded before the publication
        # saves on the new draft without a conflict (its content is the same)
        # recorded in the history, so a later edit of a copied span shows what it was
        bulk_create_with_history(
            [
                GoldDocument(
                    gold_standard=draft, document_id=doc_id, comments=comments, revision=revision
                )
                for doc_id, comments, revision in base.gold_documents.values_list(
                    "document_id", "comments", "revision"
                )
            ],
            GoldDocument,
            default_user=by if getattr(by, "is_authenticated", False) else None,
        )
        bulk_create_with_history(
            [
                GoldSpan(
                    gold_standard=draft,
                    document_id=span.document_id,
                    start=span.start,
                    end=span.end,
                    labels=span.labels,
                    details=span.details,
                    proposed_by=span.proposed_by,
                )
                for span in base.spans.all().order_by("id")
            ],
            GoldSpan,
            default_user=by if getattr(by, "is_authenticated", False) else None,
        )
    return draft


def _validated_spans(document: Document, spans: Any) -> list[dict[str, Any]]:
    if not isinstance(spans, list):
        raise ValidationError({"spans": ["must be a list of spans"]})
    index = label_index(document.project.taxonomy)
    bounds = list(document.sentences.order_by("index").values_list("start", "end"))
    length = len(document.text)
    errors: dict[str, list[str]] = {}
    out: list[dict[str, Any]] = []
    seen: dict[tuple[int, int], int] = {}
    for i, raw in enumerate(spans):
        where = f"spans[{i}]"
        if not isinstance(raw, dict):
            errors[where] = ["must be an object with start, end and labels"]
            continue
        start, end = raw.get("start"), raw.get("end")
        if not all(is_offset(v) for v in (start, end)):
            errors[f"{where}.start"] = ["start and end must be integer character offsets"]
            continue
        if not 0 <= start < end <= length:
            errors[f"{where}.end"] = [f"[{start}, {end}) is not a range of the text (0..{length})"]
            continue
        start, end = snap(bounds, start, end)
        labels, label_errors = canonical_labels(index, raw.get("labels"))
        if label_errors:
            errors[f"{where}.labels"] = label_errors
            continue
        details, detail_errors = canonical_details(index, labels, raw.get("details"))
        if detail_errors:
            errors[f"{where}.details"] = detail_errors
            continue
        proposed_by = _proposers(raw.get("proposed_by"), labels)
        if proposed_by is None:
            errors[f"{where}.proposed_by"] = ["must map a label to a list of user ids"]
            continue
        if (start, end) in seen:
            errors[f"{where}.start"] = [
                f"span {seen[(start, end)]} has the same sentences: put the labels together as "
                "alternatives of one span"
            ]
            continue
        seen[(start, end)] = i
        out.append(
            {
                "start": start,
                "end": end,
                "labels": labels,
                "details": details,
                "proposed_by": proposed_by,
            }
        )
    if errors:
        raise ValidationError(errors)
    return out


def _proposers(proposed: Any, labels: list[str]) -> dict[str, list[int]] | None:
    """A span's ``proposed_by`` keyed by its labels as ``labels`` spell them (sorted user ids,
    other labels dropped); None when it does not map labels to lists of user ids."""
    proposed = proposed or {}
    if not isinstance(proposed, dict) or not all(
        isinstance(ids, list) and all(isinstance(x, int) for x in ids) for ids in proposed.values()
    ):
        return None
    canonical = {name.lower(): name for name in labels}
    return {
        canonical[str(label).lower()]: sorted(set(ids))
        for label, ids in proposed.items()
        if str(label).lower() in canonical
    }


def _locked_draft(*, project: Project, by: Any | None) -> GoldStandard:
    """The draft, row-locked; a new one when a publication took it before the lock."""
    while True:
        draft = get_or_create_draft(project=project, by=by)
        draft = GoldStandard.objects.select_for_update().get(pk=draft.pk)
        if draft.status == GoldStandard.Status.DRAFT:
            return draft


@transaction.atomic
def save_document_gold(
    *,
    document: Document,
    revision: int,
    spans: Any,
    comments: list[Any] | None = None,
    by: Any | None,
) -> GoldDocument:
    """Replace the document's spans in the project's draft (see the module docstring)."""
    if document.project.archived_at is not None:
        raise ValidationError(
            {"project": [f"project {document.project.name!r} is archived: its gold is read-only"]}
        )
    validated = _validated_spans(document, spans)
    draft = _locked_draft(project=document.project, by=by)
    entry = GoldDocument.objects.filter(gold_standard=draft, document=document).first()
    current = entry.revision if entry else 0
    if revision != current:
        raise GoldConflict(
            f"document {document.pk} was saved by someone else (revision {current}, "
            f"you had {revision})",
            document=document,
            draft=draft,
        )
    if entry is None:
        entry = GoldDocument(gold_standard=draft, document=document, revision=1, updated_by=by)
    else:
        entry.revision += 1
        entry.updated_by = by
    if comments is not None:
        entry.comments = comments
    entry.save()
    existing = {
        (s.start, s.end): s for s in GoldSpan.objects.filter(gold_standard=draft, document=document)
    }
    wanted = {(s["start"], s["end"]): s for s in validated}
    for key, span in existing.items():
        if key not in wanted:
            span.delete()
    for key, fields in wanted.items():
        span = existing.get(key)
        if span is None:
            GoldSpan(gold_standard=draft, document=document, **fields).save()
        elif any(getattr(span, name) != value for name, value in fields.items()):
            for name, value in fields.items():
                setattr(span, name, value)
            span.save()
    return entry


@transaction.atomic
def publish_draft(*, project: Project, note: str, by: Any | None) -> GoldStandard:
    """The draft becomes the next published version, with who, when, the note and the diff."""
    locked = Project.objects.select_for_update().get(pk=project.pk)
    if locked.archived_at is not None:
        raise NothingToPublish(f"project {project.name!r} is archived: its gold is read-only")
    draft = adjudication_draft(project)
    if draft is not None:  # wait for a save in progress: the diff must see its spans
        draft = GoldStandard.objects.select_for_update().get(pk=draft.pk)
    if draft is None:
        raise NothingToPublish(
            f"project {project.name!r} has no gold draft: adjudicate a document first"
        )
    if not draft.gold_documents.exists():
        raise NothingToPublish("the draft covers no document yet")
    previous = latest_published(project)
    # an import may have published a version after this draft was numbered
    draft.version = max(draft.version, (previous.version if previous else 0) + 1)
    draft.diff = version_diff(previous, draft)
    draft.note = note
    draft.status = GoldStandard.Status.PUBLISHED
    draft.published_at = timezone.now()
    draft.published_by = by if getattr(by, "is_authenticated", False) else None
    draft.save()
    return draft
