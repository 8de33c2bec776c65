"""Reads for review: gold versions and their diffs, a document's adjudication state and the
adjudication queue (a document's history: ``document_history``).

Callers check access first (``annotations.selectors.access``: reviewers and admins of the
project only). A document's gold *revision* is the draft's ``GoldDocument.revision``; before
the draft exists it is the revision in the latest published version (0 for a document it does
not cover), which the draft's copy keeps, so a first save never conflicts with itself.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.db.models import Count
from django.db.models.functions import Length

from annotations import adjudication
from annotations.models import (
    ADJUDICATION,
    Annotation,
    Document,
    GoldDocument,
    GoldSpan,
    GoldStandard,
    Project,
    Span,
)
from annotations.orderings import adjudication_order
from annotations.selectors.taxonomy import taxonomy_tree


def span_json(span: GoldSpan | Span) -> dict[str, Any]:
    return {
        "id": span.pk,
        "start": span.start,
        "end": span.end,
        "labels": list(span.labels),
        "details": span.details or {},
        "proposed_by": getattr(span, "proposed_by", None) or {},
    }


def username_of(user: Any) -> str | None:
    return user.get_username() if user is not None else None


# --- versions ----------------------------------------------------------------------------------


def _span_map(gold: GoldStandard | None) -> dict[tuple[int, int, int], list[str]]:
    if gold is None:
        return {}
    return {
        (doc, start, end): labels
        for doc, start, end, labels in GoldSpan.objects.filter(gold_standard=gold).values_list(
            "document_id", "start", "end", "labels"
        )
    }


def _documents(gold: GoldStandard | None) -> set[int]:
    if gold is None:
        return set()
    return set(
        GoldDocument.objects.filter(gold_standard=gold).values_list("document_id", flat=True)
    )


def adjudication_draft(project: Project) -> GoldStandard | None:
    return GoldStandard.objects.filter(
        project=project, status=GoldStandard.Status.DRAFT, source=ADJUDICATION
    ).first()


def latest_published(project: Project) -> GoldStandard | None:
    return (
        project.gold_standards.filter(status=GoldStandard.Status.PUBLISHED)
        .order_by("-version")
        .first()
    )


def version_diff(previous: GoldStandard | None, gold: GoldStandard) -> dict[str, Any]:
    """What changed from ``previous`` to ``gold``, with document names and span texts."""
    raw = adjudication.diff(
        _span_map(previous) if previous else None,
        _span_map(gold),
        _documents(previous),
        _documents(gold),
    )
    keys = [entry["key"] for part in ("added", "removed", "changed") for entry in raw[part]]
    documents = Document.objects.in_bulk({key[0] for key in keys})

    def located(entry: dict[str, Any]) -> dict[str, Any]:
        doc_id, start, end = entry.pop("key")
        document = documents.get(doc_id)
        text = document.text[start:end].strip() if document else ""
        return {
            "document": doc_id,
            "document_name": document.name if document else str(doc_id),
            "start": start,
            "end": end,
            "text": text,
            **entry,
        }

    return {
        "previous": previous.version if previous else None,
        "summary": raw["summary"],
        **{
            part: [located(entry) for entry in raw[part]]
            for part in ("added", "removed", "changed")
        },
    }


def _counts(gold: GoldStandard) -> dict[str, int]:
    return {
        "documents": GoldDocument.objects.filter(gold_standard=gold).count(),
        "spans": GoldSpan.objects.filter(gold_standard=gold).count(),
    }


def gold_overview(project: Project) -> dict[str, Any]:
    draft = adjudication_draft(project)
    published = (
        project.gold_standards.filter(status=GoldStandard.Status.PUBLISHED)
        .select_related("published_by")
        .annotate(n_documents=Count("gold_documents", distinct=True))
        .annotate(n_spans=Count("spans", distinct=True))
        .order_by("-version")
    )
    return {
        "draft": None
        if draft is None
        else {
            "id": draft.pk,
            "version": draft.version,
            "based_on": draft.based_on.version if draft.based_on_id else None,
            **_counts(draft),
            "created_at": draft.created_at,
            "created_by": username_of(draft.created_by),
        },
        "versions": [
            {
                "id": gold.pk,
                "version": gold.version,
                "status": gold.status,
                "note": gold.note,
                "source": gold.source,
                "published_at": gold.published_at,
                "published_by": username_of(gold.published_by),
                "documents": gold.n_documents,
                "spans": gold.n_spans,
                "summary": (gold.diff or {}).get("summary")
                or {"added": gold.n_spans, "removed": 0, "changed": 0},
            }
            for gold in published
        ],
    }


def version_detail(gold: GoldStandard) -> dict[str, Any]:
    if gold.is_published and gold.diff:
        diff = gold.diff
    else:
        previous = (
            gold.project.gold_standards.filter(
                status=GoldStandard.Status.PUBLISHED, version__lt=gold.version
            )
            .order_by("-version")
            .first()
        )
        diff = version_diff(previous, gold)
    return {
        "id": gold.pk,
        "version": gold.version,
        "status": gold.status,
        "note": gold.note,
        "source": gold.source,
        "published_at": gold.published_at,
        "published_by": username_of(gold.published_by),
        "created_by": username_of(gold.created_by),
        "based_on": gold.based_on.version if gold.based_on_id else None,
        **_counts(gold),
        "diff": diff,
    }


# --- one document ------------------------------------------------------------------------------


def gold_state(document: Document) -> dict[str, Any]:
    """The document's gold in the draft (or what the draft will start from)."""
    draft = adjudication_draft(document.project)
    source = draft if draft is not None else latest_published(document.project)
    entry = (
        GoldDocument.objects.filter(gold_standard=source, document=document).first()
        if source
        else None
    )
    spans = (
        GoldSpan.objects.filter(gold_standard=source, document=document).order_by("start", "end")
        if entry
        else []
    )
    return {
        "revision": entry.revision if entry else 0,
        # as in the queue: a copy of a published version's document counts as adjudicated
        "adjudicated": bool(
            entry
            and (draft is None or draft.based_on_id is not None or entry.updated_by_id is not None)
        ),
        "spans": [span_json(span) for span in spans],
        "comments": entry.comments if entry else [],
    }


