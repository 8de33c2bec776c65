"""Importing datasets: MAFALDA gold standards, doccano annotations (``doccano_annotations``,
re-exported here), plain texts; the report and batch writing they share are ``batches``.

Every import is all or nothing: records are validated while the file streams, written in
batches (``create_documents``: ``BATCH_SIZE`` documents and their sentences, by ``COPY`` on
PostgreSQL, multi-row ``INSERT`` elsewhere) inside one ``transaction.atomic()``, and the first
bad record raises ``DatasetFormatError`` (file, line, field), rolling back every batch
already written. Files are read one line at a time, never loaded whole. Into a project that
had no documents, no batch looks for texts or ids already there (repeats within the file
are errors of their own), so a large import is one query per batch and table.
``defer_search_index=True`` writes the documents outside the search's trigram indexes
(PostgreSQL); the caller runs ``services.search_index.index_pending`` once it committed.

Shared rules for labelled records:
- triples with identical ``(start, end)`` form one span whose labels are the alternatives,
  resolved to canonical names with the project's taxonomy (sorted, without repeats;
  ``"nothing"`` becomes ``NO_FALLACY``); an unknown label is an error naming its field;
- ``"to clean"`` triples (regions MAFALDA's authors excluded) are skipped and reported;
- a span whose only label is ``NO_FALLACY`` is an error (it would annotate nothing);
- a text that already is a document of the project (identical text) is reused.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from annotations.importing.batches import (
    DocumentMatcher,
    ImportReport,
    add_batch_documents,
    count_spans,
    lock_project,
)
from annotations.importing.doccano_annotations import import_doccano_annotations
from annotations.importing.formats import DatasetFormatError
from annotations.importing.formats.jsonl import Source, source_name
from annotations.importing.formats.mafalda import MafaldaRecord, read_mafalda
from annotations.importing.formats.plaintext import TextRecord, read_texts
from annotations.importing.label_spans import SpanDraft, group_spans
from annotations.importing.sentences import Range, SentenceError, sentences_from_units
from annotations.importing.split_ahead import split_ahead
from annotations.labels import LabelResolver
from annotations.models import Document, GoldDocument, GoldSpan, GoldStandard, Project
from annotations.selectors.taxonomy import label_resolver
from annotations.services.documents import (
    BATCH_SIZE,
    NewDocument,
    batched,
    create_documents,
    next_position,
)

__all__ = ["ImportReport", "import_doccano_annotations", "import_mafalda_gold", "import_texts"]


# --- MAFALDA gold standard -------------------------------------------------------------------


@dataclass
class _GoldItem:
    record: MafaldaRecord
    spans: list[SpanDraft]
    sentences: list[Range] | None


def _gold_item(
    record: MafaldaRecord, resolver: LabelResolver, name: str, report: ImportReport
) -> _GoldItem:
    spans = group_spans(
        record.labels,
        resolver,
        file_name=name,
        line=record.line,
        field_name="labels",
        to_clean=lambda: report.to_clean_lines.append(record.line),
    )
    sentences = None
    if record.sentence_units is not None:
        try:
            alignment = sentences_from_units(record.text, record.sentence_units)
        except SentenceError as error:
            raise DatasetFormatError(
                name, record.line, "sentences_with_labels", str(error)
            ) from None
        sentences = alignment.ranges
        report.sentence_units += alignment.units
        report.sentence_units_dropped += [f"{record.line}:{i}" for i in alignment.dropped]
        report.sentences_added += alignment.added
    return _GoldItem(record, spans, sentences)


def _next_gold_standard(
    project: Project, name: str, note: str, created_by: AbstractBaseUser | None
) -> GoldStandard:
    """The project's next gold standard version, a draft until its import completes."""
    last_version = project.gold_standards.aggregate(last=Max("version"))["last"] or 0
    return GoldStandard.objects.create(
        project=project,
        version=last_version + 1,
        source=Path(name).name,
        note=note,
        created_by=created_by,
    )


def _write_gold_batch(
    gold: GoldStandard, batch: list[_GoldItem], document_ids: dict[str, int]
) -> None:
    """The batch's gold documents and gold spans."""
    GoldDocument.objects.bulk_create(
        [
            GoldDocument(
                gold_standard=gold,
                document_id=document_ids[item.record.text],
                comments=item.record.comments,
            )
            for item in batch
        ],
        batch_size=BATCH_SIZE,
    )
    GoldSpan.objects.bulk_create(
        [
            GoldSpan(
                gold_standard=gold,
                document_id=document_ids[item.record.text],
                start=span.start,
                end=span.end,
                labels=span.labels,
            )
            for item in batch
            for span in item.spans
        ],
        batch_size=BATCH_SIZE,
    )


