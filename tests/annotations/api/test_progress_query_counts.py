"""The progress endpoint reads counters only (``AnnotatorCounter``, the project's): the same
number of SQL statements for a project of 10 annotations as for one of 10,000, for staff and
for an annotator (their own row); and its figures equal the rows', people who left the
project included. Runs on the test database: SQLite, or PostgreSQL where DATABASE_URL names
it (CI)."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from annotations.models import Annotation, Assignment, Document, Membership, Project
from tests.support.factories import make_taxonomy

pytestmark = pytest.mark.django_db


def build(size: int, name: str) -> tuple[Project, User, User]:
    """A project of ``size`` documents, each assigned to and annotated by one of two
    annotators (every third submitted), the second of whom then left the project."""
    project = Project.objects.create(name=name, taxonomy=make_taxonomy(name=name))
    admin = User.objects.create_user(f"{name}-admin")
    stay, leave = (User.objects.create_user(f"{name}-{n}") for n in ("stay", "leave"))
    Membership.objects.create(project=project, user=admin, role="admin")
    for user in (stay, leave):
        Membership.objects.create(project=project, user=user, role="annotator")
    docs = Document.objects.bulk_create(
        (Document(project=project, text=f"Text {i}.", position=i) for i in range(size)),
        batch_size=2000,
    )
    people = [stay if i % 2 == 0 else leave for i in range(size)]
    Assignment.objects.bulk_create(
        (Assignment(document=d, annotator=u) for d, u in zip(docs, people, strict=True)),
        batch_size=2000,
    )
    now = timezone.now()
    Annotation.objects.bulk_create(
        (
            Annotation(
                document=d,
                annotator=u,
                status="submitted" if i % 3 == 0 else "in_progress",
                updated_at=now,
            )
            for i, (d, u) in enumerate(zip(docs, people, strict=True))
        ),
        batch_size=2000,
    )
    Membership.objects.filter(project=project, user=leave).delete()
    return project, admin, stay


def progress(user: User, project: Project) -> tuple[dict[str, Any], int]:
    client = APIClient()
    client.force_login(user)
    client.get("/api/projects/")  # session and the user's first reads out of the count
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(f"/api/projects/{project.pk}/progress/")
    assert response.status_code == 200, response.content
    return response.json(), len(ctx.captured_queries)


def expected_row(project: Project, user: User) -> tuple[int, int, int]:
    mine = Annotation.objects.filter(document__project=project, annotator=user)
    return (
        Assignment.objects.filter(document__project=project, annotator=user).count(),
        mine.filter(status="in_progress").count(),
        mine.filter(status="submitted").count(),
    )


@pytest.mark.slow
def test_progress_takes_as_many_queries_at_10_as_at_10000_annotations() -> None:
    small, small_admin, small_annotator = build(10, "small")
    large, large_admin, large_annotator = build(10_000, "large")
    for project, admin, annotator in (
        (small, small_admin, small_annotator),
        (large, large_admin, large_annotator),
    ):
        body, _ = progress(admin, project)
        rows = {r["username"]: r for r in body["annotators"]}
        assert set(rows) == {annotator.username, f"{project.name}-leave"}  # left, still counted
        for name, row in rows.items():
            user = User.objects.get(username=name)
            assert (row["assigned"], row["in_progress"], row["submitted"]) == expected_row(
                project, user
            )
            assert row["last_active"] is not None
        own, _ = progress(annotator, project)
        assert [r["username"] for r in own["annotators"]] == [annotator.username]
        assigned, in_progress, submitted = expected_row(project, annotator)
        assert own["totals"]["documents"] == assigned
        assert (own["totals"]["in_progress"], own["totals"]["done"]) == (in_progress, submitted)
        assert own["totals"]["todo"] == 0
    assert progress(small_admin, small)[1] == progress(large_admin, large)[1]
    assert progress(small_annotator, small)[1] == progress(large_annotator, large)[1]