def adjudication_state(document: Document) -> dict[str, Any]:
    bounds = list(document.sentences.order_by("index").values_list("start", "end"))
    annotations = (
        Annotation.objects.filter(document=document)
        .select_related("annotator")
        .order_by("annotator__username")
    )
    spans_of: dict[int, list[Span]] = defaultdict(list)
    for span in Span.objects.filter(annotation__document=document).order_by("start", "end", "id"):
        spans_of[span.annotation_id].append(span)
    submitted = [a for a in annotations if a.status == Annotation.Status.SUBMITTED]
    draft = adjudication_draft(document.project)
    previous = latest_published(document.project)
    return {
        "document": {
            "id": document.pk,
            "name": document.name,
            "project": document.project_id,
            "text": document.text,
            "sentences": [list(b) for b in bounds],
        },
        "annotators": [
            {
                "id": a.annotator_id,
                "username": a.annotator.get_username(),
                "status": a.status,
                "spans": [span_json(span) for span in spans_of[a.pk]],
            }
            for a in annotations
        ],
        "draft": {"id": draft.pk, "version": draft.version} if draft else None,
        "gold": gold_state(document),
        "proposals": adjudication.proposals(
            bounds,
            [
                adjudication.AnnotatorSpan(a.annotator_id, s.start, s.end, tuple(s.labels))
                for a in submitted
                for s in spans_of[a.pk]
            ],
            [a.annotator_id for a in submitted],
        ),
        "previous": None
        if previous is None
        else {
            "version": previous.version,
            "spans": [
                span_json(span)
                for span in GoldSpan.objects.filter(gold_standard=previous, document=document)
            ],
        },
        "labels": taxonomy_tree(document.project.taxonomy),
    }


# --- the queue ---------------------------------------------------------------------------------


def _adjudicated_ids(project: Project) -> set[int]:
    """The documents the draft (else the latest published version) holds a decision for: a
    copy of a published version's document counts as decided, an untouched first draft's
    entry does not."""
    draft = adjudication_draft(project)
    base = draft or latest_published(project)
    if base is None:
        return set()
    entries = GoldDocument.objects.filter(gold_standard=base)
    if draft is not None and draft.based_on_id is None:
        entries = entries.exclude(updated_by=None)
    return set(entries.values_list("document_id", flat=True))


def _queue_rows(
    project: Project,
) -> tuple[str, dict[int, float | None], set[int], list[dict[str, Any]]]:
    """The agreement figures' state, the documents' disagreement, the decided documents and
    the queue's rows (documents with a submitted annotation) in the queue's order: documents
    still to decide first, by highest disagreement (``orderings``; full agreement last, not
    compared yet after that), then the longest text, then position; decided documents after
    all of them, in the same order."""
    status, keys = adjudication_order(project)
    decided = _adjudicated_ids(project)
    rows = (
        Annotation.objects.filter(document__project=project, status=Annotation.Status.SUBMITTED)
        .values("document_id", "document__name", "document__position")
        .annotate(n=Count("id"), length=Length("document__text"))
    )
    ordered = sorted(
        rows,
        key=lambda r: (
            r["document_id"] in decided,
            keys.get(r["document_id"]) is None,
            -(keys.get(r["document_id"]) or 0.0),
            -(r["length"] or 0),
            r["document__position"],
            r["document_id"],
        ),
    )
    return status, keys, decided, ordered


def adjudication_queue(project: Project, *, page: int, page_size: int) -> dict[str, Any]:
    """A page of the documents to adjudicate, in the queue's order (``_queue_rows``)."""
    status, keys, decided, ordered = _queue_rows(project)
    start = (page - 1) * page_size
    return {
        "count": len(ordered),
        "undecided": sum(1 for r in ordered if r["document_id"] not in decided),
        "agreement": {"status": status},
        "results": [
            {
                "document": {
                    "id": r["document_id"],
                    "name": r["document__name"],
                    "position": r["document__position"],
                    "length": r["length"] or 0,
                },
                "annotators": r["n"],
                "sort_key": keys.get(r["document_id"]),
                "adjudicated": r["document_id"] in decided,
            }
            for r in ordered[start : start + page_size]
        ],
    }


def adjudication_neighbours(document: Document) -> dict[str, Any]:
    """Where the document sits in its project's adjudication queue (the order of
    ``adjudication_queue``): ``position`` from 1 of ``total`` (None when the document is not
    in the queue: no submitted annotation), ``previous`` / ``next`` as {id, name}, or None at
    an end; from a document outside the queue, ``next`` is the queue's first."""
    _, _, _, ordered = _queue_rows(document.project)
    ids = [r["document_id"] for r in ordered]

    def brief(i: int) -> dict[str, Any] | None:
        if not 0 <= i < len(ordered):
            return None
        return {"id": ordered[i]["document_id"], "name": ordered[i]["document__name"]}

    at = ids.index(document.pk) if document.pk in ids else None
    return {
        "queue": "adjudication",
        "position": None if at is None else at + 1,
        "total": len(ordered),
        "previous": None if at is None else brief(at - 1),
        "next": brief(0 if at is None else at + 1),
    }
