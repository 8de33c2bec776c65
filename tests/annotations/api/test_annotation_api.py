"""The annotation REST API as the frontend and scripts use it."""

from __future__ import annotations

import threading
import uuid
from typing import Any

import pytest
from django.conf import settings
from django.db import connection
from rest_framework.test import APIClient

from annotations.models import Annotation, Span
from tests.support.factories import BOUNDS, PASSWORD, TEXT, World, make_world

pytestmark = pytest.mark.django_db

S0, S1, S2, S3 = BOUNDS  # sentence [start, end) ranges of every test document


@pytest.fixture
def world(db: None) -> World:
    return make_world()


def client_for(user: Any) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def span_url(span_id: int) -> str:
    return f"/api/spans/{span_id}/"


def create_span(client: APIClient, annotation_id: int, **body: Any) -> Any:
    payload = {"start": S1[0], "end": S1[1], "labels": ["ad hominem"], **body}
    return client.post(f"/api/annotations/{annotation_id}/spans/", payload, format="json")


def errors(response: Any) -> str:
    """All error messages of a 400 body as one string, field-prefixed."""
    return " | ".join(f"{k}: {m}" for k, msgs in response.json().items() for m in msgs)


# --- auth ---------------------------------------------------------------------------------


def test_session_login_flow_with_csrf(world: World) -> None:
    client = APIClient(enforce_csrf_checks=True)
    creds = {"username": "ann1", "password": PASSWORD}
    assert client.post("/api/auth/login/", creds, format="json").status_code == 403  # no token

    response = client.get("/api/auth/csrf/")
    assert response.status_code == 200 and response.json() == {}
    token = response.cookies["csrftoken"].value
    bad = client.post(
        "/api/auth/login/", {**creds, "password": "nope"}, format="json", HTTP_X_CSRFTOKEN=token
    )
    assert bad.status_code == 400
    ok = client.post("/api/auth/login/", creds, format="json", HTTP_X_CSRFTOKEN=token)
    assert ok.status_code == 200
    assert ok.json() == {"id": world.ann1.pk, "username": "ann1"}

    me = client.get("/api/auth/me/").json()
    assert me["username"] == "ann1" and me["is_staff"] is False
    assert me["projects"] == [
        {"id": world.p1.pk, "name": "P1", "role": "annotator", "archived": False}
    ]

    # Session writes need the (rotated) CSRF token.
    token = client.cookies["csrftoken"].value
    assert create_span(client, world.a1.pk).status_code == 403
    url = f"/api/annotations/{world.a1.pk}/spans/"
    body = {"start": S1[0], "end": S1[1], "labels": ["ad hominem"]}
    assert client.post(url, body, format="json", HTTP_X_CSRFTOKEN=token).status_code == 201

    assert client.post("/api/auth/logout/", HTTP_X_CSRFTOKEN=token).status_code == 204
    assert client.get("/api/auth/me/").status_code in (401, 403)


def test_anonymous_gets_403_everywhere(world: World) -> None:
    client = APIClient()
    for url in [
        "/api/auth/me/",
        "/api/projects/",
        f"/api/projects/{world.p1.pk}/",
        f"/api/documents/{world.d1.pk}/",
        f"/api/annotations/{world.a1.pk}/",
    ]:
        assert client.get(url).status_code in (401, 403), url
    assert create_span(client, world.a1.pk).status_code in (401, 403)


def test_token_auth_for_scripts(world: World) -> None:
    client = APIClient(enforce_csrf_checks=True)
    bad = client.post("/api/auth/token/", {"username": "ann1", "password": "x"}, format="json")
    assert bad.status_code == 400
    response = client.post(
        "/api/auth/token/", {"username": "ann1", "password": PASSWORD}, format="json"
    )
    assert response.status_code == 200
    client.credentials(HTTP_AUTHORIZATION=f"Token {response.json()['token']}")
    assert client.get("/api/auth/me/").json()["username"] == "ann1"
    assert create_span(client, world.a1.pk).status_code == 201  # no CSRF with a token


# --- projects and documents ---------------------------------------------------------------


