"""What the dataset imports share: their report, the matching of a file's texts with a
project's documents, the project lock that serialises imports, and the writing of a batch's
new documents (``importing.datasets`` states the rules)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from annotations.importing.formats import DatasetFormatError
from annotations.importing.label_spans import SpanDraft
from annotations.labels import NO_FALLACY
from annotations.models import Document, Project
from annotations.services.documents import NewDocument, create_documents


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


class DocumentMatcher:
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


def lock_project(project: Project) -> None:
    """Serialise imports into one project (positions, gold versions)."""
    Project.objects.select_for_update().filter(pk=project.pk).first()


def count_spans(report: ImportReport, spans: list[SpanDraft]) -> None:
    report.spans += len(spans)
    report.span_labels += sum(len(span.labels) for span in spans)
    if not spans:
        report.texts_without_spans += 1
    if all(NO_FALLACY in span.labels for span in spans):
        report.texts_without_required_fallacy += 1


def add_batch_documents(
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
