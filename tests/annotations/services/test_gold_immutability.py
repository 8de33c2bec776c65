"""A published gold version never changes: not through the models, not through raw SQL.

The raw-SQL tests run on both supported databases: the triggers of migration
``annotations.0005_gold_adjudication_history`` exist for PostgreSQL (a PL/pgSQL function) and
for SQLite (``RAISE(ABORT)`` triggers, surfacing as ``IntegrityError``).
"""

import pytest
from django.db import IntegrityError, InternalError, connection, transaction
from django.utils import timezone

from annotations.models import (
    Document,
    GoldDocument,
    GoldSpan,
    GoldStandard,
    Project,
    PublishedGoldIsImmutable,
)
from annotations.services.taxonomy import install_preset

pytestmark = pytest.mark.django_db


@pytest.fixture
def published() -> tuple[GoldStandard, GoldSpan, Document]:
    project = Project.objects.create(name="immutability", taxonomy=install_preset(name="mafalda"))
    document = Document.objects.create(project=project, text="Everyone does it, so it is right.")
    gold = GoldStandard.objects.create(project=project, version=1)
    GoldDocument.objects.create(gold_standard=gold, document=document)
    span = GoldSpan.objects.create(
        gold_standard=gold, document=document, start=0, end=33, labels=["ad populum"]
    )
    gold.status, gold.published_at = GoldStandard.Status.PUBLISHED, timezone.now()
    gold.save()
    return gold, span, document


def test_draft_rows_are_writable_then_frozen_by_publishing(published) -> None:
    gold, span, document = published
    span.labels = ["ad populum", "no fallacy"]
    with pytest.raises(PublishedGoldIsImmutable):
        span.save()
    with pytest.raises(PublishedGoldIsImmutable):
        GoldSpan.objects.create(
            gold_standard=gold, document=document, start=0, end=10, labels=["ad hominem"]
        )
    gold.note = "edited"
    with pytest.raises(PublishedGoldIsImmutable):
        gold.save()
    span.refresh_from_db()
    assert span.labels == ["ad populum"]


def test_database_refuses_raw_writes_to_a_published_version(published) -> None:
    gold, span, _ = published
    for statement in (
        f"UPDATE annotations_goldspan SET labels = '[\"ad hominem\"]' WHERE id = {span.pk}",
        f"UPDATE annotations_goldstandard SET status = 'draft', published_at = NULL "
        f"WHERE id = {gold.pk}",
        f"UPDATE annotations_goldspan SET gold_standard_id = {gold.pk} WHERE id = {span.pk}",
    ):
        with pytest.raises((IntegrityError, InternalError)), transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute(statement)
    span.refresh_from_db()
    assert span.labels == ["ad populum"]
    assert GoldStandard.objects.get(pk=gold.pk).is_published


def _unchanged(gold: GoldStandard, span: GoldSpan, document: Document) -> None:
    span.refresh_from_db()
    assert span.labels == ["ad populum"]
    assert GoldStandard.objects.get(pk=gold.pk).is_published
    assert GoldDocument.objects.filter(gold_standard=gold, document=document).exists()
    assert Document.objects.get(pk=document.pk).text == "Everyone does it, so it is right."


