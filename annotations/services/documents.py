"""Writes on documents, their sentences and assignments.

Every way a document comes in goes through ``create_documents`` (imports, ``add_documents``,
``add_document`` for the API and the Django admin), so every document has its sentences
(split by ``annotations.importing.sentences`` unless the source gives units) and a readable name.
Documents and sentences are written in bulk without Django's per-value preparation
(``services.bulk_rows``: ``COPY`` on PostgreSQL, multi-row ``INSERT`` on SQLite). A
document's text changes only through ``change_document_text``/``update_document``, which
re-split it and are refused while annotations or gold spans point into it (their offsets
would go stale).

Concurrency: ``add_document(s)`` lock the project row, so positions never collide;
``update_document`` locks the document row and checks for annotations inside the same
transaction (an annotation started concurrently waits for it, then sees the new text).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max

from annotations.importing.sentences import Range, SentenceError, check_tiling, split_sentences
from annotations.models import Annotation, Assignment, Document, GoldSpan, Project, Sentence
from annotations.naming import readable_name
from annotations.services import search_index
from annotations.services.bulk_rows import insert_documents, insert_sentences

BATCH_SIZE = 500
T = TypeVar("T")


def batched(items: Iterable[T], size: int = BATCH_SIZE) -> Iterator[list[T]]:
    """Consecutive lists of ``size`` items (the last may be shorter), read lazily."""
    batch: list[T] = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


@dataclass(frozen=True)
class NewDocument:
    """A text to add; ``sentences`` are its sentence ranges (split when not given)."""

    text: str
    external_id: str = ""
    source: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)
    sentences: Sequence[Range] | None = None


def next_position(project: Project) -> int:
    """The position after the project's last document."""
    last = Document.objects.filter(project=project).aggregate(last=Max("position"))["last"]
    return 0 if last is None else last + 1


def create_documents(
    *,
    project: Project,
    texts: Sequence[NewDocument],
    first_position: int,
    split: Mapping[str, list[Range]] | None = None,
    defer_search_index: bool = False,
) -> tuple[list[Document], int]:
    """Bulk-create documents and their sentences (no transaction of its own: importers call
    it batch by batch inside theirs); returns the documents and how many sentences.
    ``defer_search_index``: the documents are written outside the search's trigram indexes where
    it is filled afterwards (``services.search_index``; the caller runs ``index_pending``
    once its transaction has committed).
    Sentence ranges given are checked to tile the text; split ones tile it by construction
    (``annotations.importing.sentences``; ``split`` maps a text to its ``split_sentences`` ranges
    when the caller split it already, see ``annotations.importing.split_ahead``). A text without
    sentences (blank) is refused."""
    in_index = not (defer_search_index and search_index.deferred())
    documents = [
        _new_document(
            project,
            {
                "project_id": project.pk,
                "name": readable_name(new.text, new.external_id),
                "text": new.text,
                "source": new.source,
                "external_id": new.external_id,
                "metadata": new.metadata,
                "position": first_position + offset,
                "in_search_index": in_index,
            },
        )
        for offset, new in enumerate(texts)
    ]
    insert_documents(documents)
    rows: list[tuple[int, int, int, int]] = []
    for offset, (document, new) in enumerate(zip(documents, texts, strict=True)):
        if new.sentences is None:
            ranges = split[new.text] if split and new.text in split else split_sentences(new.text)
        else:
            ranges = list(new.sentences)
            check_tiling(new.text, ranges)
        if not ranges:
            raise SentenceError(f"text {offset + 1} of the batch is blank: it has no sentence")
        pk = document.pk
        rows += [(pk, index, start, end) for index, (start, end) in enumerate(ranges)]
    insert_sentences(rows)
    return documents, len(rows)


_DOCUMENT_FIELDS = [f.attname for f in Document._meta.concrete_fields]


def _new_document(project: Project, values: dict[str, Any]) -> Document:
    """``Document(project=project, **values)`` at half the cost: positional arguments in the
    fields' order (no id yet, counters 0; a new field fails here until it is given), the
    project cached."""
    document = Document(*[values[n] if n in values else _DEFAULTS[n] for n in _DOCUMENT_FIELDS])
    Document.project.field.set_cached_value(document, project)
    return document


_DEFAULTS = {
    "id": None,
    "created_at": None,
    "updated_at": None,
    **dict.fromkeys(Document.COUNTERS, 0),
}


@transaction.atomic
def add_documents(*, project: Project, texts: Iterable[NewDocument]) -> list[Document]:
    """Append documents to the project, in order, with their sentences."""
    Project.objects.select_for_update().filter(pk=project.pk).first()  # serialise positions
    position = next_position(project)
    created: list[Document] = []
    for batch in batched(texts):
        created += create_documents(project=project, texts=batch, first_position=position)[0]
        position += len(batch)
    return created


