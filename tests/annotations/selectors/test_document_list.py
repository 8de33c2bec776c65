"""The project's document list (pagination, search, filters, order, roles, per-document
counts), a document's annotations, and "opening a document creates nothing"."""

from __future__ import annotations

import datetime as dt
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from rest_framework.test import APIClient

from annotations.models import Annotation, Assignment, Document, Membership, Project, Span
from annotations.selectors.document_page import document_page
from annotations.selectors.documents import DocumentQuery
from tests.support.factories import make_taxonomy

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
try:
    import fenced  # bench/fenced.py: the stock idiom of the page, the figure's other side
finally:
    sys.path.pop(0)

pytestmark = pytest.mark.django_db

TEXTS = [  # (name, text): lengths all differ
    ("alpha", "Politicians lie all the time, so never trust them."),
    ("beta", "If we allow this, chaos will follow."),
    ("gamma", "Everyone knows the moon landing was staged, believe me."),
    ("delta", "My opponent was once late; his plan is worthless."),
    ("epsilon", "Buy now."),
]


@dataclass
class Site:
    project: Project
    other: Project
    docs: list[Document]
    a: User
    b: User
    c: User
    reviewer: User
    admin: User
    outsider: User

    def url(self, query: str = "") -> str:
        return f"/api/projects/{self.project.pk}/documents/{query}"


def make_site() -> Site:
    taxonomy = make_taxonomy()
    project = Project.objects.create(name="Study", taxonomy=taxonomy, annotators_per_document=2)
    other = Project.objects.create(name="Other", taxonomy=taxonomy)
    users = {n: User.objects.create_user(n) for n in ("a", "b", "c", "rev", "adm", "out")}
    roles = [("a", "annotator"), ("b", "annotator"), ("c", "annotator")]
    roles += [("rev", "reviewer"), ("adm", "admin")]
    for name, role in roles:
        Membership.objects.create(project=project, user=users[name], role=role)
    Membership.objects.create(project=other, user=users["out"], role="annotator")
    docs = [
        Document.objects.create(project=project, name=name, text=text, position=i)
        for i, (name, text) in enumerate(TEXTS)
    ]
    Document.objects.create(project=other, name="foreign", text="Politicians everywhere.")
    d0, d1, d2, d3, _ = docs
    for doc, names in [(d0, "ab"), (d1, "ab"), (d2, "ac"), (d3, "bc")]:
        for name in names:
            Assignment.objects.create(document=doc, annotator=users[name])
    now = timezone.now()
    for doc, name, status, minutes in [
        (d0, "a", "submitted", 30),
        (d0, "b", "submitted", 20),
        (d1, "a", "submitted", 10),
        (d2, "c", "in_progress", 40),
    ]:
        annotation = Annotation.objects.create(document=doc, annotator=users[name], status=status)
        Annotation.objects.filter(pk=annotation.pk).update(
            updated_at=now - dt.timedelta(minutes=minutes)
        )
    return Site(project, other, docs, *users.values())


@pytest.fixture
def site(db: None) -> Site:
    return make_site()


def client_for(user: User) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def names(response: Any) -> list[str]:
    assert response.status_code == 200, response.content
    return [row["name"] for row in response.json()["results"]]


# --- pagination, search, filters, order -----------------------------------------------------


def test_pagination_default_and_cap(site: Site) -> None:
    Document.objects.bulk_create(
        Document(project=site.project, name=f"extra {i}", text="More text.", position=10 + i)
        for i in range(120)
    )
    admin = client_for(site.admin)
    body = admin.get(site.url()).json()
    assert body["count"] == 125 and len(body["results"]) == 25 and body["previous"] is None
    assert "limit=25" in body["next"] and "offset=25" in body["next"]
    page = admin.get(site.url("?limit=2&offset=2")).json()
    assert [r["name"] for r in page["results"]] == ["gamma", "delta"]
    assert page["previous"] and page["next"]
    assert len(admin.get(site.url("?limit=500")).json()["results"]) == 100


