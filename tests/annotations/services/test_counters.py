"""The counters the database keeps (migration 0007) equal a count of the rows after every
kind of write: services, bulk_create, QuerySet.update/delete, a document deleted, a member
added after the work, the project's annotators_per_document changed; ``save()`` of a stale
row does not write them back; ``refresh_counts`` repairs counters set wrong."""

from __future__ import annotations

import importlib
from collections import Counter

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.utils import timezone

from annotations.models import (
    Annotation,
    AnnotatorCounter,
    Assignment,
    Document,
    Membership,
    Project,
)
from annotations.services.annotations import (
    reopen_annotation,
    start_annotation,
    submit_annotation,
)
from annotations.services.assignments import assign_to_annotators, reassign, unassign
from annotations.services.counts import refresh_counts
from annotations.services.projects import update_project
from tests.support.factories import make_taxonomy

pytestmark = pytest.mark.django_db


def expected(project: Project) -> dict[str, object]:
    """The counters recomputed in Python from the rows (the one status definition)."""
    project.refresh_from_db()
    need = project.annotators_per_document
    docs = {}
    for doc in Document.objects.filter(project=project):
        assigned = Assignment.objects.filter(document=doc).count()
        annotations = list(Annotation.objects.filter(document=doc).values_list("status", flat=True))
        submitted = annotations.count("submitted")
        docs[doc.pk] = (assigned, len(annotations), submitted)
    statuses = Counter()
    for assigned, annotated, submitted in docs.values():
        if submitted >= need:
            statuses["done"] += 1
        elif annotated:
            statuses["in_progress"] += 1
        elif assigned:
            statuses["todo"] += 1
    members = {}
    for m in Membership.objects.filter(project=project):
        mine = Annotation.objects.filter(annotator=m.user_id, document__project=project)
        assigned = Assignment.objects.filter(annotator=m.user_id, document__project=project)
        members[m.user_id] = (
            assigned.count(),
            mine.filter(status="in_progress").count(),
            mine.filter(status="submitted").count(),
            mine.filter(status="submitted", document__in=assigned.values("document")).count(),
        )
    return {
        "workers": expected_workers(project),
        "project": (
            len(docs),
            statuses["done"],
            statuses["in_progress"],
            statuses["todo"],
            sum(d[0] for d in docs.values()),
            sum(d[2] for d in docs.values()),
        ),
        "documents": docs,
        "members": members,
    }


def expected_workers(project: Project) -> dict[int, tuple]:
    """Per person with assignments or annotations in the project (members or not):
    (assigned, in progress, submitted, assigned and in progress, assigned and submitted,
    latest annotation change)."""
    rows = [Assignment.objects, Annotation.objects]
    people = {
        uid
        for objects in rows
        for uid in objects.filter(document__project=project).values_list("annotator", flat=True)
    }
    out = {}
    for uid in people:
        mine = Annotation.objects.filter(annotator=uid, document__project=project)
        assigned = Assignment.objects.filter(annotator=uid, document__project=project)
        on_assigned = mine.filter(document__in=assigned.values("document"))
        out[uid] = (
            assigned.count(),
            mine.filter(status="in_progress").count(),
            mine.filter(status="submitted").count(),
            on_assigned.filter(status="in_progress").count(),
            on_assigned.filter(status="submitted").count(),
            max(mine.values_list("updated_at", flat=True), default=None),
        )
    return out


def stored_workers(project: Project) -> dict[int, tuple]:
    """The ``AnnotatorCounter`` rows of the project that count something."""
    return {
        c.annotator_id: (
            c.assigned_count,
            c.in_progress_count,
            c.submitted_count,
            c.started_count,
            c.done_count,
            c.last_active,
        )
        for c in AnnotatorCounter.objects.filter(project=project)
        if c.assigned_count or c.in_progress_count or c.submitted_count or c.last_active
    }


def stored(project: Project) -> dict[str, object]:
    p = Project.objects.get(pk=project.pk)
    return {
        "workers": stored_workers(project),
        "project": (
            p.document_count,
            p.done_count,
            p.in_progress_count,
            p.todo_count,
            p.assignment_count,
            p.submitted_count,
        ),
        "documents": {
            d.pk: (d.assignment_count, d.annotation_count, d.submitted_count)
            for d in Document.objects.filter(project=project)
        },
        "members": {
            m.user_id: (m.assigned_count, m.in_progress_count, m.submitted_count, m.done_count)
            for m in Membership.objects.filter(project=project)
        },
    }


