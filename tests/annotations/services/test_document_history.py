"""A document's history: every change to its annotations, spans and gold draft rows, with
who, when, before and after (django-simple-history), for the project's reviewers and admins."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from annotations.labels import NO_FALLACY
from annotations.models import Annotation, Span
from tests.support.factories import BOUNDS, PASSWORD, World, make_world

pytestmark = pytest.mark.django_db

S0, S1, S2, _ = BOUNDS


@pytest.fixture
def world(db: None) -> World:
    return make_world()


def client_for(user: Any) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def history(world: World, user: Any | None = None, document=None) -> list[dict[str, Any]]:
    document = document or world.d1
    response = client_for(user or world.reviewer).get(f"/api/documents/{document.pk}/history/")
    assert response.status_code == 200, response.content
    return response.json()["results"]


def one(entries: list[dict], **match: Any) -> dict[str, Any]:
    found = [e for e in entries if all(e[k] == v for k, v in match.items())]
    assert len(found) == 1, (match, entries)
    return found[0]


def change(entry: dict, field: str) -> tuple[Any, Any]:
    (found,) = [(c["before"], c["after"]) for c in entry["changes"] if c["field"] == field]
    return found


def test_annotation_api_changes_are_recorded_with_who_and_before_after(world: World) -> None:
    ann1 = client_for(world.ann1)
    created = ann1.post(
        f"/api/annotations/{world.a1.pk}/spans/",
        {"start": S1[0], "end": S1[1], "labels": ["ad hominem"]},
        format="json",
    ).json()
    patched = ann1.patch(
        f"/api/spans/{created['id']}/",
        {"revision": 1, "labels": ["ad hominem", NO_FALLACY]},
        format="json",
    )
    assert patched.status_code == 200
    assert ann1.delete(f"/api/spans/{created['id']}/?revision=2").status_code == 204
    revision = Annotation.objects.get(pk=world.a1.pk).revision
    submitted = ann1.post(
        f"/api/annotations/{world.a1.pk}/submit/", {"revision": revision}, format="json"
    )
    assert submitted.status_code == 200, submitted.content

    entries = history(world)
    spans = [e for e in entries if e["kind"] == "span"]
    assert [e["action"] for e in spans] == ["deleted", "changed", "created"]  # newest first
    assert all(e["user"] == "ann1" and e["owner"] == "annotator ann1" for e in spans)
    assert all(e["object_id"] == created["id"] for e in spans)
    assert change(one(spans, action="created"), "labels") == (None, ["ad hominem"])
    assert change(one(spans, action="changed"), "labels") == (
        ["ad hominem"],
        ["ad hominem", NO_FALLACY],
    )
    assert change(one(spans, action="deleted"), "labels") == (["ad hominem", NO_FALLACY], None)
    status = [
        e
        for e in entries
        if e["kind"] == "annotation"
        and any(c["field"] == "status" for c in e["changes"])
        and e["action"] == "changed"
    ]
    assert status and status[0]["user"] == "ann1"
    assert change(status[0], "status") == ("in_progress", "submitted")
    assert [e["at"] for e in entries] == sorted((e["at"] for e in entries), reverse=True)
    assert all(e["at"] for e in entries)


def test_gold_draft_changes_are_recorded(world: World) -> None:
    reviewer, admin = client_for(world.reviewer), client_for(world.admin)
    url = f"/api/documents/{world.d1.pk}/adjudication/"
    span = {"start": S0[0], "end": S0[1], "labels": ["ad hominem"]}
    assert reviewer.put(url, {"revision": 0, "spans": [span]}, format="json").status_code == 200
    changed = {**span, "labels": ["ad hominem", "slippery slope"]}
    assert (
        admin.put(
            url, {"revision": 1, "spans": [changed], "comments": ["checked"]}, format="json"
        ).status_code
        == 200
    )
    assert admin.put(url, {"revision": 2, "spans": []}, format="json").status_code == 200

    entries = history(world, world.admin)
    gold_spans = [e for e in entries if e["kind"] == "gold_span"]
    assert [(e["action"], e["user"]) for e in gold_spans] == [
        ("deleted", "admin"),
        ("changed", "admin"),
        ("created", "reviewer"),
    ]
    assert all(e["owner"] == "gold v2 (draft)" for e in gold_spans)
    assert change(gold_spans[1], "labels") == (["ad hominem"], ["ad hominem", "slippery slope"])
    assert change(gold_spans[0], "labels") == (["ad hominem", "slippery slope"], None)
    documents = [e for e in entries if e["kind"] == "gold_document"]
    assert documents[-1]["action"] == "created" and documents[-1]["user"] == "reviewer"
    comments = [e for e in documents if any(c["field"] == "comments" for c in e["changes"])]
    assert [e["user"] for e in comments] == ["admin", "reviewer"]
    assert change(comments[0], "comments") == ([], ["checked"])


def test_spans_of_imported_annotations_are_recorded_too(world: World) -> None:
    """Imports bulk-create annotations (no history row); later span changes still show."""
    (annotation,) = Annotation.objects.bulk_create(
        [Annotation(document=world.d3, annotator=world.ann2)]
    )
    assert not Annotation.history.filter(id=annotation.pk).exists()
    Span.objects.create(annotation=annotation, start=S2[0], end=S2[1], labels=["slippery slope"])
    (entry,) = history(world, document=world.d3)
    assert (entry["kind"], entry["action"], entry["owner"]) == ("span", "created", "annotator ann2")
    assert entry["user"] is None  # not made in a request


def test_only_the_projects_staff_see_the_history(world: World) -> None:
    url = f"/api/documents/{world.d1.pk}/history/"
    for user in (world.ann1, world.ann2, world.outsider):
        assert client_for(user).get(url).status_code == 404, user
    assert APIClient().get(url).status_code in (401, 403)
    root = User.objects.create_superuser("root", password=PASSWORD)
    for user in (world.reviewer, world.admin, root):
        assert client_for(user).get(url).status_code == 200, user
    # a reviewer of another project does not see it either
    other = User.objects.create_user("other-reviewer", password=PASSWORD)
    world.p2.memberships.create(user=other, role="reviewer")
    assert client_for(other).get(url).status_code == 404


def test_history_managers_share_one_class_and_stay_bound(world: World) -> None:
    """``annotations.history``: the manager class of ``instance.history`` is built once;
    each manager still reads the history of its own instance."""
    client = client_for(world.ann1)
    made = [
        client.post(
            f"/api/annotations/{world.a1.pk}/spans/",
            {"start": start, "end": end, "labels": ["ad hominem"]},
            format="json",
        ).json()
        for start, end in (S0, S1)
    ]
    first, second = (Span.objects.get(pk=span["id"]) for span in made)
    assert type(first.history) is type(second.history) is type(Span.history)
    changed = client.patch(
        f"/api/spans/{first.pk}/",
        {"revision": 1, "labels": ["ad hominem", NO_FALLACY]},
        format="json",
    )
    assert changed.status_code == 200, changed.content
    assert [h.history_type for h in first.history.order_by("history_id")] == ["+", "~"]
    assert [h.history_type for h in second.history.all()] == ["+"]


def test_history_names_users_not_ids_and_quotes_the_spans_text(world: World) -> None:
    Span.objects.create(annotation=world.a1, start=S0[0], end=S0[1], labels=["ad hominem"])
    Annotation.objects.filter(pk=world.a1.pk).update(status="submitted")
    url = f"/api/documents/{world.d1.pk}/adjudication/"
    span = {
        "start": S0[0],
        "end": S0[1],
        "labels": ["ad hominem"],
        "proposed_by": {"ad hominem": [world.ann1.pk]},
    }
    assert client_for(world.reviewer).put(url, {"revision": 0, "spans": [span]}, format="json")
    changed = {**span, "labels": ["ad hominem", "slippery slope"]}
    saved = client_for(world.admin).put(url, {"revision": 1, "spans": [changed]}, format="json")
    assert saved.status_code == 200, saved.content

    entries = history(world, world.admin)
    documents = [e for e in entries if e["kind"] == "gold_document"]
    assert change(documents[0], "updated_by") == ("reviewer", "admin")
    gold_span = one(entries, kind="gold_span", action="created")
    assert change(gold_span, "proposed_by")[1] == {"ad hominem": ["ann1"]}
    assert gold_span["excerpt"] == " ".join(world.d1.text[S0[0] : S0[1]].split())
    users = [
        v
        for e in entries
        for c in e["changes"]
        if c["field"] in ("updated_by", "annotator")
        for v in (c["before"], c["after"])
    ]
    assert users and all(v is None or isinstance(v, str) for v in users)
