"""Assignment rules: balanced, never twice the same annotator, idempotent, annotators only,
work in progress kept unless forced; from the service, the API and the command."""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.db import connection
from rest_framework.test import APIClient

from annotations.models import Annotation, Assignment, Document, Membership, Project
from annotations.services.assignments import (
    Sample,
    WorkInProgress,
    assign_to_annotators,
    reassign,
    unassign,
)
from tests.support.factories import make_taxonomy

pytestmark = pytest.mark.django_db


@dataclass
class Team:
    project: Project
    docs: list[Document]
    a: User
    b: User
    c: User
    reviewer: User
    admin: User
    outsider: User  # annotator of another project

    @property
    def annotators(self) -> list[User]:
        return [self.a, self.b, self.c]


def make_team(documents: int = 20) -> Team:
    taxonomy = make_taxonomy()
    project = Project.objects.create(name="Study", taxonomy=taxonomy)
    other = Project.objects.create(name="Other", taxonomy=taxonomy)
    users = {n: User.objects.create_user(n) for n in ("a", "b", "c", "rev", "adm", "out")}
    for name, role in [("a", "annotator"), ("b", "annotator"), ("c", "annotator")]:
        Membership.objects.create(project=project, user=users[name], role=role)
    Membership.objects.create(project=project, user=users["rev"], role="reviewer")
    Membership.objects.create(project=project, user=users["adm"], role="admin")
    Membership.objects.create(project=other, user=users["out"], role="annotator")
    docs = Document.objects.bulk_create(
        Document(project=project, text=f"Text number {i}.", position=i) for i in range(documents)
    )
    return Team(project, docs, *users.values())


@pytest.fixture
def team(db: None) -> Team:
    return make_team()


def loads(team: Team) -> dict[str, int]:
    counts = Counter(
        Assignment.objects.filter(document__project=team.project).values_list(
            "annotator__username", flat=True
        )
    )
    return {u.username: counts[u.username] for u in team.annotators}


def per_document(team: Team) -> Counter:
    return Counter(
        Assignment.objects.filter(document__project=team.project).values_list(
            "document_id", flat=True
        )
    )


def assert_no_duplicates() -> None:
    pairs = list(Assignment.objects.values_list("document_id", "annotator_id"))
    assert len(pairs) == len(set(pairs))


# --- the service ----------------------------------------------------------------------------


def test_balanced_from_nothing(team: Team) -> None:
    report = assign_to_annotators(project=team.project, annotators=team.annotators, per_document=2)
    assert report.created == 40 and report.documents == 20
    assert sorted(loads(team).values()) == [13, 13, 14]
    assert set(per_document(team).values()) == {2}
    assert sorted(r.assigned for r in report.annotators) == [13, 13, 14]
    assert_no_duplicates()


def test_running_twice_changes_nothing(team: Team) -> None:
    assign_to_annotators(project=team.project, annotators=team.annotators, per_document=2, seed=3)
    before = set(Assignment.objects.values_list("document_id", "annotator_id"))
    again = assign_to_annotators(
        project=team.project, annotators=team.annotators, per_document=2, seed=3
    )
    assert again.created == 0
    assert set(Assignment.objects.values_list("document_id", "annotator_id")) == before


def test_tops_up_with_existing_uneven_load(team: Team) -> None:
    # a already has 8 documents; b has 2 of those too.
    for doc in team.docs[:8]:
        Assignment.objects.create(document=doc, annotator=team.a)
    for doc in team.docs[:2]:
        Assignment.objects.create(document=doc, annotator=team.b)
    report = assign_to_annotators(project=team.project, annotators=team.annotators, per_document=2)
    assert report.created == 40 - 10
    assert set(per_document(team).values()) == {2}
    counts = loads(team)
    assert max(counts.values()) - min(counts.values()) <= 1, counts
    assert_no_duplicates()


def test_raising_per_document_tops_up(team: Team) -> None:
    assign_to_annotators(project=team.project, annotators=team.annotators, per_document=1)
    assert sorted(loads(team).values()) == [6, 7, 7]
    report = assign_to_annotators(project=team.project, annotators=team.annotators, per_document=3)
    assert report.created == 40 and loads(team) == {"a": 20, "b": 20, "c": 20}
    assert_no_duplicates()


