"""Role isolation: each access queryset holds exactly what the role may see."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser, User

from annotations.models import (
    Assignment,
    Membership,
)
from annotations.selectors.access import (
    annotations_for,
    documents_for,
    gold_standards_for,
    projects_for,
    role_in,
)
from tests.support.factories import PASSWORD, World, make_world


@pytest.fixture
def world(db: None) -> World:
    return make_world()


def ids(qs) -> set[int]:
    return set(qs.values_list("pk", flat=True))


def test_projects_and_roles(world: World) -> None:
    assert ids(projects_for(world.ann1)) == {world.p1.pk}
    assert ids(projects_for(world.outsider)) == {world.p2.pk}
    assert ids(projects_for(AnonymousUser())) == set()
    root = User.objects.create_superuser("root", password=PASSWORD)
    assert ids(projects_for(root)) == {world.p1.pk, world.p2.pk}
    assert role_in(world.ann1, world.p1) == "annotator"
    assert role_in(world.reviewer, world.p1) == "reviewer"
    assert role_in(world.ann1, world.p2) is None
    assert role_in(root, world.p2) == "admin"
    assert role_in(AnonymousUser(), world.p1) is None


def test_documents_annotator_sees_only_assigned(world: World) -> None:
    assert ids(documents_for(world.ann1)) == {world.d1.pk, world.d2.pk}
    assert ids(documents_for(world.ann2)) == {world.d1.pk}
    assert ids(documents_for(world.ann2, world.p2)) == set()
    assert ids(documents_for(world.outsider)) == {world.d4.pk}


def test_documents_annotator_without_assignments_sees_none(world: World) -> None:
    newbie = User.objects.create_user("newbie")
    Membership.objects.create(project=world.p1, user=newbie, role="annotator")
    assert ids(documents_for(newbie)) == set()


def test_documents_assignment_outside_membership_is_ignored(world: World) -> None:
    # An assignment in a project the user is not a member of grants nothing.
    Assignment.objects.create(document=world.d4, annotator=world.ann1)
    assert world.d4.pk not in ids(documents_for(world.ann1))


def test_documents_reviewer_and_admin_see_all_of_their_projects(world: World) -> None:
    p1_docs = {world.d1.pk, world.d2.pk, world.d3.pk}
    assert ids(documents_for(world.reviewer)) == p1_docs
    assert ids(documents_for(world.admin)) == p1_docs
    assert ids(documents_for(world.reviewer, world.p2)) == set()


def test_annotations_for(world: World) -> None:
    assert ids(annotations_for(world.ann1)) == {world.a1.pk}
    assert ids(annotations_for(world.ann2)) == {world.a2.pk}
    assert ids(annotations_for(world.reviewer)) == {world.a1.pk, world.a2.pk}
    assert ids(annotations_for(world.admin)) == {world.a1.pk, world.a2.pk}
    assert ids(annotations_for(world.outsider)) == {world.a4.pk}
    assert ids(annotations_for(AnonymousUser())) == set()


def test_gold_standards_only_for_reviewers_and_admins(world: World) -> None:
    assert ids(gold_standards_for(world.ann1)) == set()
    assert ids(gold_standards_for(world.outsider)) == set()
    assert ids(gold_standards_for(world.reviewer)) == {world.g1.pk}
    assert ids(gold_standards_for(world.admin)) == {world.g1.pk}