def test_project_list_with_role_and_progress(world: World) -> None:
    Annotation.objects.filter(pk=world.a2.pk).update(status="submitted")
    body = client_for(world.ann1).get("/api/projects/").json()
    assert body["count"] == 1 and body["next"] is None and body["previous"] is None
    (project,) = body["results"]
    assert project["id"] == world.p1.pk and project["role"] == "annotator"
    assert project["taxonomy"] == world.taxonomy.pk
    assert project["progress"] == {"done": 0, "total": 2}

    (staff_view,) = client_for(world.reviewer).get("/api/projects/").json()["results"]
    assert staff_view["role"] == "reviewer"
    # Reviewers: documents with a submitted annotation out of all documents.
    assert staff_view["progress"] == {"done": 1, "total": 3, "assignments": 3, "submitted": 1}
    assert client_for(world.ann2).get("/api/projects/").json()["results"][0]["progress"] == {
        "done": 1,
        "total": 1,
    }


def test_project_detail_has_guidelines_and_taxonomy_tree(world: World) -> None:
    body = client_for(world.ann1).get(f"/api/projects/{world.p1.pk}/").json()
    assert body["guidelines"] == "# Be careful" and body["role"] == "annotator"
    tree = body["taxonomy"]
    assert tree["id"] == world.taxonomy.pk and tree["name"] == "mafalda"
    types = {t["name"]: t for c in tree["categories"] for t in c["types"]}
    assert types["ad hominem"]["slots"] == ["E", "P", "A"]
    assert client_for(world.ann1).get(f"/api/projects/{world.p2.pk}/").status_code == 404


def test_next_document_and_my_documents(world: World) -> None:
    client = client_for(world.ann1)
    assert client.get(f"/api/projects/{world.p1.pk}/next-document/").json() == {
        "document": world.d1.pk
    }
    docs = client.get(f"/api/projects/{world.p1.pk}/documents/").json()
    assert [(d["id"], d["status"]) for d in docs["results"]] == [
        (world.d1.pk, "in_progress"),
        (world.d2.pk, "todo"),
    ]
    assert docs["results"][0]["external_id"] == "doc-0" and docs["results"][0]["position"] == 0

    assert client.post(f"/api/annotations/{world.a1.pk}/submit/").status_code == 200
    assert client.get(f"/api/projects/{world.p1.pk}/next-document/").json() == {
        "document": world.d2.pk
    }
    statuses = [
        d["status"] for d in client.get(f"/api/projects/{world.p1.pk}/documents/").json()["results"]
    ]
    assert statuses == ["submitted", "todo"]
    # Nothing is assigned to a reviewer; other projects are invisible.
    reviewer = client_for(world.reviewer)
    assert reviewer.get(f"/api/projects/{world.p1.pk}/next-document/").json() == {"document": None}
    assert len(reviewer.get(f"/api/projects/{world.p1.pk}/documents/").json()["results"]) == 3
    assert client.get(f"/api/projects/{world.p2.pk}/next-document/").status_code == 404
    assert client.get(f"/api/projects/{world.p2.pk}/documents/").status_code == 404


def test_document_detail_and_visibility(world: World) -> None:
    client = client_for(world.ann1)
    body = client.get(f"/api/documents/{world.d1.pk}/").json()
    assert body["text"] == TEXT and body["project"] == world.p1.pk
    assert body["sentences"][1] == {"index": 1, "start": S1[0], "end": S1[1]}
    assert client.get(f"/api/documents/{world.d3.pk}/").status_code == 404  # not assigned
    assert client.get(f"/api/documents/{world.d4.pk}/").status_code == 404  # other project
    assert client_for(world.reviewer).get(f"/api/documents/{world.d3.pk}/").status_code == 200


def test_my_annotation_get_or_create(world: World) -> None:
    client = client_for(world.ann1)
    url = f"/api/documents/{world.d2.pk}/my-annotation/"
    assert client.get(url).status_code == 404
    created = client.post(url)
    assert created.status_code == 201
    body = created.json()
    assert body["annotator"] == world.ann1.pk and body["status"] == "in_progress"
    assert body["spans"] == [] and body["document"] == world.d2.pk
    again = client.post(url)
    assert again.status_code == 200 and again.json()["id"] == body["id"]
    assert client.get(url).json()["id"] == body["id"]
    # Invisible documents: 404; visible but not assigned (reviewer): 403.
    assert client.post(f"/api/documents/{world.d3.pk}/my-annotation/").status_code == 404
    reviewer = client_for(world.reviewer)
    assert reviewer.post(f"/api/documents/{world.d3.pk}/my-annotation/").status_code == 403


