"""A published gold version never changes: not through the models, not through raw SQL."""

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
    if connection.vendor != "postgresql":
        pytest.skip("the immutability triggers are PostgreSQL's (the reference database)")
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
