"""Project-wide wiring: settings per run mode, real Celery workers, deployment files, demo."""

import json
import os
import shutil
import subprocess
import urllib.request
from http.cookiejar import CookieJar
from pathlib import Path

import pytest
import yaml

from tests.support.processes import (
    ROOT,
    celery_worker,
    embedded_env,
    free_port,
    manage,
    start,
    stop,
    wait_for_http,
)

SETTINGS_PROBE = (
    "from django.conf import settings as s; import json; print(json.dumps({"
    "'engine': s.DATABASES['default']['ENGINE'], 'broker': s.CELERY_BROKER_URL, "
    "'backend': s.CELERY_RESULT_BACKEND, 'debug': s.DEBUG, "
    "'journal': s.DATABASES['default'].get('OPTIONS', {}).get('init_command', '')}))"
)

PING_BOTH_QUEUES = (
    "from fallacy_platform.tasks import ping, gpu_ping; import json; "
    "print(json.dumps([ping.delay().get(timeout=60), gpu_ping.delay().get(timeout=60)]))"
)


def probe_settings(env: dict[str, str]) -> dict:
    result = manage("shell", "-c", SETTINGS_PROBE, env=env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_embedded_default_uses_sqlite_wal_and_filesystem_broker(tmp_path: Path) -> None:
    found = probe_settings(embedded_env(tmp_path))
    assert found["engine"] == "django.db.backends.sqlite3"
    assert "journal_mode=WAL" in found["journal"]
    assert found["broker"] == "filesystem://"
    assert found["backend"].startswith("file://")
    assert found["debug"] is False


def test_production_settings_come_from_the_environment(tmp_path: Path) -> None:
    env = embedded_env(
        tmp_path,
        DATABASE_URL="postgres://someone@db.example:5432/fallacy",
        CELERY_BROKER_URL="redis://cache.example:6379/0",
        SECRET_KEY="from-the-environment",
    )
    found = probe_settings(env)
    assert found["engine"] == "fallacy_platform.postgresql"  # Django's, quieter health check
    assert found["broker"] == "redis://cache.example:6379/0"
    assert found["backend"] == "redis://cache.example:6379/0"
    assert found["debug"] is False


def test_embedded_worker_process_consumes_both_queues(tmp_path: Path) -> None:
    env = embedded_env(tmp_path)
    with celery_worker(env):
        result = manage("shell", "-c", PING_BOTH_QUEUES, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    default_answer, gpu_answer = json.loads(result.stdout.strip().splitlines()[-1])
    assert (default_answer["queue"], gpu_answer["queue"]) == ("default", "gpu")
    assert default_answer["database"] == "sqlite"
    assert default_answer["pid"] != str(os.getpid())


def test_redis_worker_consumes_both_queues(tmp_path: Path, test_database_url: str) -> None:
    broker = os.environ.get("CELERY_BROKER_URL", "")
    if not broker.startswith("redis://"):
        pytest.skip("CELERY_BROKER_URL is not a Redis URL (make test sets it when Redis runs)")
    env = embedded_env(tmp_path, CELERY_BROKER_URL=broker, DATABASE_URL=test_database_url)
    with celery_worker(env):
        result = manage("shell", "-c", PING_BOTH_QUEUES, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    answers = json.loads(result.stdout.strip().splitlines()[-1])
    assert [a["queue"] for a in answers] == ["default", "gpu"]
    expected = (
        "postgresql" if os.environ.get("DATABASE_URL", "").startswith("postgres") else "sqlite"
    )
    assert answers[0]["database"] == expected


def test_gpu_tasks_route_to_the_gpu_queue() -> None:
    from fallacy_platform.celery import app

    assert app.amqp.router.route({}, "fallacy_platform.gpu_ping")["queue"].name == "gpu"
    assert app.amqp.router.route({}, "fallacy_platform.ping")["queue"].name == "default"


def test_docker_compose_describes_production() -> None:
    compose = shutil.which("docker-compose")
    command = [compose, "config"] if compose else ["docker", "compose", "config"]
    env = {**os.environ, "SECRET_KEY": "compose-check", "TLS_CERT_DIR": "/etc/ssl/fallacy"}
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    services = yaml.safe_load(result.stdout)["services"]
    assert set(services) == {"proxy", "web", "worker", "gpu-worker", "postgres", "redis"}

    def command_of(service: str) -> str:
        command = services[service]["command"]
        return command if isinstance(command, str) else " ".join(command)

    assert "gunicorn" in command_of("web")
    worker_cmd, gpu_cmd = command_of("worker"), command_of("gpu-worker")
    assert "-Q default" in worker_cmd and "-Q gpu" in gpu_cmd
    devices = services["gpu-worker"]["deploy"]["resources"]["reservations"]["devices"]
    assert devices[0]["driver"] == "nvidia" and "gpu" in devices[0]["capabilities"]
    assert services["web"]["environment"]["DATABASE_URL"].startswith("postgres://")
    assert services["worker"]["environment"]["CELERY_BROKER_URL"].startswith("redis://")


@pytest.mark.slow
@pytest.mark.e2e
def test_make_demo_serves_the_demo(tmp_path: Path) -> None:
    port = free_port()
    env = embedded_env(tmp_path, PORT=str(port))
    env.pop("MAKEFLAGS", None)
    demo = start(["make", "--no-print-directory", "demo"], env)
    base = f"http://127.0.0.1:{port}"
    try:
        page = wait_for_http(f"{base}/login/", timeout=240, process=demo)
        assert "<html" in page.lower()
        assert "swagger" in wait_for_http(f"{base}/api/docs/").lower()

        jar = CookieJar()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        opener.open(f"{base}/api/auth/csrf/").read()
        token = next(c.value for c in jar if c.name == "csrftoken")
        login = urllib.request.Request(
            f"{base}/api/auth/login/",
            data=json.dumps({"username": "demo-annotator", "password": "fallacy-demo"}).encode(),
            headers={
                "Content-Type": "application/json",
                "X-CSRFToken": token,
                "Referer": base + "/",
            },
        )
        assert json.loads(opener.open(login).read())["username"] == "demo-annotator"
        projects = json.loads(opener.open(f"{base}/api/projects/").read())["results"]
        assert any(p["name"] == "Demo: everyday arguments" for p in projects)

        # The demo's worker answers on both queues through the embedded broker.
        result = manage("shell", "-c", PING_BOTH_QUEUES, env=env, timeout=120)
        assert result.returncode == 0, result.stderr
    finally:
        stop(demo)
        output = demo.stdout.read() if demo.stdout else ""
    assert f"http://127.0.0.1:{port}/" in output
    assert "demo-annotator" in output and "fallacy-demo" in output


def test_api_docs_page_works_offline(client) -> None:
    """The browsable OpenAPI page serves its JavaScript and CSS itself (no CDN)."""
    import re

    page = client.get("/api/docs/")
    assert page.status_code == 200
    html = page.content.decode()
    assets = re.findall(r'(?:src|href)="([^"]+\.(?:js|css))"', html)
    assert assets and all(url.startswith("/static/") for url in assets)
    for url in assets:
        response = client.get(url)
        assert response.status_code == 200, url
    # No inline script (Content-Security-Policy): the init script is a file of its own.
    assert "<script>" not in html and "<style>" not in html
    script = client.get("/api/docs/?script=")
    assert script.status_code == 200 and "SwaggerUIBundle" in script.content.decode()
    assert "script-src 'self'" in page["Content-Security-Policy"]
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert schema.status_code == 200
    assert schema.json()["openapi"].startswith("3.")


def test_openapi_schema_is_valid_without_warnings(tmp_path: Path) -> None:
    from django.core.management import call_command

    out = tmp_path / "schema.yml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    paths = yaml.safe_load(out.read_text())["paths"]
    for path in (
        "/api/spans/{id}/",
        "/api/datasets/import/",
        "/api/evaluation/score/",
        "/api/evaluation/agreement/",
    ):
        assert path in paths