# --- spans ----------------------------------------------------------------------------------


def test_create_span_canonicalises_labels_and_bumps_revisions(world: World) -> None:
    client = client_for(world.ann1)
    response = create_span(
        client,
        world.a1.pk,
        start=S1[0],
        end=S2[1],
        labels=["Slippery Slope", "No Fallacy", "personal attack"],
        details={"AD HOMINEM": {"slots": {"e": "Smith"}, "explanation": "attacks Smith"}},
    )
    assert response.status_code == 201, response.json()
    span = response.json()
    assert span["labels"] == ["ad hominem", "no fallacy", "slippery slope"]
    assert span["details"] == {
        "ad hominem": {"slots": {"E": "Smith"}, "explanation": "attacks Smith"}
    }
    assert (span["start"], span["end"], span["revision"]) == (S1[0], S2[1], 1)
    annotation = client.get(f"/api/annotations/{world.a1.pk}/").json()
    assert annotation["revision"] == 2 and [s["id"] for s in annotation["spans"]] == [span["id"]]


def test_create_is_idempotent_on_client_id(world: World) -> None:
    client = client_for(world.ann1)
    client_id = str(uuid.uuid4())
    first = create_span(client, world.a1.pk, client_id=client_id)
    assert first.status_code == 201 and first.json()["client_id"] == client_id
    retry = create_span(client, world.a1.pk, client_id=client_id)
    assert retry.status_code == 200 and retry.json() == first.json()
    assert Span.objects.filter(annotation=world.a1).count() == 1
    assert Annotation.objects.get(pk=world.a1.pk).revision == 2  # the retry wrote nothing
    assert create_span(client, world.a1.pk, client_id="not-a-uuid").status_code == 400


TAXONOMY = "mafalda v1.0"


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"start": len(TEXT) + 5}, "start", "outside the text"),
        ({"end": len(TEXT) + 5}, "end", "outside the text"),
        ({"start": -1}, "start", "greater than or equal to 0"),
        ({"start": S2[0], "end": S1[1]}, "end", "must be greater than start"),
        ({"start": S1[0] + 3}, "start", f"{S1[0] + 3} is not the start of a sentence"),
        ({"end": S1[1] - 1}, "end", f"{S1[1] - 1} is not the end of a sentence"),
        ({"labels": []}, "labels", "at least one label"),
        ({"labels": ["ad hominem", "Ad Hominem"]}, "labels", 'duplicates "ad hominem"'),
        ({"labels": ["no fallacy"]}, "labels", '"no fallacy" alone is not a span'),
        (
            {"labels": ["banana"]},
            "labels",
            f'"banana" is not a fallacy type of taxonomy {TAXONOMY}',
        ),
        ({"labels": ["fallacy of logic"]}, "labels", "it is a category"),
        (
            {"details": {"slippery slope": {"explanation": "x"}}},
            "details",
            '"slippery slope": it is not a label of this span',
        ),
        (
            {"labels": ["ad hominem", "no fallacy"], "details": {"no fallacy": {}}},
            "details",
            '"no fallacy" takes no details',
        ),
        (
            {"details": {"ad hominem": {"slots": {"Q": "x"}}}},
            "details",
            'ad hominem.slots: "Q" is not a slot of "ad hominem" (slots: E, P, A)',
        ),
        (
            {"details": {"ad hominem": {"slots": {"E": 3}}}},
            "details",
            "ad hominem.slots.E: must be a string",
        ),
        (
            {"details": {"ad hominem": {"explanation": ["x"]}}},
            "details",
            "ad hominem.explanation: must be a string",
        ),
        ({"details": {"ad hominem": "x"}}, "details", "ad hominem: must be an object"),
    ],
)
def test_create_span_validation_errors(
    world: World, body: dict[str, Any], field: str, message: str
) -> None:
    response = create_span(client_for(world.ann1), world.a1.pk, **body)
    assert response.status_code == 400
    assert field in response.json(), response.json()
    assert message in " ".join(response.json()[field]), response.json()
    assert not Span.objects.exists()


