"""REST import and export of datasets: permissions, reports, errors, the OpenAPI schema."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from annotations.models import Document, GoldSpan, GoldStandard, Membership, Project
from annotations.services.projects import add_member, create_project
from annotations.services.taxonomy import install_preset

pytestmark = pytest.mark.django_db
IMPORT_URL = "/api/datasets/import/"
EXPORT_URL = "/api/datasets/export/"


@pytest.fixture
def project() -> Project:
    return create_project(name="MAFALDA", taxonomy=install_preset(name="mafalda"))


def _client_for(project: Project, username: str, role: str | None) -> APIClient:
    user = get_user_model().objects.create_user(username=username, password="x" * 12)
    if role is not None:
        add_member(project=project, user=user, role=role)
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def admin(project: Project) -> APIClient:
    return _client_for(project, "admin", Membership.Role.ADMIN)


@pytest.fixture
def annotator(project: Project) -> APIClient:
    return _client_for(project, "annotator", Membership.Role.ANNOTATOR)


@pytest.fixture
def outsider(project: Project) -> APIClient:
    return _client_for(project, "outsider", None)


def _upload(path: Path, name: str | None = None) -> SimpleUploadedFile:
    return SimpleUploadedFile(name or path.name, path.read_bytes(), "application/jsonl")


def _import_gold(client: APIClient, project: Project, path: Path):
    return client.post(
        IMPORT_URL,
        {"file": _upload(path), "format": "mafalda", "project": project.pk},
        format="multipart",
    )


def test_admin_imports_the_gold_standard(admin, project, mafalda_gold_path):
    response = _import_gold(admin, project, mafalda_gold_path)

    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["documents_created"], body["spans"], body["skipped_to_clean"]) == (200, 203, 4)
    assert body["gold_version"] == 1
    gold = GoldStandard.objects.get(project=project)
    assert gold.created_by.username == "admin"


def test_annotator_may_not_import_and_outsider_does_not_see_the_project(
    annotator, outsider, project, mafalda_gold_path
):
    assert _import_gold(annotator, project, mafalda_gold_path).status_code == 403
    assert _import_gold(outsider, project, mafalda_gold_path).status_code == 404
    assert Document.objects.count() == 0


def test_bad_file_answers_400_naming_line_and_field(admin, project, mafalda_gold_path, tmp_path):
    lines = mafalda_gold_path.read_text("utf-8").splitlines()
    record = json.loads(lines[6])
    record["labels"].append([0, 99999, "ad hominem"])
    lines[6] = json.dumps(record)
    broken = tmp_path / "broken.jsonl"
    broken.write_text("\n".join(lines) + "\n", "utf-8")

    response = _import_gold(admin, project, broken)

    assert response.status_code == 400
    detail = response.json()["detail"]
    assert detail.startswith("broken.jsonl:7: labels[")
    assert "end 99999 is beyond the text" in detail
    assert Document.objects.count() == GoldSpan.objects.count() == 0


def test_doccano_import_needs_an_annotator(admin, project, mafalda_dir):
    path = mafalda_dir / "datasets" / "users_results" / "user1.jsonl"
    data = {"file": _upload(path), "format": "doccano", "project": project.pk}
    assert admin.post(IMPORT_URL, data, format="multipart").status_code == 400

    user = get_user_model().objects.create(username="user1")
    data = {"file": _upload(path), "format": "doccano", "project": project.pk, "annotator": user.pk}
    stranger = admin.post(IMPORT_URL, data, format="multipart")  # shares no project with admin
    assert stranger.json() == {"detail": f"no user with id {user.pk} in this project"}
    other = create_project(name="Other", taxonomy=project.taxonomy)
    admin_user = get_user_model().objects.get(username="admin")
    add_member(project=other, user=admin_user, role=Membership.Role.ADMIN)
    add_member(project=other, user=user, role=Membership.Role.ANNOTATOR)
    data["file"] = _upload(path)
    response = admin.post(IMPORT_URL, data, format="multipart")
    assert response.status_code == 201, response.content
    assert response.json()["annotations_created"] == 20
    assert Membership.objects.get(project=project, user=user).role == Membership.Role.ANNOTATOR


def test_admin_exports_gold_as_jsonl(admin, project, mafalda_gold_path):
    _import_gold(admin, project, mafalda_gold_path)

    response = admin.get(EXPORT_URL, {"project": project.pk, "format": "mafalda"})

    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/jsonl")
    records = [json.loads(line) for line in response.content.decode().splitlines()]
    originals = [json.loads(line) for line in mafalda_gold_path.read_text("utf-8").splitlines()]
    assert [r["text"] for r in records] == [r["text"] for r in originals]

    doccano = admin.get(EXPORT_URL, {"project": project.pk, "format": "doccano", "version": 1})
    assert doccano.status_code == 200
    assert set(json.loads(doccano.content.decode().splitlines()[0])) == {
        "id",
        "text",
        "label",
        "Comments",
    }
    missing = admin.get(EXPORT_URL, {"project": project.pk, "format": "mafalda", "version": 2})
    assert missing.status_code == 404


def test_only_admins_export_gold_but_annotators_export_their_own_work(
    admin, annotator, outsider, project, mafalda_dir, mafalda_gold_path
):
    _import_gold(admin, project, mafalda_gold_path)
    query = {"project": project.pk, "format": "mafalda"}
    assert annotator.get(EXPORT_URL, query).status_code == 403
    assert outsider.get(EXPORT_URL, query).status_code == 404

    me = get_user_model().objects.get(username="annotator")
    path = mafalda_dir / "datasets" / "users_results" / "user2.jsonl"
    data = {"file": _upload(path), "format": "doccano", "project": project.pk, "annotator": me.pk}
    assert admin.post(IMPORT_URL, data, format="multipart").status_code == 201

    own = {"project": project.pk, "format": "doccano", "annotator": me.pk}
    response = annotator.get(EXPORT_URL, own)
    assert response.status_code == 200
    assert len(response.content.decode().splitlines()) == 20
    admin_user = get_user_model().objects.get(username="admin")
    others = {"project": project.pk, "format": "doccano", "annotator": admin_user.pk}
    assert annotator.get(EXPORT_URL, others).status_code == 403


def test_endpoints_are_in_the_openapi_schema():
    schema = SchemaGenerator().get_schema(request=None, public=True)
    post = schema["paths"]["/api/datasets/import/"]["post"]
    assert "multipart/form-data" in post["requestBody"]["content"]
    get = schema["paths"]["/api/datasets/export/"]["get"]
    assert "application/jsonl" in get["responses"]["200"]["content"]
    assert {p["name"] for p in get["parameters"]} >= {"project", "format", "annotator", "version"}


def test_reviewers_export_any_annotators_annotations(admin, annotator, project, mafalda_dir):
    """Reviewers read every annotation of the project, so they export any annotator's (the
    same file as the admin gets); an annotator only their own."""
    reviewer = _client_for(project, "reviewer", Membership.Role.REVIEWER)
    me = get_user_model().objects.get(username="annotator")
    path = mafalda_dir / "datasets" / "users_results" / "user2.jsonl"
    data = {"file": _upload(path), "format": "doccano", "project": project.pk, "annotator": me.pk}
    assert admin.post(IMPORT_URL, data, format="multipart").status_code == 201
    theirs = {"project": project.pk, "format": "doccano", "annotator": me.pk}
    by_reviewer, by_admin = reviewer.get(EXPORT_URL, theirs), admin.get(EXPORT_URL, theirs)
    assert by_reviewer.status_code == by_admin.status_code == 200
    assert by_reviewer.content == by_admin.content
    assert len(by_reviewer.content.decode().splitlines()) == 20
    reviewer_user = get_user_model().objects.get(username="reviewer")
    others = {"project": project.pk, "format": "doccano", "annotator": reviewer_user.pk}
    assert annotator.get(EXPORT_URL, others).status_code == 403
