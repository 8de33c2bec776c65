"""Who may reach the review endpoints (agreement, adjudication, gold versions, history).

Every endpoint of the review features × every role: anonymous users are refused (401/403),
annotators of the project and of another project get 404 (neither other annotators' work nor
any gold standard exists for them before review), reviewers and admins get the data. Writes
(saving a document's gold draft, publishing) change nothing when refused.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest
from django.test import Client
from django.utils import timezone

from annotations.models import Annotation, GoldDocument, GoldSpan, GoldStandard, Span
from tests.support.factories import BOUNDS, PASSWORD, World, make_world

ROLES = ("anonymous", "annotator", "other_annotator", "reviewer", "admin")
STAFF = {"reviewer", "admin"}


@dataclass
class Review:
    world: World
    published: GoldStandard


@pytest.fixture
def review(db: None) -> Review:
    world = make_world()
    # Two annotators submitted different labels on the first sentence of d1.
    start, end = BOUNDS[0]
    Span.objects.create(annotation=world.a1, start=start, end=end, labels=["ad hominem"])
    Span.objects.create(annotation=world.a2, start=start, end=end, labels=["slippery slope"])
    Annotation.objects.filter(pk__in=[world.a1.pk, world.a2.pk]).update(
        status="submitted", submitted_at=timezone.now()
    )
    # The world's draft of P1 is not the adjudication draft; a published version 2 exists.
    published = GoldStandard.objects.create(project=world.p1, version=2, source="file")
    GoldDocument.objects.create(gold_standard=published, document=world.d1)
    GoldSpan.objects.create(
        gold_standard=published, document=world.d1, start=start, end=end, labels=["ad hominem"]
    )
    GoldStandard.objects.filter(pk=published.pk).update(
        status="published", published_at=timezone.now()
    )
    published.refresh_from_db()
    return Review(world, published)


def client_for(review: Review, role: str) -> Client:
    client = Client()
    username = {
        "annotator": "ann1",
        "other_annotator": "outsider",
        "reviewer": "reviewer",
        "admin": "admin",
    }.get(role)
    if username:
        assert client.login(username=username, password=PASSWORD)
    return client


def get_endpoints(review: Review) -> dict[str, str]:
    p1, d1, version = review.world.p1.pk, review.world.d1.pk, review.published.version
    return {
        "agreement": f"/api/evaluation/projects/{p1}/agreement/",
        "agreement of a document": f"/api/evaluation/projects/{p1}/agreement/?document={d1}",
        "legacy agreement": f"/api/evaluation/agreement/?gold_standard={review.published.pk}",
        "gold versions": f"/api/projects/{p1}/gold/",
        "gold version": f"/api/projects/{p1}/gold/{version}/",
        "gold export": f"/api/projects/{p1}/gold/{version}/export/",
        "adjudication queue": f"/api/projects/{p1}/adjudication/",
        "adjudication of a document": f"/api/documents/{d1}/adjudication/",
        "history": f"/api/documents/{d1}/history/",
    }


def refused(role: str, status: int) -> bool:
    return status in (401, 403) if role == "anonymous" else status == 404


@pytest.mark.parametrize("role", ROLES)
def test_reads(review: Review, role: str) -> None:
    client = client_for(review, role)
    for name, url in get_endpoints(review).items():
        response = client.get(url)
        if role in STAFF:
            assert response.status_code in (200, 202), (name, response.status_code)
        else:
            assert refused(role, response.status_code), (name, response.status_code)
            body = response.content.decode()
            # nothing of the annotators' work or the gold leaks into an error body
            assert "slippery slope" not in body and "ad hominem" not in body, name


def adjudicate(client: Client, document_id: int) -> tuple[int, dict]:
    """Load the document's adjudication state, then save one gold span with two alternatives."""
    loaded = client.get(f"/api/documents/{document_id}/adjudication/")
    revision = loaded.json()["gold"]["revision"] if loaded.status_code == 200 else 0
    start, end = BOUNDS[0]
    response = client.put(
        f"/api/documents/{document_id}/adjudication/",
        {
            "revision": revision,
            "spans": [{"start": start, "end": end, "labels": ["ad hominem", "slippery slope"]}],
        },
        content_type="application/json",
    )
    return response.status_code, response.json() if response.content else {}


def publish(client: Client, project_id: int) -> int:
    return client.post(
        f"/api/projects/{project_id}/gold/publish/",
        {"note": "adjudicated"},
        content_type="application/json",
    ).status_code


def state(review: Review) -> tuple:
    p1 = review.world.p1
    return (
        list(p1.gold_standards.order_by("pk").values_list("pk", "version", "status")),
        list(
            GoldSpan.objects.filter(gold_standard__project=p1)
            .order_by("pk")
            .values_list("pk", "labels")
        ),
    )


@pytest.mark.parametrize("role", ROLES)
def test_writes(review: Review, role: str) -> None:
    client = client_for(review, role)
    world = review.world
    before = state(review)
    saved, _ = adjudicate(client, world.d1.pk)
    if role not in STAFF:
        assert refused(role, saved), saved
        assert refused(role, publish(client, world.p1.pk))
        assert state(review) == before
        return
    assert saved == 200
    assert publish(client, world.p1.pk) == 201
    newest = world.p1.gold_standards.filter(status="published").order_by("-version").first()
    assert newest.version == 3 and newest.published_by.username == role
    labels = GoldSpan.objects.filter(gold_standard=newest).values_list("labels", flat=True)
    assert sorted(labels) == [["ad hominem", "slippery slope"]]


WRITE_ELSEWHERE: dict[str, Callable[[Client, World], int]] = {
    "save a document of another project": lambda c, w: adjudicate(c, w.d4.pk)[0],
    "publish another project": lambda c, w: publish(c, w.p2.pk),
}


@pytest.mark.parametrize("action", list(WRITE_ELSEWHERE))
def test_staff_of_one_project_cannot_write_another(review: Review, action: str) -> None:
    client = client_for(review, "reviewer")
    before = state(review), list(GoldStandard.objects.filter(project=review.world.p2).values())
    assert WRITE_ELSEWHERE[action](client, review.world) == 404
    assert (state(review), list(GoldStandard.objects.filter(project=review.world.p2).values())) == (
        before
    )