def test_sentence_error_lists_nearby_sentence_starts(world: World) -> None:
    response = create_span(client_for(world.ann1), world.a1.pk, start=13)
    assert errors(response) == (
        "start: 13 is not the start of a sentence "
        f"(sentences start at 0, {S1[0]}, {S2[0]}, {S3[0]})"
    )


def test_patch_span(world: World) -> None:
    client = client_for(world.ann1)
    span = create_span(
        client, world.a1.pk, details={"ad hominem": {"slots": {"E": "Smith"}}}
    ).json()
    response = client.patch(
        span_url(span["id"]),
        {"revision": 1, "labels": ["ad hominem", "slippery slope"], "end": S2[1]},
        format="json",
    )
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["revision"] == 2 and body["end"] == S2[1]
    assert body["labels"] == ["ad hominem", "slippery slope"]
    assert body["details"]["ad hominem"]["slots"] == {"E": "Smith"}  # kept
    # Removing a label drops its details.
    body = client.patch(
        span_url(span["id"]), {"revision": 2, "labels": ["slippery slope"]}, format="json"
    ).json()
    assert body["labels"] == ["slippery slope"] and body["details"] == {}
    assert Annotation.objects.get(pk=world.a1.pk).revision == 4
    # Validation on update names the span.
    bad = client.patch(span_url(span["id"]), {"revision": 3, "start": 2}, format="json")
    assert bad.status_code == 400
    assert bad.json()["start"][0].startswith(f"span {span['id']}: 2 is not the start")
    missing = client.patch(span_url(span["id"]), {"labels": ["ad hominem"]}, format="json")
    assert missing.status_code == 400 and "revision" in missing.json()


def test_stale_revision_conflicts(world: World) -> None:
    client = client_for(world.ann1)
    span = create_span(client, world.a1.pk).json()
    assert (
        client.patch(span_url(span["id"]), {"revision": 1, "end": S2[1]}, format="json").status_code
        == 200
    )
    stale = client.patch(
        span_url(span["id"]), {"revision": 1, "labels": ["slippery slope"]}, format="json"
    )
    assert stale.status_code == 409
    assert stale.json()["current"]["revision"] == 2
    assert stale.json()["current"]["labels"] == ["ad hominem"] and stale.json()["detail"]
    stale_delete = client.delete(span_url(span["id"]) + "?revision=1")
    assert stale_delete.status_code == 409 and stale_delete.json()["current"]["id"] == span["id"]
    assert client.delete(span_url(span["id"])).status_code == 400  # revision is required
    assert client.delete(span_url(span["id"]) + "?revision=2").status_code == 204
    assert client.delete(span_url(span["id"]) + "?revision=2").status_code == 404
    assert Annotation.objects.get(pk=world.a1.pk).revision == 4  # create, patch, delete


def test_submit_makes_read_only_until_reviewer_reopens(world: World) -> None:
    client = client_for(world.ann1)
    span = create_span(client, world.a1.pk).json()
    stale = client.post(f"/api/annotations/{world.a1.pk}/submit/", {"revision": 1}, format="json")
    assert stale.status_code == 409 and stale.json()["current"]["revision"] == 2
    submitted = client.post(
        f"/api/annotations/{world.a1.pk}/submit/", {"revision": 2}, format="json"
    )
    assert submitted.status_code == 200
    assert submitted.json()["status"] == "submitted" and submitted.json()["submitted_at"]

    read_only = "annotation: submitted annotations are read-only"
    assert errors(create_span(client, world.a1.pk)) == read_only
    patch = client.patch(span_url(span["id"]), {"revision": 1, "end": S2[1]}, format="json")
    assert patch.status_code == 400 and errors(patch) == read_only
    assert client.delete(span_url(span["id"]) + "?revision=1").status_code == 400

    assert client.post(f"/api/annotations/{world.a1.pk}/reopen/").status_code == 403
    reopened = client_for(world.reviewer).post(f"/api/annotations/{world.a1.pk}/reopen/")
    assert reopened.status_code == 200 and reopened.json()["status"] == "in_progress"
    assert reopened.json()["submitted_at"] is None
    assert (
        client.patch(span_url(span["id"]), {"revision": 1, "end": S2[1]}, format="json").status_code
        == 200
    )
    assert (
        client_for(world.admin).post(f"/api/annotations/{world.a1.pk}/reopen/").status_code == 200
    )