def test_sample_is_reproducible_with_a_seed(team: Team) -> None:
    first = assign_to_annotators(
        project=team.project, annotators=team.annotators, per_document=1, documents=Sample(5, 42)
    )
    picked = set(Assignment.objects.values_list("document_id", flat=True))
    assert first.documents == 5 and first.created == 5 and len(picked) == 5
    Assignment.objects.all().delete()
    assign_to_annotators(
        project=team.project, annotators=team.annotators, per_document=1, documents=Sample(5, 42)
    )
    assert set(Assignment.objects.values_list("document_id", flat=True)) == picked
    Assignment.objects.all().delete()
    assign_to_annotators(
        project=team.project, annotators=team.annotators, per_document=1, documents=Sample(5, 43)
    )
    assert set(Assignment.objects.values_list("document_id", flat=True)) != picked
    with pytest.raises(ValidationError) as error:
        assign_to_annotators(
            project=team.project, annotators=team.annotators, per_document=1, documents=Sample(21)
        )
    assert "sample_size" in error.value.message_dict


def test_unassigned_selection_skips_documents_anyone_has(team: Team) -> None:
    Assignment.objects.create(document=team.docs[0], annotator=team.reviewer)
    Annotation.objects.create(document=team.docs[1], annotator=team.outsider)
    report = assign_to_annotators(
        project=team.project, annotators=[team.a], per_document=1, documents="unassigned"
    )
    assert report.documents == 18 and report.created == 18
    assert not Assignment.objects.filter(annotator=team.a, document__in=team.docs[:2]).exists()


def test_selected_documents_must_be_in_the_project(team: Team) -> None:
    foreign = Document.objects.create(project=Project.objects.get(name="Other"), text="x")
    with pytest.raises(ValidationError) as error:
        assign_to_annotators(
            project=team.project,
            annotators=[team.a],
            per_document=1,
            documents=[team.docs[0].pk, foreign.pk],
        )
    assert str(foreign.pk) in error.value.message_dict["document_ids"][0]
    assert not Assignment.objects.exists()
    report = assign_to_annotators(
        project=team.project, annotators=[team.a], per_document=1, documents=[team.docs[3].pk]
    )
    assert report.created == 1


def test_non_annotators_are_refused_by_name_and_nothing_written(team: Team) -> None:
    with pytest.raises(ValidationError) as error:
        assign_to_annotators(
            project=team.project,
            annotators=[team.a, team.reviewer, team.outsider],
            per_document=1,
        )
    assert error.value.message_dict == {
        "annotators": [
            "rev is not an annotator of project 'Study'",
            "out is not an annotator of project 'Study'",
        ]
    }
    assert not Assignment.objects.exists()


def test_per_document_above_the_annotators_is_an_error(team: Team) -> None:
    with pytest.raises(ValidationError) as error:
        assign_to_annotators(project=team.project, annotators=[team.a, team.b], per_document=3)
    assert "per_document" in error.value.message_dict
    assert not Assignment.objects.exists()


def test_unassign_keeps_work_unless_forced(team: Team) -> None:
    d0, d1, d2 = team.docs[:3]
    for doc in (d0, d1, d2):
        Assignment.objects.create(document=doc, annotator=team.a)
    Annotation.objects.create(document=d1, annotator=team.a)
    with pytest.raises(WorkInProgress) as error:
        unassign(project=team.project, annotator=team.a, documents=[d0.pk, d1.pk, d2.pk])
    assert error.value.documents == [d1.pk] and "a has an annotation" in str(error.value)
    assert Assignment.objects.filter(annotator=team.a).count() == 3  # nothing removed
    assert unassign(project=team.project, annotator=team.a, documents=[d0.pk, d2.pk]) == 2
    assert unassign(project=team.project, annotator=team.a, documents=[d1], force=True) == 1
    assert Annotation.objects.filter(document=d1, annotator=team.a).exists()  # work stays


def test_reassign_moves_and_keeps_work_unless_forced(team: Team) -> None:
    d0, d1 = team.docs[:2]
    for doc in (d0, d1):
        Assignment.objects.create(document=doc, annotator=team.a)
    Annotation.objects.create(document=d0, annotator=team.a, status="submitted")
    with pytest.raises(WorkInProgress) as error:
        reassign(
            project=team.project, documents=[d0, d1], from_annotator=team.a, to_annotator=team.b
        )
    assert error.value.documents == [d0.pk]
    assert not Assignment.objects.filter(annotator=team.b).exists()
    moved = reassign(
        project=team.project, documents=[d1], from_annotator=team.a, to_annotator=team.b
    )
    assert moved == 1
    assert set(Assignment.objects.values_list("document_id", "annotator_id")) == {
        (d0.pk, team.a.pk),
        (d1.pk, team.b.pk),
    }
    with pytest.raises(ValidationError) as refused:
        reassign(
            project=team.project, documents=[d1], from_annotator=team.b, to_annotator=team.reviewer
        )
    assert refused.value.message_dict == {
        "to_annotator": ["rev is not an annotator of project 'Study'"]
    }
    assert reassign(
        project=team.project, documents=[d0], from_annotator=team.a, to_annotator=team.b, force=True
    )
    assert set(Assignment.objects.values_list("document_id", "annotator_id")) == {
        (d0.pk, team.b.pk),
        (d1.pk, team.b.pk),
    }