def test_every_model_level_write_path_is_refused(published) -> None:
    gold, span, document = published
    entry = GoldDocument.objects.get(gold_standard=gold)
    attempts = {
        "GoldSpan.delete()": span.delete,
        "GoldDocument.delete()": entry.delete,
        "GoldStandard.delete()": gold.delete,
        "GoldSpan QuerySet.update()": lambda: GoldSpan.objects.filter(pk=span.pk).update(
            labels=["ad hominem"]
        ),
        "GoldSpan QuerySet.delete()": lambda: GoldSpan.objects.filter(pk=span.pk).delete(),
        "GoldDocument QuerySet.delete()": lambda: GoldDocument.objects.filter(
            gold_standard=gold
        ).delete(),
        "GoldDocument QuerySet.update()": lambda: GoldDocument.objects.filter(
            gold_standard=gold
        ).update(comments=["edited"]),
        "GoldDocument bulk_create": lambda: GoldDocument.objects.bulk_create(
            [
                GoldDocument(
                    gold_standard=gold,
                    document=Document.objects.create(project=gold.project, text="Another text."),
                )
            ]
        ),
        "GoldDocument bulk_update": lambda: GoldDocument.objects.bulk_update(
            [GoldDocument(pk=entry.pk, gold_standard=gold, document=document, comments=["x"])],
            ["comments"],
        ),
        "GoldStandard QuerySet.update()": lambda: GoldStandard.objects.filter(pk=gold.pk).update(
            note="edited"
        ),
        "GoldStandard QuerySet.delete()": lambda: GoldStandard.objects.filter(pk=gold.pk).delete(),
        "bulk_create": lambda: GoldSpan.objects.bulk_create(
            [GoldSpan(gold_standard=gold, document=document, start=0, end=5, labels=["x"])]
        ),
        "bulk_update": lambda: GoldSpan.objects.bulk_update(
            [
                GoldSpan(
                    pk=span.pk,
                    gold_standard=gold,
                    document=document,
                    start=0,
                    end=33,
                    labels=["ad hominem"],
                )
            ],
            ["labels"],
        ),
        "deleting the document (cascade)": document.delete,
        "deleting documents with a QuerySet (cascade)": lambda: Document.objects.filter(
            pk=document.pk
        ).delete(),
        "deleting the project (cascade)": gold.project.delete,
    }
    for name, attempt in attempts.items():
        with pytest.raises(PublishedGoldIsImmutable), transaction.atomic():
            attempt()
        _unchanged(gold, span, document), name


def test_the_database_refuses_deletes_cascades_and_text_changes(published) -> None:
    gold, span, document = published
    other = Document.objects.create(project=gold.project, text="Another text.")
    for statement in (
        f"DELETE FROM annotations_goldspan WHERE id = {span.pk}",
        f"DELETE FROM annotations_golddocument WHERE gold_standard_id = {gold.pk}",
        f"DELETE FROM annotations_goldstandard WHERE id = {gold.pk}",
        f'INSERT INTO annotations_goldspan (gold_standard_id, document_id, start, "end", '
        f"labels, details, proposed_by) VALUES ({gold.pk}, {document.pk}, 0, 5, "
        "'[\"x\"]', '{}', '{}')",
        f"INSERT INTO annotations_golddocument (gold_standard_id, document_id, comments, "
        f"revision) VALUES ({gold.pk}, {other.pk}, '[]', 1)",
        f"UPDATE annotations_golddocument SET comments = '[\"x\"]' "
        f"WHERE gold_standard_id = {gold.pk}",
        f"UPDATE annotations_document SET text = 'Other words.' WHERE id = {document.pk}",
        f"DELETE FROM annotations_document WHERE id = {document.pk}",
        f"DELETE FROM annotations_project WHERE id = {gold.project_id}",
    ):
        with pytest.raises((IntegrityError, InternalError)), transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute(statement)
    # QuerySet.update() of the text goes through the same trigger
    with pytest.raises((IntegrityError, InternalError)), transaction.atomic():
        Document.objects.filter(pk=document.pk).update(text="Other words.")
    # rows moved into or out of a published version: the model guards look at one side, the
    # database at both
    draft = GoldStandard.objects.create(project=gold.project, version=2)
    loose = GoldSpan.objects.create(
        gold_standard=draft, document=document, start=0, end=5, labels=["ad hominem"]
    )
    span.gold_standard = draft
    refused = (IntegrityError, InternalError, PublishedGoldIsImmutable)
    for move in (
        lambda: GoldSpan.objects.filter(pk=loose.pk).update(gold_standard=gold),
        span.save,
    ):
        with pytest.raises(refused), transaction.atomic():
            move()
    _unchanged(gold, span, document)
    # other fields of the document may still change
    Document.objects.filter(pk=document.pk).update(source="renamed source")


