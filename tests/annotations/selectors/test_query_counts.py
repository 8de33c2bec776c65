"""The read path's SQL: opening a document, the document list's first page and the project
list each take a fixed number of queries, whatever the number of documents, sentences,
spans or annotators (a request that grows a query fails here; change the figure only
with a reason). Also: opening a document is one call that equals the two it replaces,
writes nothing and keeps role visibility; the project list, read with hand-written SQL,
is what the ORM and its serializer give."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from annotations.api.serializers import ProjectListSerializer
from annotations.models import (
    Annotation,
    Assignment,
    Document,
    Membership,
    Project,
    Sentence,
    Span,
)
from annotations.selectors.access import projects_for
from annotations.selectors.annotations import progress_for
from annotations.selectors.opening import project_with_role
from tests.support.factories import make_taxonomy

pytestmark = pytest.mark.django_db

# the user is 1 of each (authentication; the session is read from the cache)
OPEN_QUERIES = 5  # + document (role, assigned, kind), sentences, annotations, spans
# + project & role & my count, the page (rows, assignments, annotations; annotators: rows
# with their annotation) in one statement
LIST_STAFF_QUERIES = LIST_ANNOTATOR_QUERIES = 3
LIST_SEARCH_QUERIES = 5  # + the count and the page's ids of a search, before the rows
# + the page with my role and progress (the counters) and the list's size, in one statement
PROJECTS_QUERIES = PROJECTS_ANNOTATOR_QUERIES = 2


def build(documents: int, spans: int) -> dict[str, Any]:
    """A project with ``documents`` documents, 3 annotators (2 per document, annotations on
    half), and document 0 with ``spans`` spans by annotator a and 3 by b."""
    taxonomy = make_taxonomy()
    label = taxonomy.nodes.filter(level=2).values_list("name", flat=True).first()
    project = Project.objects.create(name="Counted", taxonomy=taxonomy, annotators_per_document=2)
    users = {n: User.objects.create_user(n) for n in ("a", "b", "c", "rev")}
    for n in ("a", "b", "c"):
        Membership.objects.create(project=project, user=users[n], role="annotator")
    Membership.objects.create(project=project, user=users["rev"], role="reviewer")
    docs = Document.objects.bulk_create(
        Document(project=project, text="One. Two. Three. Four.", position=i)
        for i in range(documents)
    )
    Sentence.objects.bulk_create(
        Sentence(document=d, index=i, start=5 * i, end=5 * i + 4 if i < 3 else 22)
        for d in docs
        for i in range(4)
    )
    team = [users["a"], users["b"], users["c"]]
    Assignment.objects.bulk_create(
        Assignment(document=d, annotator=team[(i + k) % 3])
        for i, d in enumerate(docs)
        for k in (0, 1)
    )
    Annotation.objects.bulk_create(
        Annotation(
            document=d, annotator=team[i % 3], status="submitted" if i % 4 else "in_progress"
        )
        for i, d in enumerate(docs)
        if i % 2 == 0
    )
    opened = docs[0]
    mine = Annotation.objects.get(document=opened, annotator=users["a"])
    # b's is submitted; some of a's spans carry a client id and a filled template: every
    # kind of column value the open call converts by hand (tests compare it with the ORM's)
    theirs = Annotation.objects.create(
        document=opened, annotator=users["b"], status="submitted", submitted_at=timezone.now()
    )
    Span.objects.bulk_create(
        Span(
            annotation=mine,
            start=0,
            end=4 + (i % 2),
            labels=[label],
            client_id=uuid.uuid4() if i % 2 else None,
            details={label: {"slots": {"E": f"claim {i}"}, "explanation": "why"}}
            if i % 3 == 0
            else {},
        )
        for i in range(spans)
    )
    Span.objects.bulk_create(
        Span(annotation=theirs, start=5, end=9, labels=[label]) for _ in range(3)
    )
    return {"project": project, "doc": opened, **users}


def count(user: User, path: str) -> tuple[int, Any]:
    client = APIClient()
    client.force_login(user)
    client.get(path)  # warm: content types, taxonomy caches
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(path)
    assert response.status_code == 200, response.content
    return len(ctx.captured_queries), response.json()


@pytest.mark.parametrize("documents,spans", [(4, 2), (60, 50)])
def test_query_counts_do_not_grow(documents: int, spans: int) -> None:
    fx = build(documents, spans)
    project, doc = fx["project"], fx["doc"]
    n, body = count(fx["a"], f"/api/documents/{doc.pk}/open/")
    assert n == OPEN_QUERIES
    assert len(body["annotations"][0]["spans"]) == spans
    n, body = count(fx["rev"], f"/api/documents/{doc.pk}/open/")
    assert n == OPEN_QUERIES
    n, body = count(fx["rev"], f"/api/projects/{project.pk}/documents/")
    assert (n, body["count"]) == (LIST_STAFF_QUERIES, documents)
    n, body = count(fx["a"], f"/api/projects/{project.pk}/documents/")
    assert (n, body["count"]) == (
        LIST_ANNOTATOR_QUERIES,
        Assignment.objects.filter(annotator=fx["a"]).count(),
    )
    for who in ("rev", "a"):
        n, body = count(fx[who], f"/api/projects/{project.pk}/documents/?q=e&ordering=-length")
        assert n == LIST_SEARCH_QUERIES and body["results"], who
    n, _ = count(fx["rev"], "/api/projects/")
    assert n == PROJECTS_QUERIES
    n, _ = count(fx["a"], "/api/projects/")
    assert n == PROJECTS_ANNOTATOR_QUERIES


def test_open_is_the_two_calls_it_replaces_and_writes_nothing() -> None:
    fx = build(6, 5)
    doc = fx["doc"]
    for user in (fx["a"], fx["b"], fx["rev"]):
        client = APIClient()
        client.force_login(user)
        with CaptureQueriesContext(connection) as ctx:
            opened = client.get(f"/api/documents/{doc.pk}/open/").json()
        assert not [
            q["sql"] for q in ctx.captured_queries if not q["sql"].lstrip().startswith("SELECT")
        ]
        detail = client.get(f"/api/documents/{doc.pk}/").json()
        annotations = client.get(f"/api/documents/{doc.pk}/annotations/").json()
        assert opened == {**detail, "annotations": annotations}
    # an annotator sees only their own annotation; the reviewer sees both
    a = APIClient()
    a.force_login(fx["a"])
    mine = a.get(f"/api/documents/{doc.pk}/open/").json()["annotations"]
    assert [x["annotator"]["username"] for x in mine] == ["a"]
    rev = APIClient()
    rev.force_login(fx["rev"])
    both = rev.get(f"/api/documents/{doc.pk}/open/").json()["annotations"]
    assert [x["annotator"]["username"] for x in both] == ["a", "b"]


def test_open_refuses_what_the_user_may_not_see() -> None:
    fx = build(6, 1)
    unassigned = Document.objects.filter(project=fx["project"]).exclude(
        assignments__annotator=fx["c"]
    )[0]
    c = APIClient()
    c.force_login(fx["c"])
    assert c.get(f"/api/documents/{unassigned.pk}/open/").status_code == 404
    assert c.get("/api/documents/999999/open/").status_code == 404
    assert APIClient().get(f"/api/documents/{fx['doc'].pk}/open/").status_code in (401, 403)
    before = Annotation.objects.count()
    assigned = Assignment.objects.filter(annotator=fx["c"]).exclude(
        document__annotations__annotator=fx["c"]
    )[0]
    body = c.get(f"/api/documents/{assigned.document_id}/open/").json()
    assert (body["my_status"], body["annotations"]) == ("todo", [])
    assert Annotation.objects.count() == before  # opening creates nothing


def test_open_for_superusers_matches_the_two_calls() -> None:
    """A superuser without membership reads as admin; one who is an annotator member of the
    project sees only their own annotation, as the annotations endpoint says."""
    fx = build(4, 2)
    doc = fx["doc"]
    root = User.objects.create_superuser("root")
    member = User.objects.create_superuser("root-annotator")
    Membership.objects.create(project=fx["project"], user=member, role="annotator")
    for user, expected in ((root, ["a", "b"]), (member, [])):
        client = APIClient()
        client.force_login(user)
        opened = client.get(f"/api/documents/{doc.pk}/open/").json()
        detail = client.get(f"/api/documents/{doc.pk}/").json()
        annotations = client.get(f"/api/documents/{doc.pk}/annotations/").json()
        assert opened == {**detail, "annotations": annotations}
        assert [a["annotator"]["username"] for a in opened["annotations"]] == expected


def test_project_list_is_what_the_serializer_gives() -> None:
    """The project list, one statement, against ProjectListSerializer over the ORM's
    ``projects_for`` (active or archived, by name) with ``progress_for``: for staff,
    annotators, superusers with and without membership, and outsiders; pages past the
    end keep the count."""
    fx = build(6, 1)
    project = fx["project"]
    taxonomy = project.taxonomy
    archived = Project.objects.create(
        name="Archived", taxonomy=taxonomy, archived_at=timezone.now(), description="old"
    )
    Project.objects.create(name="Another", taxonomy=taxonomy, annotators_per_document=3)
    Membership.objects.create(project=archived, user=fx["a"], role="admin")
    root = User.objects.create_superuser("root")
    member = User.objects.create_superuser("root-annotator")
    Membership.objects.create(project=project, user=member, role="annotator")
    outsider = User.objects.create_user("outsider")
    for user in (fx["a"], fx["c"], fx["rev"], root, member, outsider):
        client = APIClient()
        client.force_login(user)
        for flag in (False, True):
            listed = projects_for(user).filter(archived_at__isnull=not flag).order_by("name")
            expected = ProjectListSerializer(
                listed, many=True, context={"progress": progress_for(user, list(listed))}
            ).data
            body = client.get(f"/api/projects/?archived={int(flag)}").json()
            assert body["results"] == json.loads(json.dumps(expected)), (user.username, flag)
            assert body["count"] == len(expected)
        active = client.get("/api/projects/").json()
        past = client.get("/api/projects/?limit=1&offset=5").json()
        assert (past["results"], past["count"]) == ([], active["count"])
        second = client.get("/api/projects/?limit=1&offset=1").json()
        assert second["results"] == active["results"][1:2]


def test_project_with_role_reads_five_columns_and_defers_the_rest() -> None:
    fx = build(2, 1)
    project = fx["project"]
    Project.objects.filter(pk=project.pk).update(form={"fields": []}, archived_at=timezone.now())
    for who, role in (("rev", "reviewer"), ("a", "annotator")):
        found = project_with_role(fx[who], project.pk)
        assert (found.my_role, found.name, found.annotators_per_document) == (role, "Counted", 2)
        with CaptureQueriesContext(connection) as ctx:
            # deferred: read on access, with the model field's conversions
            assert found.form == {"fields": []} and found.archived_at is not None
        assert len(ctx.captured_queries) == 2
    assert project_with_role(fx["a"], 999999) is None
    stranger = User.objects.create_user("stranger")
    assert project_with_role(stranger, project.pk).my_role is None