@pytest.mark.django_db(transaction=True)
def test_concurrent_calls_never_fail_and_stay_balanced() -> None:
    team = make_team(documents=30)
    barrier = threading.Barrier(6)
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            barrier.wait()
            assign_to_annotators(
                project=team.project, annotators=team.annotators, per_document=2, seed=i
            )
        except BaseException as exc:  # noqa: BLE001 - collected and asserted below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert_no_duplicates()
    assert set(per_document(team).values()) == {2} and len(per_document(team)) == 30
    assert sorted(loads(team).values()) == [20, 20, 20]


# --- the API --------------------------------------------------------------------------------


def client_for(user: User) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def url(team: Team, suffix: str = "") -> str:
    return f"/api/projects/{team.project.pk}/assignments/{suffix}"


def test_api_assigns_balanced_and_reports_totals(team: Team) -> None:
    body = {"annotators": [u.pk for u in team.annotators], "per_document": 2}
    response = client_for(team.admin).post(url(team), body, format="json")
    assert response.status_code == 200, response.content
    data = response.json()
    assert data["created"] == 40 and data["documents"] == 20
    assert sorted(a["assigned"] for a in data["annotators"]) == [13, 13, 14]
    assert {a["username"] for a in data["annotators"]} == {"a", "b", "c"}
    again = client_for(team.admin).post(url(team), body, format="json").json()
    assert again["created"] == 0


def test_api_sample_and_selected(team: Team) -> None:
    admin = client_for(team.admin)
    body = {"annotators": [team.a.pk], "per_document": 1, "documents": "sample", "seed": 7}
    assert admin.post(url(team), body, format="json").json()["sample_size"] == [
        'required with "sample"'
    ]
    data = admin.post(url(team), {**body, "sample_size": 4}, format="json").json()
    assert data["created"] == 4 and data["documents"] == 4
    picked = {team.docs[5].pk, team.docs[6].pk}
    selected = {**body, "documents": "selected", "document_ids": sorted(picked)}
    assert admin.post(url(team), selected, format="json").status_code == 200
    assert picked <= set(
        Assignment.objects.filter(annotator=team.a).values_list("document_id", flat=True)
    )


def test_api_assigns_every_document_matching_the_lists_filters() -> None:
    """documents="matching": the document list's filters, selected by the server (more
    than a page of the list, and more than its page size), nothing else."""
    team = make_team(documents=150)
    team.project.annotators_per_document = 2
    team.project.save(update_fields=["annotators_per_document"])
    docs = team.docs
    Assignment.objects.bulk_create(Assignment(document=d, annotator=team.a) for d in docs[:140])
    Annotation.objects.bulk_create(  # 0-119: in progress, nothing submitted -> match
        Annotation(document=d, annotator=team.a, status="in_progress") for d in docs[:120]
    )
    Annotation.objects.bulk_create(  # 120-129: in progress (1 of 2 submitted) -> no match
        Annotation(document=d, annotator=team.a, status="submitted") for d in docs[120:130]
    )
    # 130-139: assigned, untouched (todo); 140-149: unassigned: neither matches
    matching = {d.pk for d in docs[:120]}
    admin = client_for(team.admin)
    filters = {"status": "in_progress", "fewer_than": 1}

    listed = admin.get(
        f"/api/projects/{team.project.pk}/documents/?status=in_progress&fewer_than=1&limit=1"
    ).json()
    assert listed["count"] == 120  # what the page shows before assigning

    body = {
        "annotators": [team.b.pk, team.c.pk],
        "per_document": 1,
        "documents": "matching",
        "filters": filters,
    }
    response = admin.post(url(team), body, format="json")
    assert response.status_code == 200, response.content
    data = response.json()
    assert data["documents"] == 120 and data["created"] == 120
    new = Assignment.objects.filter(annotator__in=[team.b, team.c])
    assert set(new.values_list("document_id", flat=True)) == matching
    assert new.count() == 120
    assert sorted(Counter(new.values_list("annotator_id", flat=True)).values()) == [60, 60]
    assert_no_duplicates()
    again = admin.post(url(team), body, format="json").json()
    assert again == {**data, "created": 0}

    # a search, and the annotator filter, as the list takes them: the same documents
    documents_url = f"/api/projects/{team.project.pk}/documents/?limit=1&q=number+14"
    for extra, query, expected in [
        ({}, "", 11),
        ({"annotator": team.a.pk}, f"&annotator={team.a.pk}", 1),
    ]:
        searched = {**body, "per_document": 2, "filters": {"q": " number 14 ", **extra}}
        assert admin.post(url(team), searched, format="json").json()["documents"] == expected
        assert admin.get(documents_url + query).json()["count"] == expected  # 14, 140-149
    bad = admin.post(url(team), {**body, "filters": {"status": "submitted"}}, format="json")
    assert bad.status_code == 400 and "status" in bad.json()["filters"]
    none = admin.post(url(team), {**body, "filters": {"fewer_than": 0}}, format="json")
    assert none.status_code == 400