def test_the_admin_refuses_a_text_change_and_a_delete(published, client, django_user_model):
    gold, span, document = published
    django_user_model.objects.create_superuser("root", password="pw-for-tests-123")
    client.login(username="root", password="pw-for-tests-123")
    url = f"/admin/annotations/document/{document.pk}/change/"
    page = client.post(
        url,
        {
            "external_id": "",
            "text": "Other words.",
            "source": "",
            "metadata": "{}",
            "position": "0",
            "sentences-TOTAL_FORMS": "0",
            "sentences-INITIAL_FORMS": "0",
        },
    )
    assert page.status_code == 200 and b"gold" in page.content  # the form error names it
    delete = client.post(f"/admin/annotations/document/{document.pk}/delete/", {"post": "yes"})
    assert delete.status_code == 403
    _unchanged(gold, span, document)


def test_a_draft_stays_writable_and_deletable(published) -> None:
    gold, span, document = published
    draft = GoldStandard.objects.create(project=gold.project, version=2)
    GoldDocument.objects.create(gold_standard=draft, document=document)
    copy = GoldSpan.objects.create(
        gold_standard=draft, document=document, start=0, end=33, labels=["ad populum"]
    )
    GoldSpan.objects.filter(pk=copy.pk).update(labels=["ad hominem"])
    GoldSpan.objects.bulk_create(
        [GoldSpan(gold_standard=draft, document=document, start=0, end=5, labels=["x"])]
    )
    assert GoldSpan.objects.filter(gold_standard=draft).count() == 2
    GoldDocument.objects.filter(gold_standard=draft).update(comments=["checked"])
    GoldSpan.objects.filter(gold_standard=draft).delete()
    draft.delete()
    _unchanged(gold, span, document)


def test_a_draft_stays_writable_through_raw_sql_and_cascades(published) -> None:
    gold, span, document = published
    draft = GoldStandard.objects.create(project=gold.project, version=2)
    only_in_draft = Document.objects.create(project=gold.project, text="Only the draft has it.")
    GoldDocument.objects.create(gold_standard=draft, document=only_in_draft)
    copy = GoldSpan.objects.create(
        gold_standard=draft, document=only_in_draft, start=0, end=4, labels=["ad populum"]
    )
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE annotations_goldspan SET labels = '[\"ad hominem\"]' WHERE id = {copy.pk}"
        )
        cursor.execute(f"UPDATE annotations_goldstandard SET note = 'n' WHERE id = {draft.pk}")
        cursor.execute(
            f"UPDATE annotations_document SET text = 'Changed.' WHERE id = {only_in_draft.pk}"
        )
    copy.refresh_from_db()
    assert copy.labels == ["ad hominem"]
    only_in_draft.delete()  # cascades into the draft only
    assert not GoldDocument.objects.filter(gold_standard=draft).exists()
    assert not GoldSpan.objects.filter(gold_standard=draft).exists()
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM annotations_goldstandard WHERE id = {draft.pk}")
    assert not GoldStandard.objects.filter(pk=draft.pk).exists()
    _unchanged(gold, span, document)


def test_moving_rows_between_a_draft_and_a_published_version_is_refused(published) -> None:
    gold, span, document = published
    draft = GoldStandard.objects.create(project=gold.project, version=2)
    copy = GoldSpan.objects.create(
        gold_standard=draft, document=document, start=0, end=33, labels=["ad populum"]
    )
    with pytest.raises(PublishedGoldIsImmutable), transaction.atomic():
        GoldSpan.objects.filter(pk=copy.pk).update(gold_standard=gold)
    span.gold_standard = draft
    with pytest.raises(PublishedGoldIsImmutable), transaction.atomic():
        span.save()
    assert GoldSpan.objects.filter(gold_standard=gold).count() == 1
    assert GoldSpan.objects.get(pk=copy.pk).gold_standard_id == draft.pk
