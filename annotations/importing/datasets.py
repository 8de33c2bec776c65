"""Importing datasets: MAFALDA gold standards, doccano annotations, plain texts.

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

import hashlib
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from annotations.importing.formats import DatasetFormatError
from annotations.importing.formats.doccano import DoccanoRecord, read_doccano
from annotations.importing.formats.jsonl import Source, source_name
from annotations.importing.formats.mafalda import MafaldaRecord, read_mafalda
from annotations.importing.formats.plaintext import TextRecord, read_texts
from annotations.importing.label_spans import SpanDraft, group_spans
from annotations.importing.sentences import Range, SentenceError, sentences_from_units
from annotations.importing.split_ahead import split_ahead
from annotations.labels import NO_FALLACY, LabelResolver
from annotations.models import (
    Annotation,
    Assignment,
    Document,
    GoldDocument,
    GoldSpan,
    GoldStandard,
    Membership,
    Project,
    Span,
)
from annotations.selectors.taxonomy import label_resolver
from annotations.services.documents import (
    BATCH_SIZE,
    NewDocument,
    batched,
    create_documents,
    next_position,
)


@dataclass
class ImportReport:
    """What an import did; ``summary()`` is the few lines the command prints."""

    format: str
    file: str
    texts: int = 0
    documents_created: int = 0
    documents_reused: int = 0
    sentences: int = 0  # sentences stored for the documents created
    sentence_units: int = 0  # units read from sentences_with_labels
    sentence_units_dropped: list[str] = field(default_factory=list)  # "line:unit index"
    sentences_added: int = 0  # for text no unit covered (see sentences_from_units)
    spans: int = 0
    span_labels: int = 0  # alternatives over all spans
    to_clean_lines: list[int] = field(default_factory=list)  # one entry per skipped triple
    texts_without_spans: int = 0
    texts_without_required_fallacy: int = 0  # no span, or every span allows NO_FALLACY
    gold_version: int | None = None
    annotations_created: int = 0
    annotations_replaced: int = 0

    @property
    def skipped_to_clean(self) -> int:
        return len(self.to_clean_lines)

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "skipped_to_clean": self.skipped_to_clean}

    def summary(self) -> str:
        lines = [
            f"Imported {self.texts} texts from {Path(self.file).name} ({self.format}):",
            f"  documents: {self.documents_created} created, {self.documents_reused} reused"
            f" ({self.sentences} sentences stored)",
        ]
        if self.sentence_units:
            lines.append(
                f"  sentence units: {self.sentence_units} read,"
                f" {len(self.sentence_units_dropped)} dropped as repeats"
                f" {self.sentence_units_dropped or ''}, {self.sentences_added} sentences added"
                " for uncovered text"
            )
        if self.format != "text":
            lines.append(
                f"  spans: {self.spans} ({self.span_labels} labels);"
                f" texts without spans: {self.texts_without_spans};"
                f" without a required fallacy: {self.texts_without_required_fallacy}"
            )
            lines.append(
                f"  skipped 'to clean' triples: {self.skipped_to_clean}"
                + (
                    f" (lines {', '.join(map(str, self.to_clean_lines))})"
                    if self.to_clean_lines
                    else ""
                )
            )
        if self.gold_version is not None:
            lines.append(f"  published gold standard version {self.gold_version}")
        if self.annotations_created:
            lines.append(
                f"  annotations: {self.annotations_created} submitted"
                f" ({self.annotations_replaced} replaced)"
            )
        return "\n".join(lines)


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()


class _DocumentMatcher:
    """Finds a project's documents by identical text and catches texts repeated in the file
    (one query per batch, none when the project had no documents when the import began:
    the file's own repeats are errors; only digests of the file's texts are kept). Made
    once the project is locked."""

    def __init__(self, project: Project, name: str) -> None:
        self.project = project
        self.name = name
        self.seen: dict[bytes, int] = {}
        self.had_documents = Document.objects.filter(project=project).exists()

    def check_repeat(self, line: int, text: str) -> None:
        digest = _digest(text)
        if digest in self.seen:
            raise DatasetFormatError(
                self.name, line, "text", f"same text as line {self.seen[digest]}"
            )
        self.seen[digest] = line

    def existing(self, texts: Iterable[str]) -> dict[str, int]:
        """{text: id of the oldest document with it} for texts already in the project."""
        if not self.had_documents:
            return {}
        rows = (
            Document.objects.filter(project=self.project, text__in=set(texts))
            .order_by("-pk")
            .values_list("text", "pk")
        )
        return dict(rows)


def _lock_project(project: Project) -> None:
    """Serialise imports into one project (positions, gold versions)."""
    Project.objects.select_for_update().filter(pk=project.pk).first()


def _count_spans(report: ImportReport, spans: list[SpanDraft]) -> None:
    report.spans += len(spans)
    report.span_labels += sum(len(span.labels) for span in spans)
    if not spans:
        report.texts_without_spans += 1
    if all(NO_FALLACY in span.labels for span in spans):
        report.texts_without_required_fallacy += 1


# --- MAFALDA gold standard -------------------------------------------------------------------


def _add_documents(
    *,
    project: Project,
    texts: list[NewDocument],
    existing: dict[str, int],
    first_position: int,
    batch_size: int,
    report: ImportReport,
    defer_search_index: bool,
) -> tuple[list[Document], dict[str, int]]:
    """Create a batch's new documents and count the batch; returns the created documents and
    the document id of every text of the batch (``existing`` ones reused)."""
    created, sentence_count = create_documents(
        project=project,
        texts=texts,
        first_position=first_position,
        defer_search_index=defer_search_index,
    )
    report.texts += batch_size
    report.documents_created += len(created)
    report.documents_reused += batch_size - len(created)
    report.sentences += sentence_count
    document_ids = dict(existing)
    document_ids.update((doc.text, doc.pk) for doc in created)
    return created, document_ids


@dataclass
class _GoldItem:
    record: MafaldaRecord
    spans: list[SpanDraft]
    sentences: list[Range] | None


def _gold_item(
    record: MafaldaRecord, resolver: LabelResolver, name: str, report: ImportReport
) -> _GoldItem:
    def fail(field_name: str, message: str) -> DatasetFormatError:
        return DatasetFormatError(name, record.line, field_name, message)

    spans = group_spans(
        record.labels,
        resolver,
        fail,
        field_name="labels",
        to_clean=lambda: report.to_clean_lines.append(record.line),
    )
    sentences = None
    if record.sentence_units is not None:
        try:
            alignment = sentences_from_units(record.text, record.sentence_units)
        except SentenceError as error:
            raise fail("sentences_with_labels", str(error)) from None
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
    _lock_project(project)
    resolver = label_resolver(project.taxonomy)
    gold = _next_gold_standard(project, name, note, created_by)
    matcher = _DocumentMatcher(project, name)
    position = next_position(project)
    items = (_gold_item(record, resolver, name, report) for record in read_mafalda(path, name=name))
    for batch in batched(items):
        for item in batch:
            matcher.check_repeat(item.record.line, item.record.text)
        existing = matcher.existing(item.record.text for item in batch)
        created, document_ids = _add_documents(
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
            _count_spans(report, item.spans)
    if not report.texts:  # a blank file: no empty published version
        raise DatasetFormatError(name, 1, None, "the file holds no texts")
    gold.status = GoldStandard.Status.PUBLISHED
    gold.published_at = timezone.now()
    gold.save(update_fields=["status", "published_at"])
    report.gold_version = gold.version
    return report


# --- doccano annotations ---------------------------------------------------------------------


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
    _lock_project(project)
    Membership.objects.get_or_create(
        project=project, user=annotator, defaults={"role": Membership.Role.ANNOTATOR}
    )
    resolver = label_resolver(project.taxonomy)
    username = annotator.get_username()
    matcher = _DocumentMatcher(project, name)
    position = next_position(project)
    now = timezone.now()

    def item(record: DoccanoRecord) -> _DoccanoItem:
        def fail(field_name: str, message: str) -> DatasetFormatError:
            return DatasetFormatError(name, record.line, field_name, message)

        spans = group_spans(
            record.labels,
            resolver,
            fail,
            field_name="label",
            to_clean=lambda: report.to_clean_lines.append(record.line),
        )
        matcher.check_repeat(record.line, record.text)
        return _DoccanoItem(record, spans)

    for batch in batched(item(record) for record in read_doccano(path, name=name)):
        existing = matcher.existing(item.record.text for item in batch)
        created, document_ids = _add_documents(
            project=project,
            texts=[
                NewDocument(
                    text=item.record.text,
                    source=Path(name).name,
                    metadata=_doccano_ids({}, username, item.record.id),
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
        _record_doccano_ids(batch, existing, username)
        _replace_annotations(
            batch,
            annotator=annotator,
            existing=existing,
            document_ids=document_ids,
            submitted_at=now,
            report=report,
        )
        for item in batch:
            _count_spans(report, item.spans)
    return report


def _doccano_ids(metadata: dict[str, Any], username: str, record_id: int | str | None) -> dict:
    if record_id is None:
        return metadata
    ids = {**metadata.get("doccano_ids", {}), username: record_id}
    return {**metadata, "doccano_ids": ids}


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
    _lock_project(project)
    matcher = _DocumentMatcher(project, name)
    position = next_position(project)

    id_lines: dict[str, int] = {}

    def checked(record: TextRecord) -> TextRecord:
        matcher.check_repeat(record.line, record.text)
        if record.external_id:
            if record.external_id in id_lines:
                raise DatasetFormatError(
                    name, record.line, "id", f"same id as line {id_lines[record.external_id]}"
                )
            id_lines[record.external_id] = record.line
        return record

    if records is None:
        records = read_texts(path, name=name)
    default_source = Path(name).name
    batches = batched(checked(record) for record in records)
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