def check(project: Project) -> None:
    assert stored(project) == expected(project)


@pytest.fixture(params=["one function", "two functions"])
def annotation_update_triggers(request) -> str:
    """PostgreSQL: an annotation UPDATE counted by migration 0020's one trigger function,
    or by the two it replaced (its reverse, run inside the test's transaction)."""
    if request.param == "two functions":
        if connection.vendor != "postgresql":
            pytest.skip("one trigger function per UPDATE: PostgreSQL")
        merged = importlib.import_module(
            "annotations.migrations.0020_one_annotation_update_trigger"
        )
        with connection.schema_editor(atomic=False) as editor:
            merged.split(None, editor)
    return request.param


@pytest.fixture
def team() -> tuple[Project, list[User], User, list[Document]]:
    taxonomy = make_taxonomy()
    project = Project.objects.create(name="Counted", taxonomy=taxonomy, annotators_per_document=2)
    Project.objects.create(name="Elsewhere", taxonomy=taxonomy)
    annotators = [User.objects.create_user(n) for n in ("a", "b", "c")]
    for user in annotators:
        Membership.objects.create(project=project, user=user, role="annotator")
    admin = User.objects.create_user("adm")
    Membership.objects.create(project=project, user=admin, role="admin")
    docs = Document.objects.bulk_create(
        Document(project=project, text=f"Text number {i}.", position=i) for i in range(12)
    )
    return project, annotators, admin, docs


def test_counters_follow_every_kind_of_write(team, annotation_update_triggers) -> None:
    project, (a, b, c), admin, docs = team
    check(project)
    assign_to_annotators(project=project, annotators=[a, b, c], per_document=2, seed=3)
    check(project)
    mine = [d for d in docs if Assignment.objects.filter(document=d, annotator=a).exists()]
    first = start_annotation(document=mine[0], annotator=a)
    second = start_annotation(document=mine[1], annotator=a)
    check(project)
    submit_annotation(annotation=first, by=a)
    check(project)
    # the other annotator of mine[0] submits too: the document is done (2 of 2)
    (other,) = Assignment.objects.filter(document=mine[0]).exclude(annotator=a)
    submit_annotation(
        annotation=start_annotation(document=mine[0], annotator=other.annotator), by=other.annotator
    )
    check(project)
    assert Project.objects.get(pk=project.pk).done_count == 1
    reopen_annotation(annotation=Annotation.objects.get(pk=first.pk), by=admin)
    check(project)
    # a span save bumps the annotation (revision, updated_at): nothing counted changes
    Annotation.objects.filter(pk=second.pk).update(revision=5, updated_at=timezone.now())
    check(project)
    # bulk writes, as importers make them
    Annotation.objects.filter(document__project=project).update(
        status="submitted", submitted_at=timezone.now()
    )
    check(project)
    update_project(project=Project.objects.get(pk=project.pk), annotators_per_document=1)
    check(project)
    unassign(project=project, annotator=b, documents=[d.pk for d in docs], force=True)
    check(project)
    todo = [d.pk for d in docs if Assignment.objects.filter(document=d, annotator=c).exists()]
    reassign(project=project, documents=todo, from_annotator=c, to_annotator=b, force=True)
    check(project)
    Document.objects.get(pk=mine[0].pk).delete()
    Document.objects.filter(pk__in=[docs[-1].pk, docs[-2].pk]).delete()
    check(project)
    late = User.objects.create_user("late")
    Assignment.objects.create(document=docs[2], annotator=late)
    Membership.objects.create(project=project, user=late, role="annotator")  # after the work
    check(project)
    Membership.objects.filter(user=late).delete()
    Assignment.objects.filter(annotator=late).delete()
    check(project)


def test_a_stale_save_does_not_write_counters_back(team) -> None:
    project, (a, b, c), admin, docs = team
    loaded_project = Project.objects.get(pk=project.pk)
    loaded_doc = Document.objects.get(pk=docs[0].pk)
    assign_to_annotators(project=project, annotators=[a, b], per_document=2, seed=1)
    loaded_project.description = "changed"
    loaded_project.save()
    loaded_doc.name = "renamed"
    loaded_doc.save()
    check(project)
    assert Project.objects.get(pk=project.pk).description == "changed"
    assert Document.objects.get(pk=docs[0].pk).name == "renamed"


