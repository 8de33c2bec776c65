"""Each role's progress figures on the MAFALDA user-study project, as ``load_demo`` builds it
(20 texts, four study annotators who each submitted all 20): the progress endpoint, the
project list's ``progress`` and the document list's statuses tell the same story (the bug
was "20 / 20 done" beside twenty rows "To do")."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from annotations.importing.datasets import import_doccano_annotations, import_mafalda_gold
from annotations.models import Annotation, Membership, Project
from annotations.services.projects import create_project
from annotations.services.taxonomy import install_preset

pytestmark = pytest.mark.django_db

STUDY_ANNOTATORS = ("user1", "user2", "user4", "user5")


@dataclass
class Study:
    project: Project
    admin: User  # superuser and admin member, like demo-admin
    reviewer: User
    annotator: User  # mafalda-user1
    stranger: User  # demo-annotator: not a member of the study

    def get(self, user: User, path: str) -> Any:
        client = APIClient()
        client.force_login(user)
        response = client.get(path)
        assert response.status_code == 200, response.content
        return response.json()

    def progress(self, user: User) -> dict[str, Any]:
        return self.get(user, f"/api/projects/{self.project.pk}/progress/")

    def listed(self, user: User) -> dict[str, Any]:
        (row,) = [
            p for p in self.get(user, "/api/projects/")["results"] if p["id"] == self.project.pk
        ]
        return row["progress"]

    def statuses(self, user: User) -> list[str]:
        body = self.get(user, f"/api/projects/{self.project.pk}/documents/?limit=100")
        assert body["count"] == len(body["results"])
        return [row["status"] for row in body["results"]]


@pytest.fixture
def study(mafalda_dir: Path, db: None) -> Study:
    datasets = mafalda_dir / "datasets"
    if not (datasets / "user_study_examples_with_labels.jsonl").exists():
        pytest.skip(f"MAFALDA user-study files not found in {datasets}")
    taxonomy = install_preset(name="mafalda")
    admin = User.objects.create_superuser("demo-admin")
    reviewer = User.objects.create_user("demo-reviewer")
    stranger = User.objects.create_user("demo-annotator")
    project = create_project(name="MAFALDA user study", taxonomy=taxonomy)
    import_mafalda_gold(
        path=datasets / "user_study_examples_with_labels.jsonl", project=project, created_by=admin
    )
    for name in STUDY_ANNOTATORS:
        user = User.objects.create_user(f"mafalda-{name}")
        Membership.objects.create(project=project, user=user, role="annotator")
        import_doccano_annotations(
            path=datasets / "users_results" / f"{name}.jsonl", project=project, annotator=user
        )
    Membership.objects.create(project=project, user=admin, role="admin")
    Membership.objects.create(project=project, user=reviewer, role="reviewer")
    annotator = User.objects.get(username="mafalda-user1")
    return Study(project, admin, reviewer, annotator, stranger)


def rows(progress: dict[str, Any]) -> list[tuple[str, int, int, int]]:
    return [
        (r["username"], r["assigned"], r["in_progress"], r["submitted"])
        for r in progress["annotators"]
    ]


def test_annotator_sees_their_own_queue(study: Study) -> None:
    progress = study.progress(study.annotator)
    assert progress["role"] == "annotator" and progress["annotators_per_document"] == 1
    assert progress["totals"] == {
        "documents": 20,
        "done": 20,
        "in_progress": 0,
        "todo": 0,
        "unassigned": 0,
        "assignments": 20,
        "submitted": 20,
    }
    assert rows(progress) == [("mafalda-user1", 20, 0, 20)]
    assert progress["annotators"][0]["last_active"] is not None
    assert study.listed(study.annotator) == {"done": 20, "total": 20}
    assert study.statuses(study.annotator) == ["submitted"] * 20


@pytest.mark.parametrize("role", ["reviewer", "admin"])
def test_staff_see_the_project_and_every_annotator(study: Study, role: str) -> None:
    user = getattr(study, role)
    progress = study.progress(user)
    assert progress["role"] == role
    assert progress["totals"] == {
        "documents": 20,
        "done": 20,
        "in_progress": 0,
        "todo": 0,
        "unassigned": 0,
        "assignments": 80,
        "submitted": 80,
    }
    assert rows(progress) == [(f"mafalda-{n}", 20, 0, 20) for n in STUDY_ANNOTATORS]
    assert study.listed(user) == {"done": 20, "total": 20, "assignments": 80, "submitted": 80}
    assert study.statuses(user) == ["done"] * 20  # not "To do" beside "20 / 20 done"
    body = study.get(user, f"/api/projects/{study.project.pk}/documents/?limit=1")
    (first,) = body["results"]
    assert (first["assigned"], first["in_progress"], first["submitted"]) == (4, 0, 4)
    assert first["my_status"] is None


def test_one_definition_of_done_follows_annotators_per_document(study: Study) -> None:
    # Four submissions per document: done at N = 4, not done at N = 5.
    Project.objects.filter(pk=study.project.pk).update(annotators_per_document=5)
    progress = study.progress(study.reviewer)
    assert progress["annotators_per_document"] == 5
    assert (progress["totals"]["done"], progress["totals"]["in_progress"]) == (0, 20)
    assert study.listed(study.reviewer)["done"] == 0
    assert study.statuses(study.reviewer) == ["in_progress"] * 20

    # A reviewer reopens one of user1's annotations: that document has 3 submissions.
    Project.objects.filter(pk=study.project.pk).update(annotators_per_document=4)
    reopened = Annotation.objects.filter(annotator=study.annotator).order_by("document__position")
    Annotation.objects.filter(pk=reopened.first().pk).update(status="in_progress")
    progress = study.progress(study.admin)
    assert (progress["totals"]["done"], progress["totals"]["in_progress"]) == (19, 1)
    assert progress["totals"]["submitted"] == 79
    assert rows(progress)[0] == ("mafalda-user1", 20, 1, 19)
    assert study.listed(study.admin)["done"] == 19
    assert study.statuses(study.admin) == ["in_progress"] + ["done"] * 19

    mine = study.progress(study.annotator)["totals"]
    assert (mine["done"], mine["in_progress"], mine["todo"]) == (19, 1, 0)
    assert study.listed(study.annotator) == {"done": 19, "total": 20}
    assert study.statuses(study.annotator) == ["in_progress"] + ["submitted"] * 19


def test_non_members_see_nothing(study: Study) -> None:
    client = APIClient()
    client.force_login(study.stranger)
    assert client.get(f"/api/projects/{study.project.pk}/progress/").status_code == 404
    assert client.get(f"/api/projects/{study.project.pk}/documents/").status_code == 404


def test_staff_rows_count_members_from_their_counters_and_former_members_row_by_row(
    study: Study,
) -> None:
    from annotations.services.projects import remove_member

    newcomer = User.objects.create_user("mafalda-newcomer")
    Membership.objects.create(project=study.project, user=newcomer, role="annotator")
    leaver = Membership.objects.get(project=study.project, user__username="mafalda-user5")
    remove_member(membership=leaver)  # their annotated assignments and annotations stay
    Annotation.objects.filter(annotator__username="mafalda-user4", document__position__lt=3).update(
        status="in_progress", submitted_at=None
    )

    progress = study.progress(study.admin)

    assert rows(progress) == [
        ("mafalda-newcomer", 0, 0, 0),  # an annotator member without work yet
        ("mafalda-user1", 20, 0, 20),
        ("mafalda-user2", 20, 0, 20),
        ("mafalda-user4", 20, 3, 17),
        ("mafalda-user5", 20, 0, 20),  # no longer a member: counted row by row
    ]
    last = {r["username"]: r["last_active"] for r in progress["annotators"]}
    assert last["mafalda-newcomer"] is None and last["mafalda-user5"] is not None
    # the reviewer and the admin, members without assignments, have no row
    assert study.progress(study.annotator)["annotators"][0]["assigned"] == 20
