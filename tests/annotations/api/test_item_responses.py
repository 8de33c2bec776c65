"""Annotators answering items through the REST API (GET/PATCH/PUT /api/documents/<id>/response/)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from rest_framework.test import APIClient

from annotations.models import Annotation, Assignment, Document, Membership, Project
from tests.support.factories import PASSWORD, make_taxonomy

pytestmark = pytest.mark.django_db

TEXT = "Smith says taxes are bad, but Smith is a known liar. So taxes are good."
CANDIDATE = "The argument attacks Smith instead of his claim."
FORM = {
    "fields": [
        {"name": "answer", "kind": "multiple-choice", "title": "Which option is right?"},
        {"name": "type", "kind": "classification", "labels": ["歧义", "偷换概念"]},
        {"name": "ranking", "kind": "ranked", "max": 2},
        {"name": "fallacious", "kind": "detection"},
        {"name": "spans", "kind": "segmentation"},
        {"name": "explanation", "kind": "free-text"},
        {"name": "quality", "kind": "likert", "anchors": {"1": "poor", "5": "excellent"}},
        {
            "name": "score",
            "kind": "rubric",
            "min": 1,
            "max": 3,
            "criteria": "Does the explanation name the flaw?",
            "examples": [{"score": 3, "text": "It attacks the person.", "why": "names it"}],
        },
    ]
}
GOLD = {"answer": "B", "type": "歧义", "ranking": ["ad hominem"], "fallacious": True}
OPTIONS = {"A": "a strawman", "B": "an ad hominem", "C": "no fallacy", "D": "a slippery slope"}
FULL = {
    "answer": "B",
    "type": "歧义",
    "ranking": ["ad hominem", "slippery slope"],
    "fallacious": True,
    "spans": [[26, 51, "ad hominem"]],
    "explanation": "It attacks Smith, not his claim.",
    "quality": 4,
    "score": 3,
}


@dataclass
class ItemWorld:
    project: Project
    item: Document
    other: Document  # in the project, assigned to nobody
    ann1: User
    ann2: User
    reviewer: User


def make_item_world() -> ItemWorld:
    taxonomy = make_taxonomy()
    project = Project.objects.create(name="Items", taxonomy=taxonomy, kind="items", form=FORM)
    users = {
        name: User.objects.create_user(name, password=PASSWORD)
        for name in ("ann1", "ann2", "reviewer")
    }
    for name, role in (("ann1", "annotator"), ("ann2", "annotator"), ("reviewer", "reviewer")):
        Membership.objects.create(project=project, user=users[name], role=role)
    metadata = {
        "format": "test",
        "record": {"id": 7, "answer": "B", "secret": "the record holds the key"},
        "options": OPTIONS,
        "candidate": CANDIDATE,
        "gold": GOLD,
    }
    item = Document.objects.create(project=project, text=TEXT, external_id="i1", metadata=metadata)
    other = Document.objects.create(
        project=project, text=TEXT, external_id="i2", position=1, metadata=metadata
    )
    for name in ("ann1", "ann2"):
        Assignment.objects.create(document=item, annotator=users[name])
    return ItemWorld(project, item, other, users["ann1"], users["ann2"], users["reviewer"])


@pytest.fixture
def world(db: None) -> ItemWorld:
    return make_item_world()


def client_for(user: User) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def url(document: Document, suffix: str = "") -> str:
    return f"/api/documents/{document.pk}/response/{suffix}"


def patch(client: APIClient, document: Document, response: dict, revision: Any) -> Any:
    return client.patch(url(document), {"response": response, "revision": revision}, format="json")


def test_get_shows_the_item_and_form_without_the_answer_key(world: ItemWorld) -> None:
    body = client_for(world.ann1).get(url(world.item)).json()
    assert body["document"]["text"] == TEXT
    assert body["document"]["options"] == OPTIONS
    assert body["document"]["candidate"] == CANDIDATE
    assert body["project"]["kind"] == "items" and body["annotation"] is None
    fields = {f["name"]: f for f in body["form"]["fields"]}
    assert [f["name"] for f in body["form"]["fields"]] == [f["name"] for f in FORM["fields"]]
    assert [label["name"] for label in fields["type"]["labels"]] == ["歧义", "偷换概念"]
    # no labels of its own: the taxonomy's types, with their definitions
    assert {label["name"] for label in fields["ranking"]["labels"]} == {
        "ad hominem",
        "slippery slope",
        "hasty generalization",
    }
    assert fields["ranking"]["max"] == 2
    assert (fields["quality"]["min"], fields["quality"]["max"]) == (1, 5)
    assert fields["quality"]["anchors"] == {"1": "poor", "5": "excellent"}
    assert fields["score"]["examples"][0]["score"] == 3 and fields["score"]["max"] == 3
    # the annotator never gets the answer key, in any form
    assert "gold" not in body
    raw = json.dumps(body, ensure_ascii=False)
    assert "the record holds the key" not in raw and "record" not in raw

    staff = client_for(world.reviewer).get(url(world.item)).json()
    assert staff["gold"] == GOLD
    # the page learns the kind from the document API, too
    doc = client_for(world.ann1).get(f"/api/documents/{world.item.pk}/").json()
    assert doc["project_kind"] == "items"


def test_annotator_saves_every_kind_and_patch_merges(world: ItemWorld) -> None:
    client = client_for(world.ann1)
    revision = None
    for name, value in FULL.items():  # one field at a time, as the page autosaves
        response = patch(client, world.item, {name: value}, revision)
        assert response.status_code == 200, response.json()
        revision = response.json()["annotation"]["revision"]
    body = client.get(url(world.item)).json()
    assert body["annotation"]["response"] == FULL
    assert body["annotation"]["status"] == "in_progress"
    annotation = Annotation.objects.get(document=world.item, annotator=world.ann1)
    assert annotation.response == FULL and annotation.revision == revision
    # every save is kept in the history
    saved = [h.response for h in annotation.history.order_by("history_id")]
    assert saved[-1] == FULL and {"answer": "B"} in saved

    # null clears a field, the rest stays; ranked [] is "no fallacy"
    response = patch(client, world.item, {"explanation": None, "ranking": []}, revision)
    assert response.status_code == 200
    after = response.json()["annotation"]
    assert "explanation" not in after["response"] and after["response"]["ranking"] == []
    assert after["response"]["answer"] == "B"
    # PUT replaces the whole response
    response = client.put(
        url(world.item),
        {"response": {"answer": "C"}, "revision": after["revision"]},
        format="json",
    )
    assert response.status_code == 200 and response.json()["annotation"]["response"] == {
        "answer": "C"
    }


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("answer", "E", "must be one of the options"),
        ("type", "ad hominem", "is not a label of this question"),
        ("ranking", ["ad hominem", "slippery slope", "hasty generalization"], "at most 2"),
        ("ranking", ["ad hominem", "ad hominem"], "ranked twice"),
        ("fallacious", "yes", "true (fallacious) or false"),
        ("spans", [[60, 200, "ad hominem"]], "outside the text"),
        ("spans", [[0, 5, "strawman"]], "not a label"),
        ("explanation", 12, "must be text"),
        ("quality", 6, "from 1 to 5"),
        ("score", 4, "from 1 to 3"),
        ("nonsense", 1, "the form has no such field"),
    ],
)
def test_validation_errors_name_the_field(
    world: ItemWorld, field: str, value: Any, message: str
) -> None:
    client = client_for(world.ann1)
    saved = patch(client, world.item, {"answer": "A"}, None).json()["annotation"]
    response = patch(client, world.item, {field: value}, saved["revision"])
    assert response.status_code == 400
    body = response.json()
    assert list(body) == [f"response.{field}"]
    assert message in body[f"response.{field}"][0]
    # nothing changed
    current = client.get(url(world.item)).json()["annotation"]
    assert current["response"] == {"answer": "A"} and current["revision"] == saved["revision"]


def test_stale_revision_is_a_conflict_and_nothing_is_lost(world: ItemWorld) -> None:
    tab1, tab2 = client_for(world.ann1), client_for(world.ann1)
    start = patch(tab1, world.item, {"answer": "A"}, None).json()["annotation"]["revision"]
    first = patch(tab1, world.item, {"answer": "B"}, start)
    assert first.status_code == 200
    stale = patch(tab2, world.item, {"explanation": "from the other tab"}, start)
    assert stale.status_code == 409
    current = stale.json()["current"]
    assert current["annotation"]["response"] == {"answer": "B"}
    assert current["annotation"]["revision"] == first.json()["annotation"]["revision"]
    assert "gold" not in current  # the conflict body is the annotator's view too
    # a first save (no revision) once the annotation exists is stale as well
    assert patch(tab2, world.item, {"answer": "C"}, None).status_code == 409
    # re-applied on the current revision, both changes are kept
    retry = patch(
        tab2, world.item, {"explanation": "from the other tab"}, current["annotation"]["revision"]
    )
    assert retry.status_code == 200
    assert retry.json()["annotation"]["response"] == {
        "answer": "B",
        "explanation": "from the other tab",
    }


def test_annotator_sees_only_their_own_response_of_assigned_items(world: ItemWorld) -> None:
    patch(client_for(world.ann2), world.item, {"answer": "D", "explanation": "ann2 secret"}, None)
    ann1 = client_for(world.ann1)
    mine = ann1.get(url(world.item)).json()
    assert mine["annotation"] is None and "ann2 secret" not in json.dumps(mine)
    assert ann1.get(url(world.item) + f"?annotator={world.ann2.pk}").status_code == 404
    # unassigned item: invisible
    assert ann1.get(url(world.other)).status_code == 404
    assert patch(ann1, world.other, {"answer": "A"}, None).status_code == 404
    # a reviewer sees ann2's response (and the gold)
    staff = client_for(world.reviewer).get(url(world.item) + f"?annotator={world.ann2.pk}")
    assert staff.status_code == 200
    assert staff.json()["annotation"]["response"]["explanation"] == "ann2 secret"
    assert staff.json()["annotation"]["annotator"]["username"] == "ann2"


def test_submit_needs_every_answer_field_and_reopen_by_reviewer(world: ItemWorld) -> None:
    client = client_for(world.ann1)
    partial = {k: v for k, v in FULL.items() if k not in ("spans", "quality", "score")}
    partial["explanation"] = "  "
    revision = patch(client, world.item, partial, None).json()["annotation"]["revision"]
    refused = client.post(url(world.item, "submit/"), {"revision": revision}, format="json")
    assert refused.status_code == 400
    assert set(refused.json()) == {"response.spans", "response.explanation"}
    # the span pages' submit route checks the answers of an item annotation too
    annotation_id = client.get(url(world.item)).json()["annotation"]["id"]
    via_span_route = client.post(
        f"/api/annotations/{annotation_id}/submit/", {"revision": revision}, format="json"
    )
    assert via_span_route.status_code == 400
    assert set(via_span_route.json()) == {"response.spans", "response.explanation"}
    # segmentation [] ("nothing to mark") answers it; ratings may stay out
    revision = patch(
        client, world.item, {"spans": [], "explanation": "ad hominem"}, revision
    ).json()["annotation"]["revision"]
    assert (
        client.post(url(world.item, "submit/"), {"revision": revision - 1}, format="json")
    ).status_code == 409
    done = client.post(url(world.item, "submit/"), {"revision": revision}, format="json")
    assert done.status_code == 200
    submitted = done.json()["annotation"]
    assert submitted["status"] == "submitted" and submitted["submitted_at"]
    # read-only now
    refused = patch(client, world.item, {"answer": "A"}, submitted["revision"])
    assert refused.status_code == 400 and "read-only" in refused.json()["annotation"][0]
    # only staff reopen
    body = {"annotator": world.ann1.pk}
    assert client.post(url(world.item, "reopen/"), body, format="json").status_code == 403
    reopened = client_for(world.reviewer).post(url(world.item, "reopen/"), body, format="json")
    assert reopened.status_code == 200
    assert reopened.json()["annotation"]["status"] == "in_progress"
    again = patch(client, world.item, {"answer": "A"}, reopened.json()["annotation"]["revision"])
    assert again.status_code == 200 and again.json()["annotation"]["response"]["answer"] == "A"


def test_archived_projects_and_span_projects_refuse_responses(world: ItemWorld) -> None:
    client = client_for(world.ann1)
    revision = patch(client, world.item, {"answer": "A"}, None).json()["annotation"]["revision"]
    Project.objects.filter(pk=world.project.pk).update(archived_at=timezone.now())
    refused = patch(client, world.item, {"answer": "B"}, revision)
    assert refused.status_code == 400 and "archived" in refused.json()["annotation"][0]

    Project.objects.filter(pk=world.project.pk).update(archived_at=None, kind="spans")
    refused = patch(client, world.item, {"answer": "B"}, revision)
    assert refused.status_code == 400 and "spans" in refused.json()["annotation"][0]
