"""Generation jobs over the API, their human review, published gold versions and the report
across jobs. The model is the canned OpenAI-compatible server of ``tests/support/generation.py``;
jobs run inline (``run_job``), as the worker would."""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from rest_framework.test import APIClient

from annotations.models import Document, Membership, Project
from annotations.services.taxonomy import install_preset
from evaluation.models import GeneratedItem, GenerationJob, GenerationRelease
from evaluation.synthesis.generation import run_job
from tests.support.generation import TYPE, answer_for, seed
from tests.support.openai_server import openai_server

pytestmark = [
    pytest.mark.skipif(shutil.which("swipl") is None, reason="SWI-Prolog is not installed"),
    pytest.mark.django_db,
]

JOBS = "/api/evaluation/generation-jobs/"


def launch_body(server, **extra) -> dict:
    return {
        "project": "Gen",
        "type": TYPE,
        "backend": "openai",
        "model": "test-model",
        "settings": {"base_url": server.base_url},
        "n": 20,
        **extra,
    }


@pytest.fixture
def people():
    seed()
    root = User.objects.create_superuser("root", password="x")  # may create projects
    admin = User.objects.create_user("gen-admin", password="x")
    reviewer = User.objects.create_user("gen-reviewer", password="x")
    outsider = User.objects.create_user("outsider", password="x")
    return root, admin, reviewer, outsider


