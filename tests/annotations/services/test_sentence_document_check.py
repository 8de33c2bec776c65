"""A sentence's document exists, whatever writes the rows (migration
``annotations.0015_sentence_document_statement_check``: statement-level triggers on
PostgreSQL, row-level ones on SQLite). Run with and without ``DATABASE_URL``."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import psycopg
import pytest
from django.db import IntegrityError, connection, transaction

from annotations.models import Document, Project, Sentence
from annotations.services.bulk_rows import insert_sentences
from annotations.services.documents import add_document
from tests.support.factories import make_taxonomy

TEXT = "One sentence here. Another one there."


@pytest.fixture
def document() -> Document:
    project = Project.objects.create(name="sentences", taxonomy=make_taxonomy())
    return add_document(project=project, text=TEXT)


def _missing_id() -> int:
    return max(Document.objects.values_list("pk", flat=True)) + 1000


@pytest.mark.django_db
def test_a_sentence_of_no_document_is_refused(document: Document) -> None:
    before = list(Sentence.objects.values_list("document_id", "index", "start", "end"))
    missing = _missing_id()
    writes = [
        lambda: insert_sentences([(document.pk, 5, 0, 3), (missing, 0, 0, 3)]),
        lambda: Sentence.objects.create(document_id=missing, index=0, start=0, end=3),
        lambda: Sentence.objects.filter(document=document).update(document_id=missing),
    ]
    for write in writes:
        with pytest.raises(IntegrityError, match="sentence_document_exists"), transaction.atomic():
            write()
    assert list(Sentence.objects.values_list("document_id", "index", "start", "end")) == before
    assert len(before) == 2


@pytest.mark.django_db
def test_a_document_deleted_by_raw_sql_takes_its_sentences(document: Document) -> None:
    other = add_document(project=document.project, text=TEXT)
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM annotations_document WHERE id = %s", [document.pk])
    assert list(Sentence.objects.values_list("document_id", flat=True)) == [other.pk, other.pk]
    with pytest.raises(IntegrityError, match="never changes"), transaction.atomic():
        Document.objects.filter(pk=other.pk).update(id=_missing_id())
    assert other.sentences.count() == 2


@pytest.mark.django_db
def test_deleting_a_document_or_project_takes_its_sentences(document: Document) -> None:
    other = add_document(project=document.project, text=TEXT)
    document.delete()
    assert list(Sentence.objects.values_list("document_id", flat=True)) == [other.pk, other.pk]
    other.project.delete()
    assert not Sentence.objects.exists()


@pytest.fixture
def raw_connections() -> Iterator[tuple[psycopg.Connection, psycopg.Connection]]:
    """Two connections of their own to the test database (autocommit off)."""
    if connection.vendor != "postgresql":
        pytest.skip("concurrent writers: PostgreSQL only (SQLite has one writer at a time)")
    settings = connection.settings_dict
    params = {
        "dbname": settings["NAME"],
        "user": settings["USER"],
        "password": settings["PASSWORD"] or None,
        "host": settings["HOST"] or None,
        "port": settings["PORT"] or None,
    }
    first, second = psycopg.connect(**params), psycopg.connect(**params)
    yield first, second
    first.close()
    second.close()


INSERT_SENTENCE = (
    'INSERT INTO annotations_sentence (document_id, "index", start, "end") VALUES (%s, 7, 0, 3)'
)
DELETE_DOCUMENT = "DELETE FROM annotations_document WHERE id = %s"


def _waiting(
    waiter: psycopg.Connection, statement: str, document: Document, holder: psycopg.Connection
) -> BaseException | None:
    """Runs ``statement`` and commits on ``waiter`` in a thread; checks that it waits for
    ``holder``'s transaction, commits that one, and returns the waiter's error (or None)."""
    outcome: list[BaseException | None] = []

    def run() -> None:
        try:
            waiter.execute(statement, [document.pk])
            waiter.commit()
            outcome.append(None)
        except psycopg.Error as error:
            outcome.append(error)
            waiter.rollback()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(0.5)
    assert thread.is_alive(), "the statement did not wait for the other transaction"
    holder.commit()
    thread.join(10)
    return outcome[0]


@pytest.mark.django_db(transaction=True)
def test_a_concurrent_delete_waits_for_new_sentences_then_takes_them(
    document: Document, raw_connections
) -> None:
    """The insert's check locks its documents as a foreign key would: a delete of one waits
    for the inserting transaction, then deletes its new sentences too (no orphan)."""
    writer, deleter = raw_connections
    writer.execute(INSERT_SENTENCE, [document.pk])
    deleter.execute("SET lock_timeout = '300ms'")
    with pytest.raises(psycopg.errors.LockNotAvailable):
        deleter.execute(DELETE_DOCUMENT, [document.pk])
    deleter.rollback()
    assert _waiting(deleter, DELETE_DOCUMENT, document, holder=writer) is None
    assert not Document.objects.filter(pk=document.pk).exists()
    assert not Sentence.objects.filter(document_id=document.pk).exists()


@pytest.mark.django_db(transaction=True)
def test_new_sentences_of_a_document_being_deleted_wait_then_are_refused(
    document: Document, raw_connections
) -> None:
    writer, deleter = raw_connections
    deleter.execute(DELETE_DOCUMENT, [document.pk])
    error = _waiting(writer, INSERT_SENTENCE, document, holder=deleter)
    assert isinstance(error, psycopg.errors.ForeignKeyViolation)
    assert not Document.objects.filter(pk=document.pk).exists()
    assert not Sentence.objects.filter(document_id=document.pk).exists()
