"""The previous and next document of a user's queue (the document page's buttons and keys):
the annotator's assigned documents in queue order, submitted or not; a reviewer's documents
of the project in project order; nothing outside what the user may see."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from annotations.models import Annotation, Document
from annotations.services.annotations import submit_annotation
from tests.support.factories import World, make_document, make_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(db: None) -> World:
    return make_world()


def client_for(user: Any) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def neighbours(user: Any, doc: Document) -> Any:
    response = client_for(user).get(f"/api/documents/{doc.pk}/neighbours/")
    assert response.status_code == 200, response.content
    body = response.json()
    ids = lambda n: n and n["id"]  # noqa: E731
    return body["queue"], body["position"], body["total"], ids(body["previous"]), ids(body["next"])


def test_annotator_moves_through_assigned_documents_submitted_or_not(world: World) -> None:
    # ann1 has d1 (in progress) and d2; d3 is assigned to nobody
    assert neighbours(world.ann1, world.d1) == ("assigned", 1, 2, None, world.d2.pk)
    assert neighbours(world.ann1, world.d2) == ("assigned", 2, 2, world.d1.pk, None)
    submit_annotation(annotation=world.a1, by=world.ann1)
    assert neighbours(world.ann1, world.d1) == ("assigned", 1, 2, None, world.d2.pk)
    assert neighbours(world.ann1, world.d2) == ("assigned", 2, 2, world.d1.pk, None)
    body = client_for(world.ann1).get(f"/api/documents/{world.d1.pk}/neighbours/").json()
    assert body["next"] == {"id": world.d2.pk, "name": world.d2.name, "external_id": "doc-1"}
    # ann2 has only d1
    assert neighbours(world.ann2, world.d1) == ("assigned", 1, 1, None, None)


def test_reviewer_moves_through_the_project_in_project_order(world: World) -> None:
    # d4 of the other project never appears; equal positions keep the id order
    extra = make_document(world.p1, 1, "doc-extra")  # same position as d2, later id
    for user in (world.reviewer, world.admin):
        assert neighbours(user, world.d1) == ("project", 1, 4, None, world.d2.pk)
        assert neighbours(user, world.d2) == ("project", 2, 4, world.d1.pk, extra.pk)
        assert neighbours(user, extra) == ("project", 3, 4, world.d2.pk, world.d3.pk)
        assert neighbours(user, world.d3) == ("project", 4, 4, extra.pk, None)


def test_neighbours_follow_visibility(world: World) -> None:
    ann1 = client_for(world.ann1)
    assert ann1.get(f"/api/documents/{world.d3.pk}/neighbours/").status_code == 404
    assert ann1.get(f"/api/documents/{world.d4.pk}/neighbours/").status_code == 404
    assert ann1.get("/api/documents/999999/neighbours/").status_code == 404
    outsider = client_for(world.outsider)
    assert outsider.get(f"/api/documents/{world.d1.pk}/neighbours/").status_code == 404
    assert neighbours(world.outsider, world.d4) == ("assigned", 1, 1, None, None)
    assert APIClient().get(f"/api/documents/{world.d1.pk}/neighbours/").status_code in (401, 403)
    assert Annotation.objects.count() == 3  # reading created nothing


def test_a_reviewer_reading_one_annotator_walks_that_annotators_documents(world: World) -> None:
    # ann1 has annotations on d1 and d3 (not d2); ann2 only on d1
    Annotation.objects.create(document=world.d3, annotator=world.ann1)
    reviewer = client_for(world.reviewer)

    def around(doc: Document, annotator: Any) -> Any:
        url = f"/api/documents/{doc.pk}/neighbours/?annotator={annotator.pk}"
        body = reviewer.get(url).json()
        ids = lambda n: n and n["id"]  # noqa: E731
        return (
            body["queue"],
            body["position"],
            body["total"],
            ids(body["previous"]),
            ids(body["next"]),
        )

    assert around(world.d1, world.ann1) == ("annotator", 1, 2, None, world.d3.pk)
    assert around(world.d3, world.ann1) == ("annotator", 2, 2, world.d1.pk, None)
    assert around(world.d1, world.ann2) == ("annotator", 1, 1, None, None)
    # an annotator without an annotation on this document: the project's order
    assert around(world.d2, world.ann1)[0] == "project"
    # an annotator's own filter on someone else is not honoured
    own = client_for(world.ann2).get(
        f"/api/documents/{world.d1.pk}/neighbours/?annotator={world.ann1.pk}"
    )
    assert own.json()["queue"] == "assigned"
    bad = reviewer.get(f"/api/documents/{world.d1.pk}/neighbours/?annotator=x")
    assert bad.status_code == 400 and "annotator" in bad.json()