@transaction.atomic
def import_mafalda_gold(
    *,
    path: Source,
    project: Project,
    created_by: AbstractBaseUser | None = None,
    note: str = "",
    name: str | None = None,
    defer_search_index: bool = False,
) -> ImportReport:
    """Import a MAFALDA-format file as the project's next published gold standard version.

    One gold document per text (its ``comments`` kept); a text not yet in the project
    becomes a document (``external_id`` ``mafalda-gold-v<version>-<line>``) whose sentences
    are the ``sentences_with_labels`` units (split when absent). ``name`` is the file name
    used in errors when ``path`` is an open file.
    """
    name = source_name(path, name)
    report = ImportReport(format="mafalda", file=name)
    lock_project(project)
    resolver = label_resolver(project.taxonomy)
    gold = _next_gold_standard(project, name, note, created_by)
    matcher = DocumentMatcher(project, name)
    position = next_position(project)
    items = (_gold_item(record, resolver, name, report) for record in read_mafalda(path, name=name))
    for batch in batched(items):
        for item in batch:
            matcher.check_repeat(item.record.line, item.record.text)
        existing = matcher.existing(item.record.text for item in batch)
        created, document_ids = add_batch_documents(
            project=project,
            texts=[
                NewDocument(
                    text=item.record.text,
                    external_id=f"mafalda-gold-v{gold.version}-{item.record.line}",
                    source=Path(name).name,
                    sentences=item.sentences,
                )
                for item in batch
                if item.record.text not in existing
            ],
            existing=existing,
            first_position=position,
            batch_size=len(batch),
            report=report,
            defer_search_index=defer_search_index,
        )
        position += len(created)
        _write_gold_batch(gold, batch, document_ids)
        for item in batch:
            count_spans(report, item.spans)
    if not report.texts:  # a blank file: no empty published version
        raise DatasetFormatError(name, 1, None, "the file holds no texts")
    gold.status = GoldStandard.Status.PUBLISHED
    gold.published_at = timezone.now()
    gold.save(update_fields=["status", "published_at"])
    report.gold_version = gold.version
    return report


# --- plain texts -----------------------------------------------------------------------------


@transaction.atomic
def import_texts(
    *,
    path: Source,
    project: Project,
    name: str | None = None,
    records: Iterable[TextRecord] | None = None,
    defer_search_index: bool = False,
) -> ImportReport:
    """Add unannotated texts: ``.txt`` files hold one text per blank-line-separated block,
    ``.jsonl`` files objects with ``text`` and optional ``id`` (kept as ``external_id``),
    ``source`` and ``metadata``. Texts already in the project (identical) are reused, that
    is, not added again; an ``id`` already taken by another document is an error.
    ``records``, when given, are read instead of ``path`` (another reader's, e.g. CSV)."""
    name = source_name(path, name)
    report = ImportReport(format="text", file=name)
    lock_project(project)
    matcher = DocumentMatcher(project, name)
    position = next_position(project)
    if records is None:
        records = read_texts(path, name=name)
    default_source = Path(name).name
    batches = batched(_checked_texts(records, matcher, name))
    for batch, ranges in split_ahead(batches, lambda record: record.text):
        split = {record.text: r for record, r in zip(batch, ranges, strict=True)}
        existing = matcher.existing(record.text for record in batch)
        new_records = [record for record in batch if record.text not in existing]
        if matcher.had_documents:
            _check_external_ids(project, name, new_records)
        created, sentence_count = create_documents(
            project=project,
            texts=[
                NewDocument(
                    text=record.text,
                    external_id=record.external_id,
                    source=record.source or default_source,
                    metadata=record.metadata,
                )
                for record in new_records
            ],
            first_position=position,
            split=split,
            defer_search_index=defer_search_index,
        )
        position += len(created)
        report.texts += len(batch)
        report.documents_created += len(created)
        report.documents_reused += len(batch) - len(created)
        report.sentences += sentence_count
    return report


def _checked_texts(
    records: Iterable[TextRecord], matcher: DocumentMatcher, name: str
) -> Iterator[TextRecord]:
    """The records, each checked against the earlier ones: a repeated text or id is an error."""
    id_lines: dict[str, int] = {}
    for record in records:
        matcher.check_repeat(record.line, record.text)
        if record.external_id:
            if record.external_id in id_lines:
                raise DatasetFormatError(
                    name, record.line, "id", f"same id as line {id_lines[record.external_id]}"
                )
            id_lines[record.external_id] = record.line
        yield record


def _check_external_ids(project: Project, name: str, records: list[TextRecord]) -> None:
    wanted = {record.external_id: record for record in records if record.external_id}
    taken = Document.objects.filter(project=project, external_id__in=wanted).values_list(
        "external_id", flat=True
    )
    for external_id in taken:
        raise DatasetFormatError(
            name,
            wanted[external_id].line,
            "id",
            f"id {external_id!r} is already the id of another document of the project",
        )