def test_search_in_text_and_name_case_insensitive(site: Site) -> None:
    admin = client_for(site.admin)
    assert names(admin.get(site.url("?q=POLITICIANS"))) == ["alpha"]  # text; not other project
    assert names(admin.get(site.url("?q=elt"))) == ["delta"]  # name
    assert names(admin.get(site.url("?q=nothing-like-this"))) == []
    assert names(client_for(site.c).get(site.url("?q=e"))) == ["gamma", "delta"]


def test_staff_status_filters(site: Site) -> None:
    admin = client_for(site.admin)
    expected = {
        "done": ["alpha"],
        "in_progress": ["beta", "gamma"],
        "todo": ["delta"],
        "unassigned": ["epsilon"],
    }
    for status, wanted in expected.items():
        assert names(admin.get(site.url(f"?status={status}"))) == wanted, status
    bad = admin.get(site.url("?status=submitted"))
    assert (
        bad.status_code == 400 and "unassigned, todo, in_progress, done" in bad.json()["status"][0]
    )


def test_staff_annotator_and_fewer_than_filters(site: Site) -> None:
    reviewer = client_for(site.reviewer)
    assert names(reviewer.get(site.url(f"?annotator={site.c.pk}"))) == ["gamma", "delta"]
    assert names(reviewer.get(site.url("?fewer_than=1"))) == ["gamma", "delta", "epsilon"]
    assert names(reviewer.get(site.url("?fewer_than=2"))) == ["beta", "gamma", "delta", "epsilon"]
    both = site.url(f"?fewer_than=2&annotator={site.a.pk}&status=in_progress")
    assert names(reviewer.get(both)) == ["beta", "gamma"]


def test_annotator_status_filter_is_their_own(site: Site) -> None:
    a = client_for(site.a)
    assert names(a.get(site.url("?status=submitted"))) == ["alpha", "beta"]
    assert names(a.get(site.url("?status=todo"))) == ["gamma"]  # c works on it, a does not
    b = client_for(site.b)
    assert names(b.get(site.url("?status=todo"))) == ["beta", "delta"]
    assert b.get(site.url("?status=done")).status_code == 400
    # Staff-only filters do not widen an annotator's list.
    assert names(b.get(site.url(f"?annotator={site.c.pk}"))) == ["alpha", "beta", "delta"]


def test_orderings(site: Site) -> None:
    admin = client_for(site.admin)
    by_length = [name for name, _ in sorted(TEXTS, key=lambda t: len(t[1]))]
    assert names(admin.get(site.url())) == ["alpha", "beta", "gamma", "delta", "epsilon"]
    assert names(admin.get(site.url("?ordering=-position"))) == [
        "epsilon",
        "delta",
        "gamma",
        "beta",
        "alpha",
    ]
    assert names(admin.get(site.url("?ordering=length"))) == by_length
    assert names(admin.get(site.url("?ordering=-length"))) == by_length[::-1]
    # updated: latest annotation change; never-touched documents last either way.
    assert names(admin.get(site.url("?ordering=updated"))) == [
        "gamma",
        "alpha",
        "beta",
        "delta",
        "epsilon",
    ]
    assert names(admin.get(site.url("?ordering=-updated"))) == [
        "beta",
        "alpha",
        "gamma",
        "delta",
        "epsilon",
    ]
    assert admin.get(site.url("?ordering=name")).status_code == 400
    # An annotator's "updated" is their own last change.
    assert names(client_for(site.b).get(site.url("?ordering=-updated"))) == [
        "alpha",
        "beta",
        "delta",
    ]


# --- roles and per-document figures ---------------------------------------------------------


