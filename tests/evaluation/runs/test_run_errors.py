"""What a project admin reads when a run's model server fails: the class of failure, never
the answering service's body, a traceback or a server path (the operator's log keeps them);
and which model servers a run may address at all (this machine's only where the operator
lists them in production).

The failing service is a real HTTP server on 127.0.0.1 (``http.server`` in a thread); the
run is launched through the API by a project admin (not a superuser) and goes through the
real runner process (``manage.py run_generation``), supervised in this process.
"""

from __future__ import annotations

import io
import json
import logging
import os
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import override_settings
from fallacy_platform import dispatch
from fallacy_platform.celery import app as celery_app
from kombu.exceptions import OperationalError as KombuOperationalError

from annotations.models import Document, Membership, Project
from annotations.services.projects import add_member
from annotations.services.taxonomy import install_preset
from evaluation.backends import GenerationParams, GenerationRequest, ModelSpec, failures
from evaluation.backends.credentials import url_allowed
from evaluation.backends.openai_backend import OpenAIBackend
from evaluation.benchmarks import classification
from evaluation.models import GenerationJob, ModelRun, PromptVariant
from tests.support.builtin_rows import builtin_variant
from tests.support.judging import FORM
from tests.support.openai_server import openai_server
from tests.support.processes import ROOT, free_port
from tests.support.runs import RUNS, build_world, client_for, launch_body, launched

MARKER = "internal-admin-console-7f3a"
#: what the other service's page holds: a marker and one of its own server paths
PAGE = f"<html><body><h1>{MARKER}</h1><p>/srv/console/settings_local.py</p></body></html>"


class _OtherService(BaseHTTPRequestHandler):
    """Another service of the operator's machine: every request gets its HTML 404 page."""

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _page(self) -> None:
        body = PAGE.encode()
        self.send_response(404)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self._page()

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self._page()


