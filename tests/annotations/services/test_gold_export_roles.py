"""One rule for exporting gold (``policy.may_export_gold``): a project's reviewers and admins
export and publish its gold standard on every path -- the version's export, the dataset
export (MAFALDA, doccano, item formats) -- and its annotators and other projects' admins on
none."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from annotations.importing.datasets import import_mafalda_gold
from annotations.importing.items import import_items
from annotations.models import Membership, Project
from annotations.selectors.gold import gold_state
from annotations.selectors.policy import may_export_gold
from annotations.services.gold import save_document_gold
from annotations.services.projects import add_member, create_project
from annotations.services.taxonomy import install_preset
from tests.support.segmentation import COLUMNS, FORM, ROWS, csv_text

pytestmark = pytest.mark.django_db
EXPORT = "/api/datasets/export/"
TEXT = "You are a fool. So your plan fails. Either we cut taxes or we starve."
# role -> (status on the version's export, status on the dataset export)
EXPECTED = {
    "admin": (200, 200),
    "reviewer": (200, 200),
    "annotator": (404, 403),  # the gold does not exist for them; the project does
    "other-admin": (404, 404),
}


@pytest.fixture
def projects() -> tuple[Project, Project]:
    taxonomy = install_preset(name="mafalda")
    spans = create_project(name="Spans", taxonomy=taxonomy)
    record = {"text": TEXT, "labels": [[0, 15, "ad hominem"]], "comments": []}
    import_mafalda_gold(path=io.StringIO(json.dumps(record) + "\n"), project=spans, name="g.jsonl")
    return spans, create_project(name="Other", taxonomy=taxonomy)


@pytest.fixture
def item_project(tmp_path: Path) -> Project:
    path = tmp_path / "items.csv"
    path.write_text(csv_text(ROWS), encoding="utf-8")
    project = create_project(
        name="Items", taxonomy=install_preset(name="mafalda"), kind="items", form=FORM
    )
    import_items(path=path, project=project, format="items", columns=COLUMNS)
    return project


def _clients(project: Project, other: Project) -> dict[str, tuple[User, APIClient]]:
    clients = {}
    for role in EXPECTED:
        user = User.objects.create_user(f"{role}-of-{project.pk}")
        if role == "other-admin":
            add_member(project=other, user=user, role=Membership.Role.ADMIN)
        else:
            add_member(project=project, user=user, role=role)
        client = APIClient()
        client.force_authenticate(user)
        clients[role] = (user, client)
    return clients


def test_both_gold_export_paths_answer_every_role_alike(projects) -> None:
    project, other = projects
    version = f"/api/projects/{project.pk}/gold/1/export/"
    dataset = {"project": project.pk, "format": "mafalda", "version": 1}
    for role, (user, client) in _clients(project, other).items():
        on_version, on_dataset = client.get(version), client.get(EXPORT, dataset)
        assert (on_version.status_code, on_dataset.status_code) == EXPECTED[role], role
        assert may_export_gold(user, project) == (EXPECTED[role][0] == 200)
        doccano = client.get(EXPORT, {**dataset, "format": "doccano"})
        assert doccano.status_code == EXPECTED[role][1], role
        if on_version.status_code == 200:
            assert on_version.content == on_dataset.content  # the same MAFALDA JSONL
            record = json.loads(on_version.content.decode().splitlines()[0])
            assert (record["text"], record["labels"]) == (TEXT, [[0, 15, "ad hominem"]])
        else:
            assert TEXT not in (on_version.content + on_dataset.content).decode()


def test_an_item_projects_gold_exports_by_the_same_rule(item_project, projects) -> None:
    _, other = projects
    for role, (_, client) in _clients(item_project, other).items():
        for file_format in ("items", "flub", "smartypat"):
            response = client.get(EXPORT, {"project": item_project.pk, "format": file_format})
            assert response.status_code == EXPECTED[role][1], (role, file_format)


def test_reviewers_and_admins_publish_gold(projects) -> None:
    project, other = projects
    document = project.documents.get()
    clients = _clients(project, other)
    published = 1
    for role in ["annotator", "other-admin", "reviewer", "admin"]:
        user, client = clients[role]
        if not project.gold_standards.filter(status="draft").exists():
            labels = ["ad hominem", "slippery slope"][: published % 2 + 1]
            spans = [{"start": 0, "end": 15, "labels": labels}]
            revision = gold_state(document)["revision"]  # the draft starts from the last version
            save_document_gold(document=document, revision=revision, spans=spans, by=user)
        response = client.post(f"/api/projects/{project.pk}/gold/publish/", {"note": role})
        if EXPECTED[role][0] == 200:
            published += 1
            assert response.status_code == 201, (role, response.content)
            assert project.gold_standards.get(note=role).version == published
        else:
            assert response.status_code == 404, role
            assert not project.gold_standards.filter(note=role).exists()
    assert published == 3
