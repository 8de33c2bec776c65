"""Adding a member suggests usernames as one types, to project admins only, and only among
the accounts they already see (the members of the projects they review or administer): a
project admin cannot list the instance's users. Superusers see every active account."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from annotations.models import Membership, Project
from tests.support.factories import World, make_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(db: None) -> World:
    return make_world()


def client_for(user: Any) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def suggest(user: Any, project: Project, q: str | None) -> Any:
    params = {} if q is None else {"q": q}
    return client_for(user).get(f"/api/projects/{project.pk}/members/suggestions/", params)


def usernames(user: Any, project: Project, q: str) -> list[str]:
    response = suggest(user, project, q)
    assert response.status_code == 200, response.content
    assert set(response.json()) == {"usernames"}  # usernames only: no ids, no e-mails
    return response.json()["usernames"]


def test_admins_get_the_members_of_their_staff_projects(world: World) -> None:
    third = Project.objects.create(name="P3", taxonomy=world.taxonomy)
    Membership.objects.create(project=third, user=world.admin, role="admin")
    annabel = User.objects.create_user("annabel", email="annabel@example.org")
    Membership.objects.create(project=third, user=annabel, role="annotator")
    User.objects.create_user("anna")  # in no project of the admin's: never suggested
    annie = User.objects.create_user("annie")
    Membership.objects.create(project=world.p2, user=annie, role="annotator")
    # the admin is an annotator in p2: its members are not theirs to see
    Membership.objects.create(project=world.p2, user=world.admin, role="annotator")
    empty = Project.objects.create(name="P4", taxonomy=world.taxonomy)
    Membership.objects.create(project=empty, user=world.admin, role="admin")

    assert usernames(world.admin, empty, "an") == ["ann1", "ann2", "annabel"]
    assert usernames(world.admin, empty, "AnN") == ["ann1", "ann2", "annabel"]
    assert usernames(world.admin, empty, "ou") == []  # outsider: a member of p2 only
    assert usernames(world.admin, empty, "annabel@") == []  # never by e-mail
    assert usernames(world.admin, empty, "a%") == []  # wildcards are characters
    # members of the project itself are not suggested again
    assert usernames(world.admin, third, "an") == ["ann1", "ann2"]
    annabel.is_active = False
    annabel.save()
    assert usernames(world.admin, empty, "an") == ["ann1", "ann2"]

    root = User.objects.create_superuser("root")
    assert usernames(root, empty, "an") == ["ann1", "ann2", "anna", "annie"]


def test_only_project_admins_ask_and_the_prefix_is_checked(world: World) -> None:
    for user in (world.reviewer, world.ann1):
        assert suggest(user, world.p1, "an").status_code == 403
    assert suggest(world.outsider, world.p1, "an").status_code == 404
    assert APIClient().get(
        f"/api/projects/{world.p1.pk}/members/suggestions/?q=an"
    ).status_code in (401, 403)
    assert usernames(world.admin, world.p1, " a ") == []  # blanks around: too short a prefix
    for q in ("a", None, "x" * 151):
        response = suggest(world.admin, world.p1, q)
        assert response.status_code == 400, (q, response.content)
        assert "q" in response.json()
