"""Production settings: ``manage.py check --deploy`` with docker-compose.yml's environment
reports nothing; the embedded default keeps working over plain http; headers (CSP, HSTS)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from tests.support.processes import ROOT, embedded_env, manage

# Values for the variables docker-compose.yml requires (${VAR:?...}): a strong test key.
REQUIRED = {"SECRET_KEY": "test-" + "k9Qz-x7Lw_Rt3V" * 5}
VARIABLE = re.compile(r"\$\{(\w+)(?::?([-?])([^}]*))?\}")


def _substitute(value: str, given: dict[str, str]) -> str:
    def one(match: re.Match) -> str:
        name, kind, default = match.groups()
        if name in given:
            return given[name]
        if kind == "-":
            return default
        raise AssertionError(f"docker-compose.yml needs {name}: add it to REQUIRED")

    return VARIABLE.sub(one, str(value))


def compose_web_environment() -> dict[str, str]:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    environment = compose["services"]["web"]["environment"]
    return {key: _substitute(value, REQUIRED) for key, value in environment.items()}


def production_env(tmp_path: Path) -> dict[str, str]:
    env = embedded_env(tmp_path)
    env.update(compose_web_environment())
    env["FALLACY_DATA_DIR"] = str(tmp_path)  # /data does not exist here
    return env


def test_compose_environment_is_production() -> None:
    env = compose_web_environment()
    assert env["FALLACY_HTTPS"] == "1"
    assert env["CACHE_URL"].startswith("redis://")
    assert env["DATABASE_URL"].startswith("postgres://")


def test_check_deploy_reports_nothing_in_production(tmp_path: Path) -> None:
    result = manage("check", "--deploy", "--fail-level", "WARNING", env=production_env(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout, result.stdout + result.stderr


def test_check_deploy_complains_without_https(tmp_path: Path) -> None:
    """The check can fail: without FALLACY_HTTPS the same environment misses HSTS etc."""
    env = production_env(tmp_path)
    env["FALLACY_HTTPS"] = "0"
    result = manage("check", "--deploy", "--fail-level", "WARNING", env=env)
    assert result.returncode != 0
    for code in ("security.W004", "security.W008", "security.W012", "security.W016"):
        assert code in result.stderr + result.stdout, code


PROBE = (
    "from django.test import Client; import json; c = Client(); "
    "r = c.get('/login/', secure={secure}, HTTP_X_FORWARDED_PROTO={proto!r}); "
    "print(json.dumps({{'status': r.status_code, 'location': r.get('Location'), "
    "'hsts': r.get('Strict-Transport-Security'), 'csp': r.get('Content-Security-Policy')}}))"
)


def _probe(env: dict[str, str], *, secure: bool, proto: str) -> dict:
    import json

    result = manage("shell", "-c", PROBE.format(secure=secure, proto=proto), env=env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_behind_the_tls_proxy(tmp_path: Path) -> None:
    env = production_env(tmp_path)
    env.pop("DATABASE_URL")  # the page needs no database; keep the check self-contained
    env["ALLOWED_HOSTS"] = "testserver"
    plain = _probe(env, secure=False, proto="http")
    assert plain["status"] == 301 and plain["location"].startswith("https://")
    https = _probe(env, secure=False, proto="https")  # the proxy says the client used TLS
    assert https["status"] in (200, 503)  # 503: frontend not built
    assert "max-age=31536000" in https["hsts"] and "preload" in https["hsts"]
    assert "script-src 'self'" in https["csp"] and "unsafe-inline" not in https["csp"]


def test_embedded_default_serves_plain_http(tmp_path: Path) -> None:
    env = embedded_env(tmp_path, ALLOWED_HOSTS="testserver")
    found = _probe(env, secure=False, proto="http")
    assert found["status"] in (200, 503) and found["location"] is None
    assert found["hsts"] is None
    assert "script-src 'self'" in found["csp"]


ADMIN_PROBE = "from django.urls import reverse; print(reverse('admin:index'))"


def test_admin_url_is_configurable(tmp_path: Path) -> None:
    env = embedded_env(tmp_path, ADMIN_URL="/backstage-7f3/")
    result = manage("shell", "-c", ADMIN_PROBE, env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "/backstage-7f3/"


# --- the reverse proxy (tests/platform/test_slow_clients.py runs its config) -------------------

NGINX_CONF = ROOT / "platform" / "deploy" / "nginx.conf"


def nginx_directives() -> dict[str, list[str]]:
    """Directive name -> the values it is given anywhere in the repository's nginx.conf."""
    found: dict[str, list[str]] = {}
    for line in NGINX_CONF.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line.endswith(";"):
            name, _, value = line[:-1].partition(" ")
            found.setdefault(name, []).append(value.strip())
    return found


def test_only_the_proxy_is_published_and_it_mounts_the_repository_config() -> None:
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    published = {name for name, service in services.items() if service.get("ports")}
    assert published == {"proxy"}
    assert services["proxy"]["image"].startswith("nginx:")
    config = services["proxy"]["volumes"][0].split(":")
    assert (ROOT / config[0]).resolve() == NGINX_CONF.resolve()
    assert config[1:] == ["/etc/nginx/nginx.conf", "ro"]
    assert "${TLS_CERT_DIR:?" in services["proxy"]["volumes"][1]
    assert compose_web_environment()["NUM_PROXIES"] == "1"  # nginx is the one proxy


def _seconds(value: str) -> float:
    return float(value[:-1]) if value.endswith("s") else float(value)


def test_the_proxy_buffers_requests_under_short_timeouts() -> None:
    from django.conf import settings

    found = nginx_directives()
    assert found["proxy_request_buffering"] == ["on"] and found["proxy_buffering"] == ["on"]
    assert 0 < _seconds(found["client_header_timeout"][0]) <= 15
    assert 0 < _seconds(found["client_body_timeout"][0]) <= 15
    assert found["client_header_timeout"] == [f"{settings.CLIENT_HEADER_TIMEOUT:g}s"]
    assert found["client_body_timeout"] == [f"{settings.CLIENT_BODY_TIMEOUT:g}s"]
    # the largest body the application reads: a file and the other fields of its form
    largest = settings.UPLOAD_MAX_BYTES + settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    assert found["client_max_body_size"] == [f"{largest // (1024 * 1024)}m"]
    assert found["server"] == ["web:8000"]
    headers = dict(value.split(" ", 1) for value in found["proxy_set_header"])
    assert headers["X-Forwarded-For"] == "$remote_addr"  # never the client's own claim
    assert headers["X-Forwarded-Proto"] == "$scheme"
    assert any(value.startswith("443 ssl") for value in found["listen"])
