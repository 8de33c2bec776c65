"""Exporting gold standards and annotations as MAFALDA or doccano JSON Lines.

Reads only (kept beside the imports it mirrors); documents are streamed in chunks, with
their spans and sentences fetched per chunk, so memory stays flat for large projects.

Label spellings are MAFALDA's, so that an import followed by an export gives back the
file's own strings: ``NO_FALLACY`` is written ``"nothing"`` and every canonical label is
written as the MAFALDA spelling it resolves from (``"appeal to ridicule"`` is MAFALDA's
``"Appeal to Ridicule"``, a quirk of that format); labels MAFALDA lacks keep their name.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO, Any

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet

from annotations.importing.formats.doccano import doccano_object, write_doccano
from annotations.importing.formats.mafalda import LABELS, NOTHING, mafalda_object, write_mafalda
from annotations.labels import NO_FALLACY, LabelResolver
from annotations.models import (
    Annotation,
    GoldDocument,
    GoldSpan,
    GoldStandard,
    Project,
    Sentence,
    Span,
)
from annotations.selectors.taxonomy import label_resolver

CHUNK_SIZE = 500


class ExportError(ValueError):
    """Nothing to export (no published gold standard, unknown version)."""


def mafalda_spellings(resolver: LabelResolver) -> dict[str, str]:
    """Canonical label -> the spelling MAFALDA's files use for it."""
    spellings = {NO_FALLACY: NOTHING}
    for spelling in LABELS:
        canonical = resolver.resolve(spelling)
        if canonical is not None and canonical != NO_FALLACY:
            spellings[canonical] = spelling
    return spellings


def published_gold(project: Project, version: int | None = None) -> GoldStandard:
    """The given published version of the project's gold standard, or the latest one."""
    published = project.gold_standards.filter(status=GoldStandard.Status.PUBLISHED)
    if version is not None:
        published = published.filter(version=version)
    gold = published.order_by("-version").first()
    if gold is None:
        which = f"version {version}" if version is not None else "version"
        message = f"project {project.name!r} has no published gold standard {which}"
        if project.gold_standards.filter(version=version, status="draft").exists():
            message += f": version {version} is a draft (publish it first)"
        raise ExportError(message)
    return gold


def _chunks(queryset: QuerySet) -> Iterator[list[Any]]:
    """Lists of rows in the queryset's (total) order, CHUNK_SIZE at a time."""
    offset = 0
    while chunk := list(queryset[offset : offset + CHUNK_SIZE]):
        yield chunk
        offset += CHUNK_SIZE


def _triples(spans: list[Any], spelling: dict[str, str]) -> list[tuple[int, int, str]]:
    """One triple per label of each span."""
    return [
        (span.start, span.end, spelling.get(label, label))
        for span in spans
        for label in span.labels
    ]


def _sentence_labels(
    sentences: list[Sentence], spans: list[Any], spelling: dict[str, str], text: str
) -> list[tuple[str, list[list[str]]]]:
    """For each sentence: the label sets of the spans overlapping it, else ``[["nothing"]]``."""
    entries = []
    for sentence in sentences:
        groups = [
            [spelling.get(label, label) for label in span.labels]
            for span in spans
            if span.start < sentence.end and sentence.start < span.end
        ]
        entries.append((text[sentence.start : sentence.end], groups or [[NOTHING]]))
    return entries


def export_mafalda(
    *, project: Project, gold_standard: GoldStandard | None = None, out: IO[str]
) -> int:
    """Write a gold standard version (the latest published by default) in MAFALDA's format;
    returns the number of texts written."""
    gold = gold_standard or published_gold(project)
    spelling = mafalda_spellings(label_resolver(project.taxonomy))
    ordered = (
        GoldDocument.objects.filter(gold_standard=gold)
        .select_related("document")
        .order_by("document__position", "document_id")
    )

    def objects() -> Iterator[dict[str, Any]]:
        for chunk in _chunks(ordered):
            ids = [entry.document_id for entry in chunk]
            spans = _grouped(
                GoldSpan.objects.filter(gold_standard=gold, document_id__in=ids), "document_id"
            )
            sentences = _grouped(Sentence.objects.filter(document_id__in=ids), "document_id")
            for entry in chunk:
                document_spans = spans.get(entry.document_id, [])
                yield mafalda_object(
                    text=entry.document.text,
                    labels=_triples(document_spans, spelling),
                    comments=entry.comments,
                    sentences=_sentence_labels(
                        sentences.get(entry.document_id, []),
                        document_spans,
                        spelling,
                        entry.document.text,
                    ),
                )

    return write_mafalda(objects(), out)


def _doccano_id(metadata: dict[str, Any], username: str | None, document_id: int) -> int | str:
    """The id the document had in this annotator's doccano export, else its own id."""
    if username is not None:
        return metadata.get("doccano_ids", {}).get(username, document_id)
    return document_id


def export_doccano(
    *,
    project: Project,
    annotator: AbstractBaseUser | None = None,
    gold_standard: GoldStandard | None = None,
    out: IO[str],
) -> int:
    """Write one annotator's annotations (all statuses) or, without an annotator, a gold
    standard version (the latest published by default) in doccano's format
    (``{id, text, label, Comments}``); returns the number of texts written."""
    spelling = mafalda_spellings(label_resolver(project.taxonomy))
    username = annotator.get_username() if annotator is not None else None
    if annotator is not None:
        entries: QuerySet = Annotation.objects.filter(
            document__project=project, annotator=annotator
        )

        def spans_of(chunk: list[Annotation]) -> dict[int, list[Any]]:
            return _grouped(Span.objects.filter(annotation__in=chunk), "annotation_id")

        def key(entry: Annotation) -> int:
            return entry.pk
    else:
        gold = gold_standard or published_gold(project)
        entries = GoldDocument.objects.filter(gold_standard=gold)

        def spans_of(chunk: list[GoldDocument]) -> dict[int, list[Any]]:
            ids = [entry.document_id for entry in chunk]
            return _grouped(
                GoldSpan.objects.filter(gold_standard=gold, document_id__in=ids), "document_id"
            )

        def key(entry: GoldDocument) -> int:
            return entry.document_id

    ordered = entries.select_related("document").order_by("document__position", "document_id")

    def objects() -> Iterator[dict[str, Any]]:
        for chunk in _chunks(ordered):
            spans = spans_of(chunk)
            for entry in chunk:
                document = entry.document
                yield doccano_object(
                    id=_doccano_id(document.metadata, username, document.pk),
                    text=document.text,
                    labels=_triples(spans.get(key(entry), []), spelling),
                    comments=entry.comments,
                )

    return write_doccano(objects(), out)


def _grouped(rows: QuerySet, owner: str) -> dict[int, list[Any]]:
    """Rows by the id in their ``owner`` field, each list in the model's default order
    (spans by start and end, sentences by index)."""
    grouped: dict[int, list[Any]] = {}
    for row in rows:
        grouped.setdefault(getattr(row, owner), []).append(row)
    return grouped