def test_api_refuses_non_annotators_naming_them(team: Team) -> None:
    body = {"annotators": [team.a.pk, team.reviewer.pk], "per_document": 1}
    response = client_for(team.admin).post(url(team), body, format="json")
    assert response.status_code == 400
    assert response.json() == {"annotators": ["rev is not an annotator of project 'Study'"]}
    unknown = client_for(team.admin).post(
        url(team), {"annotators": [999999], "per_document": 1}, format="json"
    )
    assert unknown.json() == {"annotators": ["no user with id 999999 in this project"]}
    assert not Assignment.objects.exists()


def test_api_roles(team: Team) -> None:
    body = {"annotators": [team.a.pk], "per_document": 1}
    assert client_for(team.reviewer).post(url(team), body, format="json").status_code == 403
    assert client_for(team.a).post(url(team), body, format="json").status_code == 403
    assert client_for(team.outsider).post(url(team), body, format="json").status_code == 404
    root = User.objects.create_superuser("root")
    assert client_for(root).post(url(team), body, format="json").status_code == 200
    for suffix in ("unassign/", "reassign/"):
        response = client_for(team.reviewer).post(url(team, suffix), {}, format="json")
        assert response.status_code == 403


def test_api_unassign_and_reassign_answer_409_with_the_documents(team: Team) -> None:
    d0, d1 = team.docs[:2]
    for doc in (d0, d1):
        Assignment.objects.create(document=doc, annotator=team.a)
    Annotation.objects.create(document=d0, annotator=team.a)
    admin = client_for(team.admin)
    body: dict[str, Any] = {"annotator": team.a.pk, "document_ids": [d0.pk, d1.pk]}
    response = admin.post(url(team, "unassign/"), body, format="json")
    assert response.status_code == 409
    assert response.json()["documents"] == [d0.pk] and "force" in response.json()["detail"]
    assert Assignment.objects.filter(annotator=team.a).count() == 2

    move = {"from_annotator": team.a.pk, "to_annotator": team.b.pk, "document_ids": [d0.pk, d1.pk]}
    response = admin.post(url(team, "reassign/"), move, format="json")
    assert response.status_code == 409 and response.json()["documents"] == [d0.pk]
    assert admin.post(url(team, "reassign/"), {**move, "force": True}, format="json").json() == {
        "moved": 2
    }
    back = {"annotator": team.b.pk, "document_ids": [d1.pk]}
    assert admin.post(url(team, "unassign/"), back, format="json").json() == {"removed": 1}


# --- the command ----------------------------------------------------------------------------


def test_command_assigns_and_prints_totals(team: Team, capsys: pytest.CaptureFixture) -> None:
    call_command("assign", "--project", "Study", "--per-document", "2", "--annotators", "a,b,c")
    out = capsys.readouterr().out
    assert "40 assignments created over 20 documents" in out
    assert sorted(loads(team).values()) == [13, 13, 14]
    call_command(
        "assign", "--project", str(team.project.pk), "--per-document", "2", "--annotators", "a,b,c"
    )
    assert "0 assignments created" in capsys.readouterr().out


def test_command_sample(team: Team) -> None:
    args = ["--per-document", "1", "--annotators", "a", "--documents", "sample:3", "--seed", "1"]
    call_command("assign", "--project", "Study", *args)
    assert Assignment.objects.count() == 3


def test_command_refuses_non_annotator_and_writes_nothing(team: Team) -> None:
    with pytest.raises(CommandError, match="rev is not an annotator of project 'Study'"):
        call_command("assign", "--project", "Study", "--per-document", "1", "--annotators", "a,rev")
    with pytest.raises(CommandError, match="no user named nobody"):
        call_command(
            "assign", "--project", "Study", "--per-document", "1", "--annotators", "a,nobody"
        )
    assert not Assignment.objects.exists()