def test_annotators_see_their_documents_only_with_their_status(site: Site) -> None:
    a = client_for(site.a)
    body = a.get(site.url()).json()
    assert body["count"] == 3
    rows = {r["name"]: r for r in body["results"]}
    assert {n: r["status"] for n, r in rows.items()} == {
        "alpha": "submitted",
        "beta": "submitted",
        "gamma": "todo",
    }
    assert all(r["status"] == r["my_status"] for r in rows.values())
    assert set(rows["alpha"]) == {
        "id",
        "name",
        "external_id",
        "position",
        "length",
        "updated_at",
        "status",
        "my_status",
    }
    assert rows["alpha"]["length"] == len(TEXTS[0][1])
    assert rows["gamma"]["updated_at"] is None  # c's work is not a's
    assert a.get(f"/api/projects/{site.other.pk}/documents/").status_code == 404
    assert client_for(site.outsider).get(site.url()).status_code == 404


def test_staff_rows_have_counts_and_annotators(site: Site) -> None:
    rows = {r["name"]: r for r in client_for(site.reviewer).get(site.url()).json()["results"]}
    figures = {
        n: (r["status"], r["assigned"], r["in_progress"], r["submitted"]) for n, r in rows.items()
    }
    assert figures == {
        "alpha": ("done", 2, 0, 2),
        "beta": ("in_progress", 2, 0, 1),
        "gamma": ("in_progress", 2, 1, 0),
        "delta": ("todo", 2, 0, 0),
        "epsilon": ("unassigned", 0, 0, 0),
    }
    assert rows["beta"]["annotators"] == [
        {"id": site.a.pk, "username": "a", "status": "submitted"},
        {"id": site.b.pk, "username": "b", "status": "todo"},
    ]
    assert all(r["my_status"] is None for r in rows.values())  # nothing assigned to a reviewer
    assert rows["alpha"]["updated_at"] is not None and rows["delta"]["updated_at"] is None


def test_rows_are_the_same_in_the_project_order_and_through_a_search(site: Site) -> None:
    """The unsearched list reads its page in one statement, a search picks the ids first:
    both give the same rows, with the latest change (staff: anyone's; annotators: their
    own) and the user's own status."""
    alpha = site.docs[0]
    Annotation.objects.create(document=alpha, annotator=site.admin, status="in_progress")
    Annotation.objects.filter(document=alpha, annotator=site.admin).update(
        updated_at=timezone.now() - dt.timedelta(minutes=25)
    )
    latest = {  # by the ORM: the latest change per document, anyone's and b's own
        who: {
            doc.name: max(
                (a.updated_at for a in doc.annotations.all() if who is None or a.annotator == who),
                default=None,
            )
            for doc in site.docs
        }
        for who in (None, site.b)
    }
    for user, mine in [(site.admin, None), (site.reviewer, None), (site.b, site.b)]:
        client = client_for(user)
        for ordering in ("position", "-position"):
            plain = client.get(site.url(f"?ordering={ordering}")).json()["results"]
            searched = client.get(site.url(f"?ordering={ordering}&q=.")).json()["results"]
            assert plain == searched, (user.username, ordering)
            assert [r["position"] for r in plain] == sorted(
                (r["position"] for r in plain), reverse=ordering == "-position"
            )
        for row in plain:
            expected = latest[mine][row["name"]]
            assert row["updated_at"] == (expected and expected.isoformat().replace("+00:00", "Z"))
    rows = {r["name"]: r for r in client_for(site.admin).get(site.url()).json()["results"]}
    assert rows["alpha"]["my_status"] == "in_progress" and rows["alpha"]["in_progress"] == 1
    assert [a["username"] for a in rows["alpha"]["annotators"]] == ["a", "adm", "b"]
    pages = [
        client_for(site.a).get(site.url(f"?limit=1&offset={n}")).json()["results"] for n in range(3)
    ]
    assert [p[0]["name"] for p in pages] == ["alpha", "beta", "gamma"]


