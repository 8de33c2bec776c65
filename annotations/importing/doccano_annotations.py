"""Importing one annotator's doccano export as submitted annotations (the rules shared with
the other imports are in ``importing.datasets``' docstring)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from annotations.importing.batches import (
    DocumentMatcher,
    ImportReport,
    add_batch_documents,
    count_spans,
    lock_project,
)
from annotations.importing.formats.doccano import DoccanoRecord, read_doccano
from annotations.importing.formats.jsonl import Source, source_name
from annotations.importing.label_spans import SpanDraft, group_spans
from annotations.models import Annotation, Assignment, Document, Membership, Project, Span
from annotations.selectors.taxonomy import label_resolver
from annotations.services.documents import BATCH_SIZE, NewDocument, batched, next_position


@dataclass
class _DoccanoItem:
    record: DoccanoRecord
    spans: list[SpanDraft]


def _record_doccano_ids(batch: list[_DoccanoItem], existing: dict[str, int], username: str) -> None:
    """Keep each record's doccano id in the metadata of the document it reuses."""
    reused = Document.objects.in_bulk(existing.values())
    now = timezone.now()
    for item in batch:
        document = reused.get(existing.get(item.record.text, -1))
        if document is not None:
            document.metadata = _doccano_ids(document.metadata, username, item.record.id)
            document.updated_at = now
    Document.objects.bulk_update(reused.values(), ["metadata", "updated_at"], batch_size=BATCH_SIZE)


def _replace_annotations(
    batch: list[_DoccanoItem],
    *,
    annotator: AbstractBaseUser,
    existing: dict[str, int],
    document_ids: dict[str, int],
    submitted_at: datetime,
    report: ImportReport,
) -> None:
    """Delete the annotator's annotations on the batch's reused documents, create one
    submitted annotation per record with its spans, and assign the documents."""
    _, deleted = Annotation.objects.filter(
        annotator=annotator, document_id__in=existing.values()
    ).delete()
    report.annotations_replaced += deleted.get(Annotation._meta.label, 0)
    annotations = Annotation.objects.bulk_create(
        [
            Annotation(
                document_id=document_ids[item.record.text],
                annotator=annotator,
                status=Annotation.Status.SUBMITTED,
                submitted_at=submitted_at,
                comments=item.record.comments,
            )
            for item in batch
        ],
        batch_size=BATCH_SIZE,
    )
    Span.objects.bulk_create(
        [
            Span(annotation=annotation, start=span.start, end=span.end, labels=span.labels)
            for annotation, item in zip(annotations, batch, strict=True)
            for span in item.spans
        ],
        batch_size=BATCH_SIZE,
    )
    Assignment.objects.bulk_create(
        [Assignment(document_id=pk, annotator=annotator) for pk in document_ids.values()],
        batch_size=BATCH_SIZE,
        ignore_conflicts=True,
    )
    report.annotations_created += len(annotations)


@transaction.atomic
def import_doccano_annotations(
    *,
    path: Source,
    project: Project,
    annotator: AbstractBaseUser,
    name: str | None = None,
    defer_search_index: bool = False,
) -> ImportReport:
    """Import one annotator's doccano export as submitted annotations, one per text.

    A text not yet in the project becomes a document (its sentences split). The record's
    ``id`` is kept in the document's ``metadata["doccano_ids"][<username>]`` and
    ``Comments`` in the annotation's ``comments``. The annotator becomes an annotator member
    of the project if not a member yet, and the documents are assigned to them.

    Re-importing replaces: the annotator's existing annotations on the file's documents are
    deleted and recreated from the file (counted in ``annotations_replaced``); other
    annotators' work is untouched.
    """
    name = source_name(path, name)
    report = ImportReport(format="doccano", file=name)
    lock_project(project)
    Membership.objects.get_or_create(
        project=project, user=annotator, defaults={"role": Membership.Role.ANNOTATOR}
    )
    resolver = label_resolver(project.taxonomy)
    matcher = DocumentMatcher(project, name)
    position = next_position(project)
    now = timezone.now()

    def item(record: DoccanoRecord) -> _DoccanoItem:
        spans = group_spans(
            record.labels,
            resolver,
            file_name=name,
            line=record.line,
            field_name="label",
            to_clean=lambda: report.to_clean_lines.append(record.line),
        )
        matcher.check_repeat(record.line, record.text)
        return _DoccanoItem(record, spans)

    for batch in batched(item(record) for record in read_doccano(path, name=name)):
        position += _write_batch(
            batch,
            project=project,
            annotator=annotator,
            matcher=matcher,
            first_position=position,
            source=Path(name).name,
            submitted_at=now,
            report=report,
            defer_search_index=defer_search_index,
        )
    return report


def _write_batch(
    batch: list[_DoccanoItem],
    *,
    project: Project,
    annotator: AbstractBaseUser,
    matcher: DocumentMatcher,
    first_position: int,
    source: str,
    submitted_at: datetime,
    report: ImportReport,
    defer_search_index: bool,
) -> int:
    """One batch: its new documents, the doccano ids of the reused ones, the annotator's
    annotations replaced; returns how many documents it created."""
    username = annotator.get_username()
    existing = matcher.existing(item.record.text for item in batch)
    created, document_ids = add_batch_documents(
        project=project,
        texts=[
            NewDocument(
                text=item.record.text,
                source=source,
                metadata=_doccano_ids({}, username, item.record.id),
            )
            for item in batch
            if item.record.text not in existing
        ],
        existing=existing,
        first_position=first_position,
        batch_size=len(batch),
        report=report,
        defer_search_index=defer_search_index,
    )
    _record_doccano_ids(batch, existing, username)
    _replace_annotations(
        batch,
        annotator=annotator,
        existing=existing,
        document_ids=document_ids,
        submitted_at=submitted_at,
        report=report,
    )
    for item in batch:
        count_spans(report, item.spans)
    return len(created)


def _doccano_ids(metadata: dict[str, Any], username: str, record_id: int | str | None) -> dict:
    if record_id is None:
        return metadata
    ids = {**metadata.get("doccano_ids", {}), username: record_id}
    return {**metadata, "doccano_ids": ids}
