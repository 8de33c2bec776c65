"""A project admin chooses an operator's credential by name; a run never names an environment
variable, never carries a key, and never sends a credential to a server it is not tied to.

The model server is a real local OpenAI-compatible HTTP server (``tests/support/openai_server.py``);
each refusal asserts it received nothing. Every launch path that takes backend settings is
tried as a project admin (not a superuser): span runs, item runs, judge runs and generation
jobs.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from annotations.importing.datasets import import_mafalda_gold
from annotations.models import Membership, Project
from annotations.services.projects import add_member, create_project
from annotations.services.taxonomy import install_preset
from evaluation.backends import BackendError
from evaluation.backends.credentials import parse_credentials
from evaluation.models import GenerationJob, ModelRun, PromptVariant
from evaluation.runs.runner import run_shard
from tests.support.generation import TYPE, seed
from tests.support.judging import FORM, free_text_run
from tests.support.openai_server import FakeOpenAIServer, openai_server

pytestmark = pytest.mark.django_db

SECRET = "sk-operator-0123456789-secret"
DATABASE_SECRET = "postgres://app:db-password-secret@db/app"
RUNS = "/api/evaluation/runs/"
JUDGES = "/api/evaluation/judges/"
JOBS = "/api/evaluation/generation-jobs/"
TEXT = "You cannot trust Smith on taxes, he cheated on his wife."


@pytest.fixture
def servers() -> Iterator[tuple[FakeOpenAIServer, FakeOpenAIServer]]:
    """The operator's model server (it wants the key) and the tenant's own server."""
    with openai_server(api_key=SECRET) as operators, openai_server() as tenants:
        yield operators, tenants


@pytest.fixture
def operator(settings, monkeypatch, servers) -> FakeOpenAIServer:
    """``MODEL_CREDENTIALS``: "lab", its key in LAB_KEY, tied to the operator's server; and a
    secret in the workers' environment that no run may name."""
    operators, _ = servers
    monkeypatch.setenv("LAB_KEY", SECRET)
    monkeypatch.setenv("DATABASE_URL_FOR_TEST", DATABASE_SECRET)
    settings.MODEL_CREDENTIALS = parse_credentials(
        json.dumps({"lab": {"key_env": "LAB_KEY", "base_url": operators.base_url}})
    )
    settings.MODEL_SERVER_ALLOWED_URLS = []
    return operators


@pytest.fixture
def admin() -> User:
    return User.objects.create_user("tenant-admin")  # not a superuser


def as_user(user: User) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def span_body(admin: User, tmp_path: Path) -> Callable[[dict[str, Any]], tuple[str, dict, str]]:
    project = create_project(name="Spans", taxonomy=install_preset(name="mafalda"))
    gold = tmp_path / "gold.jsonl"
    gold.write_text(json.dumps({"text": TEXT, "labels": [], "comments": []}) + "\n")
    import_mafalda_gold(path=gold, project=project)
    add_member(project=project, user=admin, role=Membership.Role.ADMIN)
    variant = PromptVariant.objects.get(task="mafalda", name="zero-shot", version=1)

    def body(settings: dict[str, Any]) -> tuple[str, dict, str]:
        model = {"backend": "openai", "model": "test-model", "settings": settings}
        return (
            RUNS,
            {
                "project": project.pk,
                "gold_standard": project.gold_standards.get().pk,
                "models": [model],
                "prompt_variants": [variant.pk],
            },
            "models[0].settings",
        )

    return body


def items_project(admin: User) -> Project:
    project = Project.objects.create(
        name="Items", taxonomy=install_preset(name="mafalda"), kind="items", form=FORM
    )
    from annotations.models import Document

    Document.objects.create(project=project, text=TEXT, position=0, metadata={})
    Membership.objects.create(project=project, user=admin, role="admin")
    return project


def item_body(admin: User, tmp_path: Path) -> Callable[[dict[str, Any]], tuple[str, dict, str]]:
    project = items_project(admin)
    variant = PromptVariant.objects.get(task="free-text", name="zero-shot")

    def body(settings: dict[str, Any]) -> tuple[str, dict, str]:
        model = {"backend": "openai", "model": "test-model", "settings": settings}
        return (
            RUNS,
            {
                "project": project.pk,
                "field": "explanation",
                "models": [model],
                "prompt_variants": [variant.pk],
            },
            "models[0].settings",
        )

    return body


def judge_body(admin: User, tmp_path: Path) -> Callable[[dict[str, Any]], tuple[str, dict, str]]:
    project = items_project(admin)
    judged = free_text_run(project, list(project.documents.all()))
    variant = PromptVariant.objects.get(task="judge-fidelity", name="fidelity")

    def body(settings: dict[str, Any]) -> tuple[str, dict, str]:
        model = {"backend": "openai", "model": "test-model", "settings": settings}
        return (
            JUDGES,
            {
                "project": project.pk,
                "judge_model": model,
                "prompt_variant": variant.pk,
                "judged_run": judged.pk,
            },
            "judge_model.settings",
        )

    return body