def check_text(text: str) -> None:
    """A document's text must have some non-blank content (``ValidationError`` on text)."""
    if not text.strip():
        raise ValidationError({"text": ["the text is blank"]})


def _check_external_id(project: Project, external_id: str, document: Document | None) -> None:
    if not external_id:
        return
    taken = Document.objects.filter(project=project, external_id=external_id)
    if document is not None:
        taken = taken.exclude(pk=document.pk)
    if taken.exists():
        raise ValidationError(
            {
                "external_id": [
                    f"'{external_id}' is already the id of another document of the project"
                ]
            }
        )


@transaction.atomic
def add_document(
    *,
    project: Project,
    text: str,
    external_id: str = "",
    source: str = "",
    metadata: dict[str, Any] | None = None,
    sentences: Sequence[Range] | None = None,
) -> Document:
    """One document appended to the project, with its sentences and readable name."""
    check_text(text)
    Project.objects.select_for_update().filter(pk=project.pk).first()  # serialise positions
    _check_external_id(project, external_id.strip(), None)
    new = NewDocument(
        text=text,
        external_id=external_id.strip(),
        source=source,
        metadata=metadata or {},
        sentences=sentences,
    )
    documents, _ = create_documents(
        project=project, texts=[new], first_position=next_position(project)
    )
    return documents[0]


def text_change_refusal(document: Document) -> str | None:
    """Why the document's text may not change now, or None when it may."""
    if (
        Annotation.objects.filter(document=document).exists()
        or GoldSpan.objects.filter(document=document).exists()
    ):
        return (
            f"document {document.pk} has annotations (or gold spans); changing its text"
            " would make their offsets stale"
        )
    return None


def check_text_can_change(document: Document) -> None:
    """``ValidationError`` on ``text`` when annotations or gold spans point into it."""
    refusal = text_change_refusal(document)
    if refusal:
        raise ValidationError({"text": [refusal]})


@transaction.atomic
def update_document(
    *,
    document: Document,
    text: str | None = None,
    external_id: str | None = None,
    source: str | None = None,
    metadata: dict[str, Any] | None = None,
    position: int | None = None,
) -> Document:
    """Change a document (only the fields given). A new text is re-split into sentences and
    refused while the document has annotations or gold spans; the name follows the text
    and the external id."""
    document = Document.objects.select_for_update().get(pk=document.pk)
    fields: list[str] = []
    new_text = text is not None and text != document.text
    if new_text:
        check_text(text)
        check_text_can_change(document)
        document.text = text
        fields.append("text")
    if external_id is not None and external_id.strip() != document.external_id:
        document.external_id = external_id.strip()
        _check_external_id(document.project, document.external_id, document)
        fields.append("external_id")
    for name, value in (("source", source), ("metadata", metadata), ("position", position)):
        if value is not None and getattr(document, name) != value:
            setattr(document, name, value)
            fields.append(name)
    name = readable_name(document.text, document.external_id)
    if name != document.name:
        document.name = name
        fields.append("name")
    if fields:
        document.save(update_fields=fields)
    if new_text:
        document.sentences.all().delete()
        ranges = split_sentences(document.text)
        check_tiling(document.text, ranges)
        Sentence.objects.bulk_create(
            Sentence(document=document, index=index, start=start, end=end)
            for index, (start, end) in enumerate(ranges)
        )
    return document


def change_document_text(*, document: Document, text: str) -> Document:
    """A new text for the document, re-split into sentences (see ``update_document``)."""
    return update_document(document=document, text=text)


@transaction.atomic
def assign_documents(
    *,
    project: Project,
    annotator: AbstractBaseUser,
    documents: Iterable[Document] | None = None,
) -> int:
    """Put documents (all of the project's by default) in the annotator's queue; documents
    already assigned are left as they are. Returns how many assignments were created."""
    if documents is None:
        document_ids = list(Document.objects.filter(project=project).values_list("pk", flat=True))
    else:
        document_ids = [document.pk for document in documents]
        foreign = Document.objects.filter(pk__in=document_ids).exclude(project=project)
        if foreign.exists():
            raise ValueError(
                f"documents {list(foreign.values_list('pk', flat=True))} are not "
                f"in project {project}"
            )
    already = set(
        Assignment.objects.filter(annotator=annotator, document__project=project).values_list(
            "document_id", flat=True
        )
    )
    new = [
        Assignment(document_id=pk, annotator=annotator) for pk in document_ids if pk not in already
    ]
    Assignment.objects.bulk_create(new, batch_size=BATCH_SIZE)
    return len(new)