def test_document_annotations_by_role(site: Site) -> None:
    d0 = site.docs[0]
    mine = Annotation.objects.get(document=d0, annotator=site.a)
    Span.objects.create(annotation=mine, start=0, end=10, labels=["ad hominem"])
    staff = client_for(site.reviewer).get(f"/api/documents/{d0.pk}/annotations/").json()
    assert [(x["annotator"]["username"], x["status"]) for x in staff] == [
        ("a", "submitted"),
        ("b", "submitted"),
    ]
    assert staff[0]["spans"][0]["labels"] == ["ad hominem"] and staff[1]["spans"] == []
    assert set(staff[0]) >= {"id", "revision", "updated_at", "submitted_at"}
    own = client_for(site.b).get(f"/api/documents/{d0.pk}/annotations/").json()
    assert [x["annotator"] for x in own] == [{"id": site.b.pk, "username": "b"}]
    d3 = site.docs[3]
    assert client_for(site.a).get(f"/api/documents/{d3.pk}/annotations/").status_code == 404
    assert client_for(site.outsider).get(f"/api/documents/{d0.pk}/annotations/").status_code == 404


def test_staff_open_any_document_with_its_name(site: Site) -> None:
    d4 = site.docs[4]
    body = client_for(site.reviewer).get(f"/api/documents/{d4.pk}/").json()
    assert body["name"] == "epsilon" and body["text"] == "Buy now."
    assert client_for(site.a).get(f"/api/documents/{d4.pk}/").status_code == 404


def test_opening_creates_nothing(site: Site) -> None:
    Annotation.objects.all().delete()
    d2 = site.docs[2]
    for user in (site.a, site.c, site.reviewer, site.admin):
        client = client_for(user)
        assert client.get(f"/api/documents/{d2.pk}/").status_code == 200
        assert client.get(f"/api/documents/{d2.pk}/my-annotation/").status_code == 404
        assert client.get(f"/api/documents/{d2.pk}/annotations/").json() == []
        assert client.get(site.url()).status_code == 200
        assert client.get(f"/api/projects/{site.project.pk}/progress/").status_code == 200
        assert client.get(f"/api/projects/{site.project.pk}/").status_code == 200
        assert client.get(f"/api/projects/{site.project.pk}/next-document/").status_code == 200
    assert Annotation.objects.count() == 0
    rows = client_for(site.a).get(site.url()).json()["results"]
    assert {r["status"] for r in rows} == {"todo"}  # opened, still to do


def test_document_detail_says_my_own_status(site: Site) -> None:
    """The document page learns from the document itself whether I may annotate it: a staff
    member assigned a document they have not started sees "todo", not read-only."""
    d0, d1, d2, *_ = site.docs
    Assignment.objects.create(document=d1, annotator=site.reviewer)

    def my_status(user: User, doc: Document) -> Any:
        client = APIClient()
        client.force_authenticate(user)
        response = client.get(f"/api/documents/{doc.pk}/")
        assert response.status_code == 200
        return response.json()["my_status"]

    assert my_status(site.a, d0) == "submitted"
    assert my_status(site.c, d2) == "in_progress"
    assert my_status(site.reviewer, d1) == "todo"  # assigned, not started
    assert my_status(site.reviewer, d0) is None  # open read-only: not theirs
    assert Annotation.objects.filter(annotator=site.reviewer).count() == 0


def test_the_staff_page_equals_the_orm_s(site: Site) -> None:
    """``document_page``'s one statement gives the rows of the stock idiom it replaces: the
    page's documents by ``document_list`` with their assignments and annotations prefetched
    by the ORM, counted in Python (``bench/fenced.py``'s ``orm_page``, which its figure
    times)."""
    Annotation.objects.create(document=site.docs[1], annotator=site.admin, status="in_progress")
    for user in (site.admin, site.reviewer):
        rows = document_page(user, site.project, DocumentQuery(), staff=True, offset=0, limit=25)
        assert rows == fenced.orm_page(user, site.project), user.username
        assert [r.name for r in rows] == [name for name, _ in TEXTS]