def test_refresh_counts_repairs_counters(team) -> None:
    project, (a, b, c), admin, docs = team
    assign_to_annotators(project=project, annotators=[a, b, c], per_document=2, seed=2)
    start_annotation(document=Assignment.objects.filter(annotator=a).first().document, annotator=a)
    good = stored(project)
    with connection.cursor() as cursor:  # what a dump restored without triggers leaves
        cursor.execute(
            "UPDATE annotations_document SET assignment_count = 7, annotation_count = 3, "
            "submitted_count = 0 WHERE project_id = %s",
            [project.pk],
        )
        cursor.execute(
            "UPDATE annotations_membership SET assigned_count = 0 WHERE project_id = %s",
            [project.pk],
        )
        cursor.execute(
            "UPDATE annotations_annotatorcounter SET assigned_count = 9, done_count = 4, "
            "last_active = NULL WHERE project_id = %s",
            [project.pk],
        )
    assert stored(project) != good
    refresh_counts(project_ids=[project.pk])
    assert stored(project) == good
    check(project)


@pytest.mark.django_db(transaction=True)
def test_a_span_save_does_not_lock_the_project_row() -> None:
    """A revision bump (what a span save does to its annotation) counts nothing, so it must
    not take the project row the counting triggers lock (annotators would queue on it)."""
    if connection.vendor != "postgresql":
        pytest.skip("row locks: PostgreSQL")
    import psycopg
    from django.db import transaction

    taxonomy = make_taxonomy()
    project = Project.objects.create(name="Locks", taxonomy=taxonomy)
    user = User.objects.create_user("a")
    Membership.objects.create(project=project, user=user, role="annotator")
    doc = Document.objects.create(project=project, text="One.", position=0)
    Assignment.objects.create(document=doc, annotator=user)
    annotation = Annotation.objects.create(document=doc, annotator=user)
    settings = connection.settings_dict
    other = psycopg.connect(
        dbname=settings["NAME"],
        user=settings.get("USER") or "postgres",
        host=settings.get("HOST") or "127.0.0.1",
        port=settings.get("PORT") or 5432,
        password=settings.get("PASSWORD") or None,
        autocommit=True,
    )
    try:
        with transaction.atomic():
            Annotation.objects.filter(pk=annotation.pk).update(revision=2)
            # NOWAIT: an error if the bump holds the project row
            other.execute(
                "SELECT id FROM annotations_project WHERE id = %s FOR UPDATE NOWAIT", [project.pk]
            )
            Annotation.objects.filter(pk=annotation.pk).update(status="submitted")
            with pytest.raises(psycopg.errors.LockNotAvailable):
                other.execute(
                    "SELECT id FROM annotations_project WHERE id = %s FOR UPDATE NOWAIT",
                    [project.pk],
                )
    finally:
        other.close()
    assert Project.objects.get(pk=project.pk).submitted_count == 1


def test_people_counters_follow_leaving_and_the_latest_change(
    team, annotation_update_triggers
) -> None:
    """A person's counters (``AnnotatorCounter``) outlive their membership, and their latest
    change follows bumps, a time set back, a deleted annotation and a moved one."""
    project, (a, b, c), admin, docs = team
    assign_to_annotators(project=project, annotators=[a, b], per_document=1, seed=4)
    mine = [d for d in docs if Assignment.objects.filter(document=d, annotator=a).exists()]
    first = start_annotation(document=mine[0], annotator=a)
    second = start_annotation(document=mine[1], annotator=a)
    unassigned = Annotation.objects.create(document=docs[-1], annotator=c)  # not assigned
    submit_annotation(annotation=first, by=a)
    check(project)
    Membership.objects.filter(project=project, user=a).delete()  # a leaves, work stays
    check(project)
    assert stored_workers(project)[a.pk][2] == 1
    later = timezone.now() + timezone.timedelta(hours=1)
    Annotation.objects.filter(pk=second.pk).update(revision=3, updated_at=later)
    check(project)
    Annotation.objects.filter(pk=second.pk).update(updated_at=later - timezone.timedelta(days=1))
    check(project)
    Annotation.objects.filter(pk=first.pk).update(updated_at=later)
    Annotation.objects.filter(pk=first.pk).delete()
    check(project)
    Annotation.objects.filter(pk=unassigned.pk).update(annotator=b)  # moved to b
    check(project)
    Assignment.objects.filter(annotator=a).delete()
    Annotation.objects.filter(annotator=a).delete()
    check(project)
    assert a.pk not in stored_workers(project)
