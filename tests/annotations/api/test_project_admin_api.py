"""Setting a project up over REST: create, edit, archive; taxonomies; members; accounts."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from annotations.models import (
    Annotation,
    Assignment,
    Membership,
    Project,
    Span,
    Taxonomy,
)
from tests.support.factories import BOUNDS, PASSWORD, World, make_world

pytestmark = pytest.mark.django_db
FAST_HASHER = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def world(settings) -> World:
    settings.PASSWORD_HASHERS = FAST_HASHER  # the accounts here are not about hashing
    return make_world()


def client_of(user: User) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def creator(world: World) -> APIClient:
    """A Django staff user: may create projects, is a member of none."""
    return client_of(User.objects.create_user("creator", password=PASSWORD, is_staff=True))


@pytest.fixture
def root(world: World) -> APIClient:
    return client_of(User.objects.create_superuser("root", password=PASSWORD))


def taxonomy_file(name: str = "toy", slots: list[str] | None = None) -> dict:
    return {
        "name": name,
        "version": "1",
        "title": "A toy taxonomy",
        "categories": [
            {
                "name": "logic",
                "types": [
                    {"name": "straw man", "template": "E1 says P'.", "slots": slots or ["E1"]},
                    {"name": "false dilemma", "template": "P1 or P2.", "slots": ["P1", "P2"]},
                ],
            }
        ],
    }


def upload(name: str, data: dict) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, yaml.safe_dump(data).encode(), "application/yaml")


# --- projects -------------------------------------------------------------------------


def test_me_says_who_may_create_projects_and_which_projects_are_archived(world, creator):
    Project.objects.filter(pk=world.p1.pk).update(archived_at="2025-01-01T00:00:00Z")
    me = client_of(world.admin).get("/api/auth/me/").json()
    assert (me["is_superuser"], me["can_create_projects"]) == (False, False)
    assert me["projects"] == [{"id": world.p1.pk, "name": "P1", "role": "admin", "archived": True}]
    assert creator.get("/api/auth/me/").json()["can_create_projects"] is True


def test_a_staff_user_creates_a_project_and_becomes_its_admin(world, creator):
    response = creator.post(
        "/api/projects/",
        {
            "name": "Study",
            "description": "A user study",
            "guidelines": "# Read this",
            "taxonomy": world.taxonomy.pk,
            "annotators_per_document": 2,
        },
        format="json",
    )

    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["name"], body["role"], body["archived"]) == ("Study", "admin", False)
    assert (body["annotators_per_document"], body["taxonomy_id"]) == (2, world.taxonomy.pk)
    assert body["taxonomy"]["name"] == "mafalda"
    membership = Membership.objects.get(project_id=body["id"])
    assert (membership.user.username, membership.role) == ("creator", "admin")


def test_project_names_are_unique_and_only_creators_create(world, creator):
    again = creator.post("/api/projects/", {"name": "P1", "taxonomy": world.taxonomy.pk})
    assert again.status_code == 400
    assert again.json() == {"name": ["a project named 'P1' already exists"]}
    unknown = creator.post("/api/projects/", {"name": "New", "taxonomy": 999999})
    assert unknown.json() == {"taxonomy": ["no taxonomy with id 999999"]}

    # A project admin who is not Django staff may not create projects.
    refused = client_of(world.admin).post(
        "/api/projects/", {"name": "Mine", "taxonomy": world.taxonomy.pk}
    )
    assert refused.status_code == 403
    assert not Project.objects.filter(name__in=["New", "Mine"]).exists()


def test_an_admin_edits_the_settings_others_may_not(world):
    url = f"/api/projects/{world.p1.pk}/"
    changes = {"name": "P1 renamed", "guidelines": "New rules", "annotators_per_document": 3}
    for user, expected in [(world.reviewer, 403), (world.ann1, 403), (world.outsider, 404)]:
        assert client_of(user).patch(url, changes, format="json").status_code == expected

    response = client_of(world.admin).patch(url, changes, format="json")

    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["name"], body["guidelines"], body["annotators_per_document"]) == (
        "P1 renamed",
        "New rules",
        3,
    )
    taken = client_of(world.admin).patch(url, {"name": "P2"}, format="json")
    assert taken.json() == {"name": ["a project named 'P2' already exists"]}
    zero = client_of(world.admin).patch(url, {"annotators_per_document": 0}, format="json")
    assert zero.status_code == 400 and "annotators_per_document" in zero.json()


def test_archived_projects_leave_the_default_list(world):
    admin = client_of(world.admin)
    url = f"/api/projects/{world.p1.pk}/"

    assert admin.patch(url, {"archived": True}, format="json").json()["archived"] is True
    assert admin.get("/api/projects/").json()["results"] == []
    archived = admin.get("/api/projects/?archived=1").json()
    assert [(p["name"], p["archived"]) for p in archived["results"]] == [("P1", True)]
    assert archived["results"][0]["annotators_per_document"] == 1
    assert admin.get(url).status_code == 200  # still reachable

    assert admin.patch(url, {"archived": False}, format="json").json()["archived"] is False
    assert [p["name"] for p in admin.get("/api/projects/").json()["results"]] == ["P1"]


def test_an_archived_project_is_read_only_for_annotators(world):
    annotator = client_of(world.ann1)
    span = {"start": BOUNDS[0][0], "end": BOUNDS[0][1], "labels": ["ad hominem"]}
    client_of(world.admin).patch(f"/api/projects/{world.p1.pk}/", {"archived": True}, format="json")

    refused = annotator.post(f"/api/annotations/{world.a1.pk}/spans/", span, format="json")
    assert refused.status_code == 400
    assert refused.json() == {
        "annotation": ["project 'P1' is archived: its annotations are read-only"]
    }
    submit = annotator.post(f"/api/annotations/{world.a1.pk}/submit/", {}, format="json")
    assert submit.status_code == 400
    assert not Span.objects.filter(annotation=world.a1).exists()
    assert annotator.get(f"/api/annotations/{world.a1.pk}/").json()["status"] == "in_progress"

    client_of(world.admin).patch(
        f"/api/projects/{world.p1.pk}/", {"archived": False}, format="json"
    )
    assert (
        annotator.post(f"/api/annotations/{world.a1.pk}/spans/", span, format="json").status_code
        == 201
    )


def test_the_taxonomy_changes_only_before_any_span_or_gold_standard(world, creator):
    other = Taxonomy.objects.create(name="other", version="1", title="Other")
    project = creator.post("/api/projects/", {"name": "Fresh", "taxonomy": world.taxonomy.pk})
    url = f"/api/projects/{project.json()['id']}/"

    changed = creator.patch(url, {"taxonomy": other.pk}, format="json")
    assert changed.status_code == 200 and changed.json()["taxonomy_id"] == other.pk

    # P1 has a gold standard; a span makes it final too.
    Span.objects.create(
        annotation=world.a1, start=BOUNDS[0][0], end=BOUNDS[0][1], labels=["ad hominem"]
    )
    refused = client_of(world.admin).patch(
        f"/api/projects/{world.p1.pk}/", {"taxonomy": other.pk}, format="json"
    )
    assert refused.status_code == 400
    assert refused.json() == {
        "taxonomy": [
            "project 'P1' already has spans or a gold standard; its taxonomy can no longer change"
        ]
    }
    assert Project.objects.get(pk=world.p1.pk).taxonomy_id == world.taxonomy.pk


# --- taxonomies -----------------------------------------------------------------------


def test_taxonomies_and_presets_are_listed_for_creators_and_project_admins(world, creator):
    body = creator.get("/api/taxonomies/").json()
    assert body["taxonomies"] == [
        {
            "id": world.taxonomy.pk,
            "name": "mafalda",
            "version": "1.0",
            "title": "Test taxonomy",
            "type_count": 3,
        }
    ]
    presets = {preset["name"]: preset for preset in body["presets"]}
    assert presets["flub"]["installed_id"] is None
    assert client_of(world.admin).get("/api/taxonomies/").status_code == 200
    assert client_of(world.reviewer).get("/api/taxonomies/").status_code == 403
    assert client_of(world.ann1).get("/api/taxonomies/").status_code == 403


def test_a_taxonomy_file_is_uploaded_once(world, creator):
    created = creator.post("/api/taxonomies/", {"file": upload("toy.yaml", taxonomy_file())})
    assert created.status_code == 201, created.content
    assert created.json() == {
        "id": created.json()["id"],
        "name": "toy",
        "version": "1",
        "title": "A toy taxonomy",
        "type_count": 2,
    }
    again = client_of(world.admin).post(
        "/api/taxonomies/", {"file": upload("toy.yaml", taxonomy_file())}
    )
    assert (again.status_code, again.json()["id"]) == (200, created.json()["id"])
    changed = taxonomy_file()
    changed["title"] = "Changed"
    clash = creator.post("/api/taxonomies/", {"file": upload("toy.yaml", changed)})
    assert clash.status_code == 400 and "already exists" in clash.json()["file"][0]


def test_a_bad_taxonomy_file_reports_what_load_taxonomy_reports(world, creator, tmp_path: Path):
    bad = taxonomy_file(slots=["E1", "P3"])
    bad["categories"][0]["types"][1]["colour"] = "red"
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(bad))
    with pytest.raises(CommandError) as command:
        call_command("load_taxonomy", str(path))
    printed = [
        line.strip().removeprefix(f"{path}: ")
        for line in str(command.value).splitlines()[1:]  # after "<path>: N problems:"
    ]

    response = creator.post("/api/taxonomies/", {"file": upload("bad.yaml", bad)})

    assert response.status_code == 400
    assert response.json() == {"file": printed}
    assert len(printed) == 2
    assert printed[0].startswith('categories[0].types[0].slots[1]: slot "P3"')
    assert not Taxonomy.objects.filter(name="toy").exists()


def test_a_preset_is_installed_by_name(world, creator):
    first = creator.post("/api/taxonomies/", {"preset": "flub"}, format="json")
    assert first.status_code == 201 and first.json()["name"] == "flub"
    second = creator.post("/api/taxonomies/", {"preset": "flub"}, format="json")
    assert (second.status_code, second.json()["id"]) == (200, first.json()["id"])
    unknown = creator.post("/api/taxonomies/", {"preset": "nope"}, format="json")
    assert unknown.status_code == 400
    assert unknown.json()["preset"][0].startswith('no taxonomy preset "nope"')


# --- members --------------------------------------------------------------------------


def test_staff_see_the_members_with_their_work(world):
    url = f"/api/projects/{world.p1.pk}/members/"
    assert client_of(world.ann1).get(url).status_code == 403
    assert client_of(world.outsider).get(url).status_code == 404

    rows = client_of(world.reviewer).get(url).json()

    by_name = {row["user"]["username"]: row for row in rows}
    assert set(by_name) == {"admin", "ann1", "ann2", "reviewer"}
    ann1 = by_name["ann1"]
    assert (ann1["role"], ann1["assigned"], ann1["in_progress"], ann1["submitted"]) == (
        "annotator",
        2,
        1,
        0,
    )
    assert set(ann1["user"]) == {"id", "username"}  # another member's e-mail: never
    assert set(by_name["reviewer"]["user"]) == {"id", "username", "email"}  # one's own


def test_members_are_added_by_username_or_email(world):
    """Among the accounts the admin already shares a project with (here p3's members)."""
    admin = client_of(world.admin)
    url = f"/api/projects/{world.p1.pk}/members/"
    carol = User.objects.create_user("Carol", email="carol@example.org", password=PASSWORD)
    p3 = Project.objects.create(name="P3", taxonomy=world.taxonomy)
    Membership.objects.create(project=p3, user=world.admin, role="admin")
    for user in (carol, world.outsider):
        Membership.objects.create(project=p3, user=user, role="annotator")

    by_name = admin.post(url, {"user": "OUTSIDER", "role": "annotator"}, format="json")
    assert by_name.status_code == 201, by_name.content
    assert (by_name.json()["user"]["username"], by_name.json()["role"]) == ("outsider", "annotator")
    by_email = admin.post(url, {"user": "Carol@Example.org", "role": "reviewer"}, format="json")
    assert by_email.status_code == 201 and by_email.json()["user"]["username"] == "Carol"
    assert "email" not in by_email.json()["user"]
    again = admin.post(url, {"user": "carol", "role": "annotator"}, format="json")
    assert (again.status_code, again.json()["role"]) == (200, "annotator")
    unknown = admin.post(url, {"user": "nobody", "role": "annotator"}, format="json")
    assert unknown.status_code == 400
    assert unknown.json() == {
        "user": [
            "no user you share a project with has the username or e-mail 'nobody'; invite"
            " them instead"
        ]
    }
    refused = client_of(world.reviewer).post(url, {"user": "carol", "role": "admin"})
    assert refused.status_code == 403


def test_roles_change_and_removed_members_keep_their_annotations(world):
    admin = client_of(world.admin)
    ann1 = Membership.objects.get(project=world.p1, user=world.ann1)
    url = f"/api/projects/{world.p1.pk}/members/{ann1.pk}/"

    promoted = admin.patch(url, {"role": "reviewer"}, format="json")
    assert (promoted.status_code, promoted.json()["role"]) == (200, "reviewer")
    assert admin.delete(url).status_code == 204

    assert not Membership.objects.filter(pk=ann1.pk).exists()
    assert Annotation.objects.filter(pk=world.a1.pk, annotator=world.ann1).exists()
    # d1 keeps its assignment (ann1 annotated it); d2's (no annotation) is gone.
    assert set(
        Assignment.objects.filter(annotator=world.ann1).values_list("document_id", flat=True)
    ) == {world.d1.pk}


def test_the_last_admin_stays(world):
    admin = client_of(world.admin)
    own = Membership.objects.get(project=world.p1, user=world.admin)
    url = f"/api/projects/{world.p1.pk}/members/{own.pk}/"

    removed = admin.delete(url)
    assert removed.status_code == 400
    assert "last admin of project 'P1'" in removed.json()["user"][0]
    demoted = admin.patch(url, {"role": "annotator"}, format="json")
    assert demoted.status_code == 400
    assert Membership.objects.get(pk=own.pk).role == "admin"

    reviewer = Membership.objects.get(project=world.p1, user=world.reviewer)
    admin.patch(
        f"/api/projects/{world.p1.pk}/members/{reviewer.pk}/", {"role": "admin"}, format="json"
    )
    assert admin.delete(url).status_code == 204


# --- accounts -------------------------------------------------------------------------


def test_only_superusers_create_accounts(world, root):
    data = {"username": "dana", "email": "dana@example.org", "password": "a-long-password"}
    assert client_of(world.admin).post("/api/users/", data, format="json").status_code == 403

    created = root.post("/api/users/", data, format="json")

    assert created.status_code == 201, created.content
    assert created.json() == {
        "id": created.json()["id"],
        "username": "dana",
        "email": "dana@example.org",
    }
    assert User.objects.get(username="dana").check_password("a-long-password")
    taken = root.post("/api/users/", {**data, "username": "DANA"}, format="json")
    assert taken.status_code == 400 and set(taken.json()) == {"username", "email"}
    weak = root.post("/api/users/", {"username": "eve", "password": "short"}, format="json")
    assert weak.status_code == 400 and list(weak.json()) == ["password"]
    assert "too short" in weak.json()["password"][0]


def test_the_new_endpoints_are_in_the_openapi_schema():
    paths = SchemaGenerator().get_schema(request=None, public=True)["paths"]
    expected = {
        "/api/projects/": {"get", "post"},
        "/api/projects/{id}/": {"get", "patch"},
        "/api/taxonomies/": {"get", "post"},
        "/api/projects/{id}/imports/inspect/": {"post"},
        "/api/projects/{id}/imports/": {"get", "post"},
        "/api/imports/{id}/": {"get"},
        "/api/projects/{id}/members/": {"get", "post"},
        "/api/projects/{id}/members/{membership_id}/": {"patch", "delete"},
        "/api/users/": {"post"},
    }
    for path, methods in expected.items():
        assert methods <= set(paths[path]), path
        for method in methods:
            assert paths[path][method]["tags"] and paths[path][method]["summary"], (path, method)
