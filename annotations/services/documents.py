"""Writes on documents, their sentences and assignments."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Max

from annotations.models import Assignment, Document, Project, Sentence
from annotations.naming import readable_name
from annotations.sentences import Range, check_tiling, split_sentences

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
    """A text to add; ``sentences`` are its sentence ranges (pysbd's when not given)."""

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
    *, project: Project, texts: Sequence[NewDocument], first_position: int
) -> tuple[list[Document], int]:
    """Bulk-create documents and their sentences (no transaction of its own: importers call
    it batch by batch inside theirs); returns the documents and how many sentences.
    Sentence ranges given are checked to tile the text."""
    documents = Document.objects.bulk_create(
        [
            Document(
                project=project,
                name=readable_name(new.text, new.external_id),
                text=new.text,
                external_id=new.external_id,
                source=new.source,
                metadata=new.metadata,
                position=first_position + offset,
            )
            for offset, new in enumerate(texts)
        ],
        batch_size=BATCH_SIZE,
    )
    sentences: list[Sentence] = []
    for document, new in zip(documents, texts, strict=True):
        ranges = split_sentences(new.text) if new.sentences is None else list(new.sentences)
        check_tiling(new.text, ranges)
        sentences.extend(
            Sentence(document=document, index=index, start=start, end=end)
            for index, (start, end) in enumerate(ranges)
        )
    Sentence.objects.bulk_create(sentences, batch_size=BATCH_SIZE)
    return documents, len(sentences)


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