def test_other_peoples_annotations_are_404(world: World) -> None:
    owner = client_for(world.ann1)
    span = create_span(owner, world.a1.pk).json()
    for intruder in (world.ann2, world.outsider):
        client = client_for(intruder)
        assert client.get(f"/api/annotations/{world.a1.pk}/").status_code == 404
        assert client.get(f"/api/annotations/{world.a1.pk}/spans/").status_code == 404
        assert create_span(client, world.a1.pk).status_code == 404
        assert client.get(span_url(span["id"])).status_code == 404
        assert client.patch(span_url(span["id"]), {"revision": 1}, format="json").status_code == 404
        assert client.delete(span_url(span["id"]) + "?revision=1").status_code == 404
        assert client.post(f"/api/annotations/{world.a1.pk}/submit/").status_code == 404
        assert client.post(f"/api/annotations/{world.a1.pk}/reopen/").status_code == 404
    assert (
        client_for(world.reviewer).post(f"/api/annotations/{world.a4.pk}/reopen/").status_code
        == 404
    )


def test_reviewer_reads_but_does_not_write(world: World) -> None:
    span = create_span(client_for(world.ann1), world.a1.pk).json()
    reviewer = client_for(world.reviewer)
    body = reviewer.get(f"/api/annotations/{world.a1.pk}/").json()
    assert [s["id"] for s in body["spans"]] == [span["id"]]
    assert reviewer.get(span_url(span["id"])).status_code == 200
    assert create_span(reviewer, world.a1.pk).status_code == 404
    assert reviewer.patch(span_url(span["id"]), {"revision": 1}, format="json").status_code == 404
    assert reviewer.delete(span_url(span["id"]) + "?revision=1").status_code == 404
    assert reviewer.post(f"/api/annotations/{world.a1.pk}/submit/").status_code == 404
    assert Span.objects.get(pk=span["id"]).revision == 1


def test_openapi_schema_lists_span_paths(world: World) -> None:
    response = APIClient().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    schema = response.json()
    for path in [
        "/api/spans/{id}/",
        "/api/annotations/{id}/spans/",
        "/api/documents/{id}/my-annotation/",
        "/api/auth/login/",
    ]:
        assert path in schema["paths"], path
    assert set(schema["paths"]["/api/spans/{id}/"]) >= {"get", "patch", "delete"}


# --- real concurrency (PostgreSQL) --------------------------------------------------------


@pytest.mark.skipif(
    settings.DATABASE_VENDOR != "postgresql",
    reason="needs PostgreSQL row locks",
)
@pytest.mark.django_db(transaction=True)
def test_concurrent_patches_one_wins_one_conflicts() -> None:
    world = make_world()
    span = create_span(client_for(world.ann1), world.a1.pk).json()
    clients = [client_for(world.ann1), client_for(world.ann1)]
    labels = [["slippery slope"], ["hasty generalization"]]
    barrier = threading.Barrier(2)
    results: list[tuple[int, list[str]]] = []

    def patch(i: int) -> None:
        try:
            barrier.wait()
            response = clients[i].patch(
                span_url(span["id"]), {"revision": 1, "labels": labels[i]}, format="json"
            )
            results.append((response.status_code, labels[i]))
        finally:
            connection.close()

    threads = [threading.Thread(target=patch, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(code for code, _ in results) == [200, 409]
    winner = next(lab for code, lab in results if code == 200)
    stored = Span.objects.get(pk=span["id"])
    assert stored.labels == winner and stored.revision == 2
    assert Annotation.objects.get(pk=world.a1.pk).revision == 3


def test_sentence_hint_shows_a_window_around_the_offset() -> None:
    from annotations.spans import positions_near

    starts = list(range(0, 1000, 50))
    assert positions_near(starts, 13) == "0, 50, 100, 150, …"
    assert positions_near(starts, 512) == "…, 400, 450, 500, 550, 600, 650, …"
