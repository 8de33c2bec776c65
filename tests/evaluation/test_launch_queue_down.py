"""A launch the job queue refuses (its broker unreachable) answers 503 with ``Retry-After``
and leaves nothing behind that waits for work that will never run: no queued run, no queued
generation job, no project made for it. The broker is made unreachable by a publish that
raises what kombu raises when Redis is away (``tests/platform/test_job_recovery.py`` stops a
real Redis for span runs)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from fallacy_platform import dispatch
from kombu.exceptions import OperationalError as KombuOperationalError
from rest_framework.test import APIClient

from annotations.form_presets import get_form_preset
from annotations.importing.datasets import import_mafalda_gold
from annotations.models import Project
from annotations.services.projects import create_project
from annotations.services.taxonomy import install_preset
from evaluation import queued
from evaluation.models import GenerationJob, ModelRun, PromptVariant
from tests.support.generation import TYPE, seed


@pytest.fixture
def broker_down(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every publish fails as it does while Redis is away; the names it was asked for."""
    attempts: list[str] = []

    def refuse(message: dispatch.Message) -> None:
        attempts.append(message.task)
        raise KombuOperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(dispatch, "_publish", refuse)
    return attempts


@pytest.fixture
def root() -> APIClient:
    client = APIClient()
    client.force_authenticate(User.objects.create_superuser("root", password="x"))
    return client


def assert_unavailable(response) -> None:
    assert response.status_code == 503, response.content
    assert int(response["Retry-After"]) > 0
    assert "job queue" in response.json()["detail"]


# transactional: on_commit callbacks run when the launch commits, inside the request
@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(shutil.which("swipl") is None, reason="SWI-Prolog is not installed")
@pytest.mark.parametrize("project_exists", [True, False])
def test_a_generation_job_the_queue_refuses_is_a_503_and_leaves_no_job(
    root: APIClient, broker_down: list[str], project_exists: bool
) -> None:
    seed()
    if project_exists:
        preset = get_form_preset("smartypat")
        create_project(
            name="Gen", taxonomy=install_preset(name=preset.taxonomy), kind="items",
            form=preset.form,
        )  # fmt: skip
    projects = set(Project.objects.values_list("pk", flat=True))
    body = {"project": "Gen", "type": TYPE, "backend": "random", "model": ""}
    response = root.post("/api/evaluation/generation-jobs/", body, format="json")
    assert broker_down == [queued.gpu_generate_fallacies.name]  # it was tried
    assert_unavailable(response)
    assert GenerationJob.objects.count() == 0  # no job left queued for ever
    assert set(Project.objects.values_list("pk", flat=True)) == projects  # none made for it


# not transactional (SQLite's flush cannot remove a published gold version): the launch's
# on_commit callbacks run as the request's transaction would run them, at its end
@pytest.mark.django_db
def test_a_run_the_queue_refuses_leaves_no_run(
    root: APIClient, broker_down: list[str], tmp_path: Path, django_capture_on_commit_callbacks
) -> None:
    project = create_project(name="Spans", taxonomy=install_preset(name="mafalda"))
    gold = tmp_path / "gold.jsonl"
    gold.write_text(json.dumps({"text": "A text.", "labels": [], "comments": []}) + "\n")
    import_mafalda_gold(path=gold, project=project)
    body = {
        "project": project.pk,
        "gold_standard": project.gold_standards.get().pk,
        "models": [{"backend": "random", "model": "", "settings": {}}],
        "prompt_variants": [PromptVariant.objects.get(task="mafalda", name="zero-shot").pk],
    }
    with pytest.raises(dispatch.QueueUnavailable):  # the API's 503 (test_run_liveness)
        with django_capture_on_commit_callbacks(execute=True):
            response = root.post("/api/evaluation/runs/", body, format="json")
            assert response.status_code == 201  # not committed yet
    assert broker_down == [queued.gpu_generate.name]
    assert ModelRun.objects.count() == 0
