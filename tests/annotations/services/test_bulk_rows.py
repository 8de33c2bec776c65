"""``services.bulk_rows`` stores the rows ``bulk_create`` stores, on either database (run with
and without ``DATABASE_URL``), and the database still enforces the sentences' constraints."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction

from annotations.models import Document, Project, Sentence
from annotations.services.bulk_rows import ROWS, insert_documents, insert_sentences
from tests.support.factories import make_taxonomy

pytestmark = pytest.mark.django_db

TEXTS = [f"Text {i}, with 'quotes', a tab\there and a backslash \\ {i}." for i in range(ROWS + 3)]
METADATA = [{"i": i, "nested": {"é": [1, None, "x"]}} if i % 2 else {} for i in range(len(TEXTS))]

COMPARED = ["name", "text", "source", "external_id", "metadata", "position", "in_search_index"]


def _documents(project: Project, offset: int) -> list[Document]:
    return [
        Document(
            project=project,
            name=f"name {i}",
            text=text,
            source="file.txt",
            external_id=f"id-{i}" if i % 3 else "",
            metadata=METADATA[i],
            position=offset + i,
            in_search_index=bool(i % 2),
        )
        for i, text in enumerate(TEXTS)
    ]


def _rows(project: Project) -> list[tuple]:
    documents = Document.objects.filter(project=project).order_by("position")
    return [
        (
            *(getattr(document, name) for name in COMPARED),
            [(s.index, s.start, s.end) for s in document.sentences.order_by("index")],
        )
        for document in documents
    ]


def test_same_rows_as_bulk_create() -> None:
    taxonomy = make_taxonomy()
    ours, stock = (Project.objects.create(name=n, taxonomy=taxonomy) for n in ("ours", "stock"))
    with transaction.atomic():
        created = _documents(ours, 0)
        insert_documents(created)
        insert_sentences(
            [(d.pk, index, 2 * index, 2 * index + 1) for d in created for index in range(3)]
        )
    with transaction.atomic():
        reference = Document.objects.bulk_create(_documents(stock, 0))
        Sentence.objects.bulk_create(
            Sentence(document=d, index=index, start=2 * index, end=2 * index + 1)
            for d in reference
            for index in range(3)
        )
    assert [d.pk for d in created] == sorted(d.pk for d in created)
    stored = {d.pk: d for d in Document.objects.filter(project=ours)}
    for document in created:
        assert stored[document.pk].position == document.position
        assert stored[document.pk].created_at == document.created_at
    assert _rows(ours) == _rows(stock)
    ours.refresh_from_db()
    stock.refresh_from_db()
    assert ours.document_count == stock.document_count == len(TEXTS)


def test_sentence_constraints_still_enforced() -> None:
    project = Project.objects.create(name="p", taxonomy=make_taxonomy())
    documents = _documents(project, 0)[:1]
    insert_documents(documents)
    missing = max(Document.objects.values_list("pk", flat=True)) + 1000
    for rows in (
        [(missing, 0, 0, 1)],  # no such document
        [(documents[0].pk, 0, 0, 1), (documents[0].pk, 0, 1, 2)],  # index repeated
        [(documents[0].pk, 0, 2, 1)],  # start after end
    ):
        with pytest.raises(IntegrityError), transaction.atomic():
            insert_sentences(rows)
            connection.check_constraints()  # any deferred constraint, checked now
    assert not Sentence.objects.exists()