def as_user(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_launch_refusals_follow_the_command_and_queue_nothing(people, tmp_path) -> None:
    root, admin, reviewer, outsider = people
    with openai_server(answer=answer_for(tmp_path / "m")) as server:
        # a new project name: only users who may create projects
        assert as_user(admin).post(JOBS, launch_body(server), format="json").status_code == 403
        refused = as_user(root).post(
            JOBS, launch_body(server, type="no such type", model="", n=0), format="json"
        )
        assert refused.status_code == 400
        assert "n" in refused.json()  # the serializer's range first
        refused = as_user(root).post(
            JOBS, launch_body(server, type="no such type", model=""), format="json"
        )
        assert refused.status_code == 400
        body = refused.json()
        assert "no rule file" in body["type"][0] and "model.model" in body
        assert not GenerationJob.objects.exists() and not Project.objects.filter(name="Gen")
        created = as_user(root).post(JOBS, launch_body(server), format="json")
        assert created.status_code == 201, created.json()
        job = created.json()
        assert job["status"] == "queued" and job["type"] == TYPE and job["method"] == "prolog"
        project = Project.objects.get(name="Gen")
        # an existing project: its admins only (a reviewer and an outsider are refused)
        Membership.objects.create(project=project, user=admin, role="admin")
        Membership.objects.create(project=project, user=reviewer, role="reviewer")
        for user in (reviewer, outsider):
            assert as_user(user).post(JOBS, launch_body(server), format="json").status_code == 403
        assert as_user(admin).post(JOBS, launch_body(server), format="json").status_code == 201
        assert GenerationJob.objects.count() == 2
        # the list: staff of the project only
        assert len(as_user(reviewer).get(JOBS).json()) == 2
        assert as_user(outsider).get(JOBS).json() == []
        assert as_user(outsider).get(f"{JOBS}{job['id']}/").status_code == 404
        assert as_user(outsider).get(JOBS, {"project": project.pk}).status_code == 404


def run_two_jobs(root: User, tmp_path: Path) -> tuple[int, int]:
    """A Prolog-checked job and a direct one (two items), launched over the API and run
    inline against the canned server; their ids."""
    with openai_server(answer=answer_for(tmp_path / "m")) as server:
        job_id = as_user(root).post(JOBS, launch_body(server), format="json").json()["id"]
        direct_id = (
            as_user(root)
            .post(JOBS, launch_body(server, method="direct", n=2), format="json")
            .json()["id"]
        )
        run_job(job_id)
        run_job(direct_id)
    return job_id, direct_id


def review_items(reviewer: User, outsider: User, items: list[dict], direct: list[dict]) -> str:
    """The reviewer accepts the first item edited, rejects the second and accepts the first
    direct one; the outsider may not. Returns the first item's original text."""
    review = "/api/evaluation/generation-items/{}/review/"
    assert (
        as_user(outsider)
        .post(review.format(items[0]["id"]), {"decision": "accept"}, format="json")
        .status_code
        == 404
    )
    bad = as_user(reviewer).post(
        review.format(items[0]["id"]), {"decision": "reject", "text": "x"}, format="json"
    )
    assert bad.status_code == 400 and "text" in bad.json()
    edited = as_user(reviewer).post(
        review.format(items[0]["id"]),
        {"decision": "accept", "text": "  Either we train or we lose.  "},
        format="json",
    )
    assert edited.status_code == 200
    assert edited.json()["review"] == "accepted"
    assert edited.json()["edited_text"] == "Either we train or we lose."
    assert edited.json()["reviewed_by"] == "gen-reviewer"
    rejected = as_user(reviewer).post(
        review.format(items[1]["id"]), {"decision": "reject"}, format="json"
    )
    assert rejected.json()["review"] == "rejected"
    as_user(reviewer).post(review.format(direct[0]["id"]), {"decision": "accept"}, format="json")
    original = Document.objects.get(pk=items[0]["document"]).text
    assert original != "Either we train or we lose."  # the working item is left as it was
    return original


def publish_releases(
    project: Project, admin: User, reviewer: User, direct: list[dict], original: str
) -> None:
    """The admin publishes the accepted items as gold version 1 (then 2); reviewers may not."""
    releases = f"/api/evaluation/projects/{project.pk}/generation-releases/"
    assert as_user(reviewer).post(releases, {}, format="json").status_code == 403
    published = as_user(admin).post(releases, {"note": "first"}, format="json")
    assert published.status_code == 201, published.json()
    release = published.json()
    assert (release["version"], release["items"]) == (1, 2)
    gold = Project.objects.get(pk=release["gold_project"])
    assert gold.kind == "items" and gold.form == project.form
    assert Membership.objects.filter(project=gold, user=reviewer, role="reviewer").exists()
    documents = {d.text: d for d in Document.objects.filter(project=gold)}
    assert set(documents) == {"Either we train or we lose.", direct[0]["text"]}
    for document in documents.values():  # what item runs, exports and the leaderboard read
        assert document.metadata["gold"] == {"types": [TYPE], "fallacious": True}
        assert document.sentences.exists()
    assert documents["Either we train or we lose."].metadata["generation"]["review"] == {
        "by": "gen-reviewer",
        "at": documents["Either we train or we lose."].metadata["generation"]["review"]["at"],
        "edited": True,
        "original": original,
    }
    assert [r["version"] for r in as_user(reviewer).get(releases).json()] == [1]
    assert as_user(admin).post(releases, {}, format="json").json()["version"] == 2


def assert_report(project: Project, reviewer: User) -> None:
    """The report across jobs, from the API and from ``generate_fallacies --report``."""
    report = as_user(reviewer).get("/api/evaluation/generation-report/", {"project": project.pk})
    assert report.status_code == 200
    rows = {(r["type"], r["method"]): r for r in report.json()}
    prolog, baseline = rows[(TYPE, "prolog")], rows[(TYPE, "direct")]
    assert prolog["facts"]["valid"] == 12 and prolog["facts"]["rejected"] == 4
    assert prolog["facts"]["by_reason"] == {"answer_too_long": 1, "directive": 1, "rule": 2}
    assert prolog["judge"]["mean"] == pytest.approx(8 / 3)
    assert prolog["judge"]["share"]["2"] == pytest.approx(1 / 3)
    assert prolog["review"] == {
        "pending": 0, "accepted": 1, "edited": 1, "rejected": 1, "acceptance_rate": 0.5,
    }  # fmt: skip
    assert baseline["facts"]["valid"] is None and baseline["items"] == 2
    assert baseline["review"]["acceptance_rate"] == 1.0 and baseline["review"]["pending"] == 1

    out = io.StringIO()
    call_command("generate_fallacies", "--project", "Gen", "--report", stdout=out)
    assert json.loads(out.getvalue())["rows"] == report.json()
    out = io.StringIO()
    call_command(
        "generate_fallacies", "--project", "Gen", "--report", "--format", "table", stdout=out
    )
    text = out.getvalue()
    assert re.search(
        r"false dilemma +prolog +1 +\d+ +12 +4 +2 +2 +2\.67 +0% +0% +33% +67% +50%", text
    )


def test_progress_review_publish_and_report(people, tmp_path) -> None:
    root, admin, reviewer, outsider = people
    job_id, direct_id = run_two_jobs(root, tmp_path)
    project = Project.objects.get(name="Gen")
    Membership.objects.create(project=project, user=admin, role="admin")
    Membership.objects.create(project=project, user=reviewer, role="reviewer")

    shown = as_user(reviewer).get(f"{JOBS}{job_id}/").json()
    assert shown["status"] == "done" and shown["stage"] is None
    assert (shown["valid"], shown["satisfying"], shown["items_kept"]) == (12, 2, 2)
    assert shown["review"] == {"pending": 2, "accepted": 0, "rejected": 0}
    assert shown["report"]["judge"]["mean"] == pytest.approx(8 / 3)
    items = as_user(reviewer).get(f"{JOBS}{job_id}/items/").json()
    assert len(items) == 2 and all(i["scores"] == [3, 3, 2] for i in items)
    direct = as_user(reviewer).get(f"{JOBS}{direct_id}/items/").json()

    original = review_items(reviewer, outsider, items, direct)
    publish_releases(project, admin, reviewer, direct, original)
    assert_report(project, reviewer)


def test_publishing_nothing_is_a_conflict(people) -> None:
    root, *_ = people
    project = Project.objects.create(
        name="Empty", kind="items", taxonomy=install_preset(name="smartypat")
    )
    releases = f"/api/evaluation/projects/{project.pk}/generation-releases/"
    assert as_user(root).post(releases, {}, format="json").status_code == 409
    assert not GenerationRelease.objects.exists()
    assert not GeneratedItem.objects.exists()