@contextmanager
def other_service() -> Iterator[str]:
    """The service's address, as a run's ``base_url`` names it."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _OtherService)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def openai_model(base_url: str) -> dict[str, Any]:
    settings_ = {"base_url": base_url, "max_retries": 0, "concurrency": 1}
    return {"backend": "openai", "model": "test-model", "settings": settings_}


def server_paths() -> list[str]:
    return [str(settings.BASE_DIR), str(settings.DATA_DIR), sys.prefix, "/srv/", "/tmp/"]


# --- the run's error, as its project admin reads it ------------------------------------------


def item_project() -> tuple[Project, User, PromptVariant]:
    """An item project (no published gold version: a transactional test's flush removes it)
    with one item, its admin (not a superuser) and the classification variant."""
    admin = User.objects.create_user("tenant-admin")
    project = Project.objects.create(
        name="Items", taxonomy=install_preset(name="mafalda"), kind="items", form=FORM
    )
    add_member(project=project, user=admin, role=Membership.Role.ADMIN)
    Document.objects.create(
        project=project, text="Everyone says so.", position=0, metadata={"gold": {"type": "a"}}
    )
    # a flush may have emptied the table
    variant = builtin_variant("classification", classification.BUILTIN_VARIANTS[0])
    return project, admin, variant


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_run_against_another_service_shows_its_admin_the_status_only(
    test_database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    project, admin, variant = item_project()
    operator_log = _Records()
    supervisor_logger = logging.getLogger("evaluation.runs.supervisor")
    supervisor_logger.addHandler(operator_log)
    eager = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True  # the shard is supervised in this process
    try:
        with other_service() as base_url:
            # production's setting: this machine's servers only as the operator lists them
            listed = {"MODEL_SERVER_ALLOWED_URLS": base_url, "MODEL_SERVER_ALLOW_LOOPBACK": "0"}
            for name, value in {**listed, "DATABASE_URL": test_database_url}.items():
                monkeypatch.setenv(name, value)  # the runner process's
            body = {
                "project": project.pk,
                "field": "type",
                "models": [openai_model(base_url)],
                "prompt_variants": [variant.pk],
            }
            with override_settings(
                MODEL_SERVER_ALLOWED_URLS=[base_url], MODEL_SERVER_ALLOW_LOOPBACK=False
            ):
                response = client_for(admin).post(RUNS, body, format="json")
            assert response.status_code == 201, response.content
            [run] = response.json()["runs"]
            detail = client_for(admin).get(f"{RUNS}{run['id']}/").json()
    finally:
        celery_app.conf.task_always_eager = eager
        supervisor_logger.removeHandler(operator_log)
    assert detail["status"] == "failed", detail
    shown = json.dumps(detail)
    assert "the model server answered HTTP 404" in detail["error"]
    assert detail["shards"][0]["error"] == detail["error"]
    assert MARKER not in shown and "<html" not in shown
    assert "Traceback" not in shown and ".py" not in shown
    for path in server_paths():
        assert path not in detail["error"], path
    # the operator's log has the service's answer and the runner's traceback
    logged = "\n".join(operator_log.lines)
    assert MARKER in logged and "Traceback" in logged


@pytest.mark.django_db
@pytest.mark.skipif(shutil.which("swipl") is None, reason="SWI-Prolog (swipl) is not installed")
def test_a_generation_job_against_another_service_shows_the_status_only() -> None:
    from tests.support.generation import TYPE, seed

    seed()
    with other_service() as base_url:
        settings_ = json.dumps({"base_url": base_url, "max_retries": 0})
        with pytest.raises(CommandError):
            call_command(
                "generate_fallacies", "--project", "Generated", "--type", TYPE,
                "--backend", "openai", "--model", "test-model", "--n", "2", "--inline",
                "--backend-settings", settings_, stdout=io.StringIO(), stderr=io.StringIO(),
            )  # fmt: skip
    job = GenerationJob.objects.get()
    assert job.status == "failed"
    assert job.error.endswith("the model server answered HTTP 404"), job.error
    assert MARKER not in job.error and ".py" not in job.error and "Error" not in job.error


@pytest.mark.django_db
def test_a_resume_the_queue_refuses_shows_no_broker_address(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks
) -> None:
    def refuse(message: object) -> None:
        raise KombuOperationalError("Error 111 connecting to 10.1.2.3:6379. Connection refused.")

    world = build_world(tmp_path)
    run = launched(world)
    ModelRun.objects.filter(pk=run.pk).update(status=ModelRun.Status.FAILED)
    monkeypatch.setattr(dispatch, "_publish", refuse)
    with pytest.raises(dispatch.QueueUnavailable):  # the API's 503
        with django_capture_on_commit_callbacks(execute=True):
            client_for(world.admin).post(f"{RUNS}{run.pk}/resume/")
    error = client_for(world.admin).get(f"{RUNS}{run.pk}/").json()["error"]
    assert error == "could not be queued (the job queue is unavailable); resume it again"


# --- the classes of failure ------------------------------------------------------------------


def _public_failure(base_url: str, **settings_: Any) -> str:
    spec = ModelSpec("openai", "test-model", {"base_url": base_url, **settings_})
    backend = OpenAIBackend(spec, GenerationParams())
    request = GenerationRequest("k" * 64, "hello")
    with pytest.raises(failures.ModelFailure) as failure:
        for _ in backend.generate([request]):
            pass
    return failure.value.public


@contextmanager
def _raw_service(answer: bytes | None) -> Iterator[str]:
    """A TCP service that reads a request, then sends ``answer`` (not HTTP) or, with None,
    closes at once, as a Redis or PostgreSQL port does to an HTTP request."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.1)  # the accept loop sees the stop soon
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with connection:
                connection.settimeout(2)
                try:
                    connection.recv(65536)
                    if answer is not None:
                        connection.sendall(answer)
                except OSError:
                    pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    finally:
        stop.set()
        listener.close()
        thread.join(timeout=5)


def test_a_closed_port_and_other_services_read_the_same() -> None:
    """Refused, closed without an answer, or answered in another protocol: one text, so a
    run's errors map no ports; the operator's details differ."""
    texts = {}
    texts["refused"] = _public_failure(f"http://127.0.0.1:{free_port()}/v1", max_retries=0)
    with _raw_service(None) as closes:
        texts["closed"] = _public_failure(closes, max_retries=0)
    with _raw_service(b"-ERR unknown command 'POST'\r\n") as redis_like:
        texts["not http"] = _public_failure(redis_like, max_retries=0)
    assert set(texts.values()) == {
        f"request {'k' * 12} failed after 1 attempts: {failures.CONNECT}"
    }, texts


def test_a_timeout_an_http_status_and_an_invalid_answer_are_named() -> None:
    with openai_server(delay=2.0) as slow:
        text = _public_failure(slow.base_url, max_retries=0, timeout=0.3)
    assert text.endswith("the model server did not answer within 0.3 s"), text
    with openai_server() as server:
        server.fail_next(status=503, times=5, message=f"{MARKER} /srv/console/app.py")
        text = _public_failure(server.base_url, max_retries=0)
        assert text.endswith("the model server answered HTTP 503") and MARKER not in text
        facts = OpenAIBackend(
            ModelSpec("openai", "test-model", {"base_url": server.base_url + "/nothing"}),
            GenerationParams(),
        ).environment()
    assert facts["model"]["error"] == "the model server answered HTTP 404"
    with _raw_service(
        b"HTTP/1.1 200 OK\r\nContent-Length: 20\r\nConnection: close\r\n\r\n" + MARKER[:20].encode()
    ) as not_json:
        text = _public_failure(not_json, max_retries=0)
    assert text.endswith(failures.INVALID) and MARKER[:20] not in text


# --- which servers a run may address ---------------------------------------------------------


def test_production_refuses_this_machines_servers_unless_listed(tmp_path: Path) -> None:
    local = "http://127.0.0.1:8000/v1"
    with override_settings(MODEL_SERVER_ALLOWED_URLS=[], MODEL_SERVER_ALLOW_LOOPBACK=False):
        for url in (local, "http://localhost:6379", "http://[::1]:5432/v1", "http://127.1:8000"):
            assert not url_allowed(url), url
        assert not url_allowed("http://0.0.0.0:8000/v1")
        assert not url_allowed("http://[::ffff:127.0.0.1]:8000/v1")
    with override_settings(MODEL_SERVER_ALLOWED_URLS=[], MODEL_SERVER_ALLOW_LOOPBACK=True):
        assert url_allowed(local)  # the embedded default's demo and local servers
    with override_settings(MODEL_SERVER_ALLOWED_URLS=["http://127.0.0.1:8000"]):
        assert url_allowed(local) and not url_allowed("http://127.0.0.1:8001/v1")
    with override_settings(MODEL_SERVER_ALLOWED_URLS=["*"], MODEL_SERVER_ALLOW_LOOPBACK=True):
        assert url_allowed("https://api.example.com/v1")
        # any server but this machine's and link-local ones (cloud metadata)
        for url in (local, "http://169.254.169.254/latest", "http://[fe80::1]:80/v1"):
            assert not url_allowed(url), url
    with override_settings(MODEL_SERVER_ALLOWED_URLS=["*", "http://169.254.169.254:80"]):
        assert url_allowed("http://169.254.169.254/v1")  # named: the operator's choice
    # the default: on without DATABASE_URL (embedded), off with it (production)
    for database_url, expected in (("", "True"), ("postgres://u@127.0.0.1:1/x", "False")):
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in ("DATABASE_URL", "MODEL_SERVER_ALLOW_LOOPBACK")
        }
        env.update(FALLACY_DATA_DIR=str(tmp_path), PYTHONPATH=f"{ROOT / 'platform'}:{ROOT}")
        if database_url:
            env["DATABASE_URL"] = database_url
        shown = subprocess.run(
            [
                sys.executable,
                "-c",
                "import django; from django.conf import settings; django.setup(); "
                "print(settings.MODEL_SERVER_ALLOW_LOOPBACK)",
            ],
            env={**env, "DJANGO_SETTINGS_MODULE": "fallacy_platform.settings"},
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        ).stdout.split()[-1]
        assert shown == expected, (database_url, shown)


@pytest.mark.django_db
def test_launching_at_this_machine_without_the_listing_is_a_400_naming_base_url(
    tmp_path: Path, django_capture_on_commit_callbacks
) -> None:
    world = build_world(tmp_path)
    body = launch_body(world, models=[openai_model("http://127.0.0.1:6379/v1")])
    with (
        override_settings(MODEL_SERVER_ALLOWED_URLS=[], MODEL_SERVER_ALLOW_LOOPBACK=False),
        django_capture_on_commit_callbacks(execute=False) as queued,
    ):
        response = client_for(world.admin).post(RUNS, body, format="json")
    assert response.status_code == 400, response.content
    assert list(response.json()) == ["models[0].settings.base_url"]
    assert "MODEL_SERVER_ALLOWED_URLS" in response.json()["models[0].settings.base_url"][0]
    assert queued == []
