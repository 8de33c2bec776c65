"""The previous and next document of the adjudication queue (the adjudication page's buttons
and keys): the queue page's order, highest disagreement first; reviewers and admins of the
project only."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from annotations.models import Annotation, Document, Span
from tests.support.factories import BOUNDS, World, make_world

S0, S1, S2 = BOUNDS[0], BOUNDS[1], BOUNDS[2]


def client_for(user: Any) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def submitted(doc: Document, user: Any, ranges: list[tuple[tuple[int, int], list[str]]]) -> None:
    annotation, _ = Annotation.objects.update_or_create(
        document=doc,
        annotator=user,
        defaults={"status": "submitted", "submitted_at": timezone.now()},
    )
    for (start, end), labels in ranges:
        Span.objects.create(annotation=annotation, start=start, end=end, labels=labels)


@pytest.fixture
def world(db: None) -> World:
    """d1: the annotators differ on 3 of 4 sentences; d3: on 2; d2: they agree."""
    world = make_world()
    # the scorer refuses two documents with the same text: same sentences, other words
    Document.objects.filter(pk=world.d2.pk).update(text=world.d2.text.replace("Smith", "Jones"))
    Document.objects.filter(pk=world.d3.pk).update(text=world.d3.text.replace("taxes", "roads"))
    submitted(world.d1, world.ann1, [(S0, ["ad hominem"]), (S2, ["slippery slope"])])
    submitted(world.d1, world.ann2, [((S0[0], S1[1]), ["slippery slope"])])
    submitted(world.d2, world.ann1, [(S0, ["ad hominem"])])
    submitted(world.d2, world.ann2, [(S0, ["ad hominem"])])
    submitted(world.d3, world.ann1, [(S0, ["ad hominem"])])
    submitted(world.d3, world.ann2, [(S1, ["slippery slope"])])
    return world


def queue_ids(client: APIClient, world: World) -> list[int]:
    body = client.get(f"/api/projects/{world.p1.pk}/adjudication/").json()
    return [r["document"]["id"] for r in body["results"]]


def neighbours(client: APIClient, doc_id: int) -> Any:
    return client.get(f"/api/documents/{doc_id}/adjudication/neighbours/")


def walk(client: APIClient, first: int) -> list[int]:
    """The documents reached from ``first`` by following ``next`` to the end."""
    seen = [first]
    while (step := neighbours(client, seen[-1]).json()["next"]) is not None:
        seen.append(step["id"])
    return seen


def test_neighbours_follow_the_queue_pages_order_before_and_after_the_agreement(world) -> None:
    from evaluation.agreement import jobs as agreement_jobs
    from evaluation.models import AgreementResult

    reviewer = client_for(world.reviewer)
    # before the figures: by position, as the queue page
    assert queue_ids(reviewer, world) == [world.d1.pk, world.d2.pk, world.d3.pk]
    assert walk(reviewer, world.d1.pk) == [world.d1.pk, world.d2.pk, world.d3.pk]
    assert agreement_jobs.compute(AgreementResult.objects.get(project=world.p1).pk) == "done"
    order = queue_ids(reviewer, world)
    assert order == [world.d1.pk, world.d3.pk, world.d2.pk]  # highest disagreement first
    assert walk(reviewer, order[0]) == order
    for i, doc_id in enumerate(order):
        body = neighbours(reviewer, doc_id).json()
        assert body["queue"] == "adjudication"
        assert (body["position"], body["total"]) == (i + 1, 3)
        assert (body["previous"] or {}).get("id") == (order[i - 1] if i else None)
        assert (body["next"] or {}).get("id") == (order[i + 1] if i < 2 else None)
    assert neighbours(reviewer, order[1]).json()["previous"] == {
        "id": world.d1.pk,
        "name": world.d1.name,
    }
    # the admin of the project sees the same queue
    assert walk(client_for(world.admin), order[0]) == order


def test_a_document_outside_the_queue_has_no_position_and_leads_to_its_first(world) -> None:
    Annotation.objects.filter(document=world.d1).update(status="in_progress")
    reviewer = client_for(world.reviewer)
    body = neighbours(reviewer, world.d1.pk).json()
    assert body["position"] is None and body["total"] == 2
    assert body["previous"] is None and body["next"]["id"] == queue_ids(reviewer, world)[0]


def test_only_the_projects_reviewers_and_admins_see_the_neighbours(world) -> None:
    for user in (world.ann1, world.ann2, world.outsider):
        assert neighbours(client_for(user), world.d1.pk).status_code == 404
    assert neighbours(client_for(world.reviewer), world.d4.pk).status_code == 404  # other project
    assert neighbours(client_for(world.reviewer), 10**9).status_code == 404
    assert neighbours(APIClient(), world.d1.pk).status_code in (401, 403)


def test_decided_documents_go_last_and_the_longest_text_breaks_a_tie(world) -> None:
    from evaluation.agreement import jobs as agreement_jobs
    from evaluation.models import AgreementResult

    reviewer = client_for(world.reviewer)
    queue_ids(reviewer, world)  # the first read starts the agreement figures
    assert agreement_jobs.compute(AgreementResult.objects.get(project=world.p1).pk) == "done"
    assert queue_ids(reviewer, world) == [world.d1.pk, world.d3.pk, world.d2.pk]
    # deciding the document with the most disagreement moves it after the undecided ones
    saved = reviewer.put(
        f"/api/documents/{world.d1.pk}/adjudication/",
        {"revision": 0, "spans": [{"start": S0[0], "end": S0[1], "labels": ["ad hominem"]}]},
        format="json",
    )
    assert saved.status_code == 200
    body = reviewer.get(f"/api/projects/{world.p1.pk}/adjudication/").json()
    assert [r["document"]["id"] for r in body["results"]] == [world.d3.pk, world.d2.pk, world.d1.pk]
    assert [r["adjudicated"] for r in body["results"]] == [False, False, True]
    assert body["undecided"] == 2
    # the previous / next buttons follow the same order
    assert walk(reviewer, world.d3.pk) == [world.d3.pk, world.d2.pk, world.d1.pk]


def test_before_the_figures_the_longest_undecided_text_comes_first(world) -> None:
    Document.objects.filter(pk=world.d3.pk).update(text=world.d3.text + " One more sentence.")
    reviewer = client_for(world.reviewer)
    assert queue_ids(reviewer, world) == [world.d3.pk, world.d1.pk, world.d2.pk]
