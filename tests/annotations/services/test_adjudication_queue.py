"""The adjudication queue (``/api/projects/<id>/adjudication/``): documents by position while
the agreement is computed, then by highest disagreement; which are adjudicated; paging."""

from __future__ import annotations

import pytest
from django.utils import timezone

from annotations.models import Annotation, Document, Span
from evaluation.agreement import jobs as agreement_jobs
from evaluation.models import AgreementResult
from tests.support.adjudication import S0, S1, adjudication_world, client, url
from tests.support.factories import World


@pytest.fixture
def world(db: None) -> World:
    return adjudication_world()


def _agreeing_and_disagreeing_documents(world: World) -> None:
    """d2: both annotators agree; d3: they disagree everywhere; d1 (the world's): partly."""
    # The scorer refuses two documents with the same text: same sentences, other words.
    Document.objects.filter(pk=world.d2.pk).update(text=world.d2.text.replace("Smith", "Jones"))
    Document.objects.filter(pk=world.d3.pk).update(text=world.d3.text.replace("taxes", "roads"))
    for doc, spans in [
        (world.d2, {world.ann1: [(S0, ["ad hominem"])], world.ann2: [(S0, ["ad hominem"])]}),
        (
            world.d3,
            {world.ann1: [(S0, ["ad hominem"])], world.ann2: [(S1, ["slippery slope"])]},
        ),
    ]:
        for user, ranges in spans.items():
            annotation = Annotation.objects.create(
                document=doc, annotator=user, status="submitted", submitted_at=timezone.now()
            )
            for (start, end), labels in ranges:
                Span.objects.create(annotation=annotation, start=start, end=end, labels=labels)


def test_the_queue_sorts_by_highest_disagreement_then_position(world) -> None:
    _agreeing_and_disagreeing_documents(world)
    reviewer = client(world.reviewer)
    queue_url = f"/api/projects/{world.p1.pk}/adjudication/"
    before = reviewer.get(queue_url).json()
    assert before["agreement"] == {"status": "computing"}  # started, by position meanwhile
    assert [r["document"]["id"] for r in before["results"]] == [
        world.d1.pk,
        world.d2.pk,
        world.d3.pk,
    ]
    assert before["count"] == 3 and before["results"][0]["annotators"] == 2
    assert before["results"][0]["document"]["length"] == len(world.d1.text)
    result = AgreementResult.objects.get(project=world.p1)
    assert agreement_jobs.compute(result.pk) == "done"
    after = reviewer.get(queue_url).json()
    assert after["agreement"] == {"status": "done"}
    rows = after["results"]
    keys = agreement_jobs.document_sort_keys(world.p1)
    assert [r["sort_key"] for r in rows] == [keys[r["document"]["id"]] for r in rows]
    assert [r["sort_key"] for r in rows] == sorted((r["sort_key"] for r in rows), reverse=True)
    # the annotators differ on three of d1's four sentences, on two of d3's; d2 (full
    # agreement) comes last with none
    assert [(r["document"]["id"], r["sort_key"]) for r in rows] == [
        (world.d1.pk, 0.75),
        (world.d3.pk, 0.5),
        (world.d2.pk, 0.0),
    ]
    assert not any(r["adjudicated"] for r in rows)
    reviewer.put(
        url(world),
        {"revision": 0, "spans": [{"start": S0[0], "end": S0[1], "labels": ["ad hominem"]}]},
        format="json",
    )
    page = reviewer.get(queue_url, {"page": 1, "page_size": 1}).json()
    assert page["count"] == 3 and len(page["results"]) == 1
    adjudicated = {
        r["document"]["id"]: r["adjudicated"] for r in reviewer.get(queue_url).json()["results"]
    }
    assert adjudicated == {world.d1.pk: True, world.d2.pk: False, world.d3.pk: False}
    assert reviewer.get(queue_url, {"page_size": 0}).status_code == 400
