"""A project admin chooses an operator's credential by name; a run never names an environment
variable, never carries a key, and never sends a credential to a server it is not tied to.

The model server is a real local OpenAI-compatible HTTP server (``tests/support/openai_server.py``);
each refusal asserts it received nothing. Every launch path that takes backend settings is
tried as a project admin (not a superuser): span runs, item runs, judge runs and generation
jobs.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User

from evaluation.backends import BackendError
from evaluation.backends.credentials import parse_credentials
from evaluation.models import ModelRun
from evaluation.runs.runner import run_shard
from tests.support.launch_paths import PATHS, as_user, created, items_project, refused, span_body
from tests.support.openai_server import FakeOpenAIServer, openai_server

pytestmark = pytest.mark.django_db

SECRET = "sk-operator-0123456789-secret"
DATABASE_SECRET = "postgres://app:db-password-secret@db/app"


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


def openai(settings: dict[str, Any]) -> dict[str, Any]:
    """The tenant's choice of an OpenAI-compatible model with ``settings``."""
    return {"backend": "openai", "model": "test-model", "settings": settings}


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
        fields = [f"settings.{field}"]
        answer = refused(admin, body, openai(settings), fields, django_capture_on_commit_callbacks)
        assert SECRET not in answer
        assert DATABASE_SECRET not in answer
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
    url, data, _ = span_body(admin, tmp_path)(openai({"credential": "lab", "concurrency": 1}))
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
    url, data, _ = span_body(admin, tmp_path)(openai({"base_url": tenants.base_url}))
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
    url, data, _ = span_body(admin, tmp_path)(openai({}))
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