def generation_body(
    admin: User, tmp_path: Path
) -> Callable[[dict[str, Any]], tuple[str, dict, str]]:
    if shutil.which("swipl") is None:
        pytest.skip("SWI-Prolog is not installed")
    seed()
    root = User.objects.create_superuser("root", password="x")
    with openai_server() as local:  # the project is made by a first launch (nothing runs)
        made = as_user(root).post(
            JOBS,
            {
                "project": "Gen",
                "type": TYPE,
                "backend": "openai",
                "model": "m",
                "settings": {"base_url": local.base_url},
            },
            format="json",
        )
    assert made.status_code == 201, made.content
    project = Project.objects.get(name="Gen")
    Membership.objects.create(project=project, user=admin, role="admin")

    def body(settings: dict[str, Any]) -> tuple[str, dict, str]:
        return (
            JOBS,
            {
                "project": "Gen",
                "type": TYPE,
                "backend": "openai",
                "model": "test-model",
                "settings": settings,
            },
            "model.settings",
        )

    return body


PATHS = {"runs": span_body, "item runs": item_body, "judges": judge_body, "jobs": generation_body}


def created() -> tuple[int, int]:
    return ModelRun.objects.count(), GenerationJob.objects.count()


@pytest.mark.parametrize("path", sorted(PATHS))
def test_a_project_admin_cannot_send_a_secret_or_a_credential_elsewhere(
    path: str,
    admin: User,
    operator: FakeOpenAIServer,
    servers: tuple[FakeOpenAIServer, FakeOpenAIServer],
    tmp_path: Path,
    django_capture_on_commit_callbacks,
) -> None:
    _, tenants = servers
    body = PATHS[path](admin, tmp_path)
    attacks = [  # (settings, the field named, a word of the message)
        ({"base_url": tenants.base_url, "api_key_env": "DATABASE_URL_FOR_TEST"}, "api_key_env"),
        ({"base_url": tenants.base_url, "api_key": SECRET}, "api_key"),
        ({"base_url": tenants.base_url, "credential": "lab"}, "base_url"),
        ({"base_url": "http://10.1.2.3:8000/v1", "credential": "lab"}, "base_url"),
        ({"credential": "DATABASE_URL_FOR_TEST"}, "credential"),
    ]
    before = created()
    for settings, field in attacks:
        url, data, where = body(settings)
        with django_capture_on_commit_callbacks(execute=False) as queued:
            response = as_user(admin).post(url, data, format="json")
        assert response.status_code == 400, (settings, response.content)
        assert f"{where}.{field}" in response.json(), (settings, response.json())
        assert SECRET not in response.content.decode()
        assert DATABASE_SECRET not in response.content.decode()
        assert queued == []
    assert created() == before  # no run, no job
    assert tenants.requests == [] and operator.requests == []  # no request left


def test_a_named_credential_runs_end_to_end_and_the_server_gets_its_key(
    admin: User,
    operator: FakeOpenAIServer,
    servers: tuple[FakeOpenAIServer, FakeOpenAIServer],
    tmp_path: Path,
    django_capture_on_commit_callbacks,
) -> None:
    _, tenants = servers
    url, data, _ = span_body(admin, tmp_path)({"credential": "lab", "concurrency": 1})
    with django_capture_on_commit_callbacks(execute=False):
        response = as_user(admin).post(url, data, format="json")
    assert response.status_code == 201, response.content
    [run] = response.json()["runs"]
    stored = ModelRun.objects.get(pk=run["id"])
    assert stored.config["settings"] == {"credential": "lab", "concurrency": 1}  # no key
    summary = run_shard(stored.pk, 0, log=lambda line: None)
    assert summary.generated == 1
    [request] = operator.completion_requests()
    assert request.headers["Authorization"] == f"Bearer {SECRET}"
    assert tenants.requests == []
    assert SECRET not in json.dumps(ModelRun.objects.get(pk=stored.pk).environment, default=str)


def test_a_stored_run_that_names_a_variable_sends_nothing(
    admin: User,
    operator: FakeOpenAIServer,
    servers: tuple[FakeOpenAIServer, FakeOpenAIServer],
    tmp_path: Path,
    django_capture_on_commit_callbacks,
) -> None:
    """A run stored before variables were refused (or edited in the database) fails in the
    runner before any request."""
    _, tenants = servers
    url, data, _ = span_body(admin, tmp_path)({"base_url": tenants.base_url})
    with django_capture_on_commit_callbacks(execute=False):
        response = as_user(admin).post(url, data, format="json")
    assert response.status_code == 201, response.content
    run = ModelRun.objects.get(pk=response.json()["runs"][0]["id"])
    run.config["settings"]["api_key_env"] = "DATABASE_URL_FOR_TEST"
    run.save(update_fields=["config"])
    with pytest.raises(BackendError, match="api_key_env"):
        run_shard(run.pk, 0, log=lambda line: None)
    assert tenants.requests == [] and operator.requests == []


def test_the_launch_options_offer_the_credential_names_only(
    admin: User, operator: FakeOpenAIServer, tmp_path: Path
) -> None:
    url, data, _ = span_body(admin, tmp_path)({})
    options = as_user(admin).get("/api/evaluation/launch-options/", {"project": data["project"]})
    assert options.status_code == 200
    assert options.json()["credentials"] == [{"name": "lab", "base_urls": [operator.base_url]}]
    assert SECRET not in options.content.decode() and "LAB_KEY" not in options.content.decode()


def test_the_generation_page_gets_the_credential_names_only(
    admin: User, operator: FakeOpenAIServer
) -> None:
    url = "/api/evaluation/generation-credentials/"
    assert as_user(admin).get(url).status_code == 403  # an admin of no project
    items_project(admin)
    answer = as_user(admin).get(url)
    assert answer.status_code == 200
    assert answer.json() == [{"name": "lab", "base_urls": [operator.base_url]}]
    assert SECRET not in answer.content.decode() and "LAB_KEY" not in answer.content.decode()
