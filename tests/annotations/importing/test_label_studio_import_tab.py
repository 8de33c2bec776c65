"""Label Studio JSON on the browser's Import tab: an export imports with its report and run;
annotators are matched only among the project's members (others get inactive placeholder
accounts); a file with bad tasks lists every one and imports nothing."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model

from annotations.models import Annotation, Membership, Project
from annotations.services.projects import create_project
from annotations.services.taxonomy import install_preset
from evaluation.models import ModelRun
from tests.support.label_studio_export import (
    T1,
    T2,
    label_studio_export,
    post_to_import_tab,
    row_counts,
)

pytestmark = pytest.mark.django_db
User = get_user_model()


@pytest.fixture
def project() -> Project:
    return create_project(name="LS", taxonomy=install_preset(name="mafalda"))


def _members(project: Project) -> None:
    """The file's annotators, members of the project (the Import tab takes no one else)."""
    for username, email in (("alice", "alice@example.org"), ("ls-user-2", "")):
        user = User.objects.create_user(username, email=email)
        Membership.objects.create(project=project, user=user, role="annotator")


def test_the_import_tab_imports_a_label_studio_export(project):
    _members(project)
    content = json.dumps(label_studio_export(), indent=2).encode()
    job = post_to_import_tab(project, "ls.json", content)
    assert job["status"] == "succeeded", job["errors"]
    report = job["report"]
    assert (report["annotations_created"], report["regions_moved"], report["chars_moved"]) == (
        5,
        5,
        134,
    )
    assert [run["name"] for run in report["runs"]] == ["Label Studio fallacy-bert-v1"]
    assert ModelRun.objects.filter(project=project, name="Label Studio fallacy-bert-v1").exists()


def test_the_import_tab_takes_annotators_only_among_the_projects_members(project):
    """A project admin's upload never reaches a user of another project by email: an
    annotator who is not a member gets a new inactive placeholder account (no e-mail, no
    password) holding their work."""
    other = create_project(name="Other team", taxonomy=project.taxonomy)
    outsider = User.objects.create_user("alice", email="alice@example.org")
    Membership.objects.create(project=other, user=outsider, role="annotator")
    before = User.objects.count()
    content = json.dumps(label_studio_export(), indent=2).encode()
    job = post_to_import_tab(project, "ls.json", content)

    assert job["status"] == "succeeded", job["errors"]
    placeholders = User.objects.filter(username__in=job["report"]["placeholders"])
    assert len(placeholders) == 2 and User.objects.count() == before + 1 + 2  # admin, two
    assert not any(
        user.is_active or user.email or user.has_usable_password() for user in placeholders
    )
    assert not Membership.objects.filter(project=project, user=outsider).exists()
    assert not Annotation.objects.filter(annotator=outsider).exists()


def test_the_import_tab_lists_every_bad_task_and_imports_nothing(project):
    tasks = label_studio_export()
    tasks[0]["annotations"][1]["result"][0]["value"]["labels"] = ["Whataboutery"]
    tasks[1]["annotations"][0]["result"][0]["value"]["end"] = 500
    tasks[2]["data"] = {"text": T1}
    before = row_counts()
    content = json.dumps(tasks, indent=2).encode()
    job = post_to_import_tab(project, "bad.json", content)

    assert job["status"] == "failed"
    lines = [n for n, line in enumerate(content.splitlines(), start=1) if line == b"  {"]
    assert [error["text"] for error in job["errors"]] == [
        f"{lines[0]}: task 101: annotations[1].result[0].value.labels[0]: unknown label "
        "'Whataboutery' (not in the project's taxonomy)",
        f"{lines[1]}: task 102: annotations[0].result[0].value: region [34, 500) is outside "
        f"the text (length {len(T2)})",
        f"{lines[2]}: task 103: data.text: same text as the task on line {lines[0]}",
    ]
    assert job["report"] == {}
    assert row_counts() == before[:5] + (before[5] + 1,)  # only the admin who posted
