"""Two web processes, as on two hosts behind a load balancer with no sticky sessions: each
a gunicorn with its own data folder and ``HOME``, both against one PostgreSQL database and
one Redis cache, sharing only ``SECRET_KEY``. A browser whose requests alternate between
them stays logged in, writes on one and reads on the other, is logged out on both by one
logout, and its failed logins count on both. Without a shared cache (``CACHE_URL`` unset:
each host's own folder; ``SESSION_CACHE_SHARED=0``, as the README says for several hosts) a
logout still holds on the other host.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest
import requests

from tests.support.jobs import DatabaseTemplates, postgres_services
from tests.support.processes import embedded_env, manage, one_worker_gunicorn
from tests.support.redis_server import scratch_redis

pytestmark = pytest.mark.slow

PASSWORD = "web-tier-pw-123"
MAKE_USER = f"""
from django.contrib.auth.models import User
from annotations.models import Taxonomy
User.objects.create_superuser("tier", password="{PASSWORD}")
print("TAXONOMY", Taxonomy.objects.create(name="tier", version="1", title="Tier").pk)
"""


class Browser:
    """One browser session (one cookie jar) sending each request to the host it is given."""

    def __init__(self, hosts: list[str]) -> None:
        self.hosts, self.session = hosts, requests.Session()

    def call(self, host: int, method: str, path: str, **kwargs) -> requests.Response:
        headers = {"X-CSRFToken": self.session.cookies.get("csrftoken", "")}
        headers["Referer"] = self.hosts[host] + "/"
        return self.session.request(
            method, self.hosts[host] + path, headers=headers, timeout=30, **kwargs
        )

    def login(self, host: int, password: str = PASSWORD) -> requests.Response:
        self.call(host, "GET", "/api/auth/csrf/")
        return self.call(
            host, "POST", "/api/auth/login/", json={"username": "tier", "password": password}
        )


@contextmanager
def web_hosts(tmp_path: Path, database: str, cache: str | None) -> Iterator[tuple[list[str], int]]:
    """The URLs of the two hosts and the id of a taxonomy; the database holds the
    superuser "tier"."""
    shared = {
        "DATABASE_URL": database,
        "SECRET_KEY": secrets.token_urlsafe(40),
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "LOGIN_THROTTLE_USERNAME_ADDRESS": "4/h",
        **({"CACHE_URL": cache} if cache else {"SESSION_CACHE_SHARED": "0"}),
    }
    with ExitStack() as stack:
        hosts = []
        for name in ("a", "b"):
            env = embedded_env(tmp_path / name / "data", HOME=str(tmp_path / name), **shared)
            if name == "a":
                made = manage("shell", "-c", MAKE_USER, env=env)
                assert made.returncode == 0, made.stderr[-2000:]
                taxonomy = int(made.stdout.split("TAXONOMY")[1].split()[0])
            port, _ = stack.enter_context(one_worker_gunicorn(env))
            hosts.append(f"http://127.0.0.1:{port}")
        yield hosts, taxonomy


@pytest.fixture
def database(database_templates: DatabaseTemplates) -> Iterator[str]:
    postgres_services()
    with database_templates.postgres_copy("migrated", prefix="fallacy_webtier") as url:
        yield url


def test_two_web_processes_serve_one_session_with_a_shared_cache(tmp_path, database) -> None:
    with scratch_redis(tmp_path / "redis") as redis_server:
        cache = f"redis://127.0.0.1:{redis_server['port']}/1"
        with web_hosts(tmp_path, database, cache) as (hosts, taxonomy):
            browser = Browser(hosts)
            assert browser.login(0).status_code == 200
            assert browser.call(1, "GET", "/api/auth/me/").json()["username"] == "tier"
            made = browser.call(
                1, "POST", "/api/projects/", json={"name": "Across hosts", "taxonomy": taxonomy}
            )
            assert made.status_code == 201, made.text[:500]
            names = [p["name"] for p in _results(browser.call(0, "GET", "/api/projects/"))]
            assert "Across hosts" in names
            assert browser.call(1, "POST", "/api/auth/logout/").status_code == 204
            assert browser.call(0, "GET", "/api/auth/me/").status_code in (401, 403)
            # failed logins count on both hosts: 2 on each, then the right password is refused
            attacker = Browser(hosts)
            for host in (0, 1, 0, 1):
                assert attacker.login(host, "wrong-password").status_code in (400, 401, 403)
            assert attacker.login(0).status_code == 429


def test_a_logout_holds_on_the_other_host_without_a_shared_cache(tmp_path, database) -> None:
    with web_hosts(tmp_path, database, None) as (hosts, _):
        browser = Browser(hosts)
        assert browser.login(0).status_code == 200
        for host in (0, 1):  # each host has read (and could have cached) the session
            assert browser.call(host, "GET", "/api/auth/me/").json()["username"] == "tier"
        stolen = {"sessionid": browser.session.cookies["sessionid"]}
        assert browser.call(0, "POST", "/api/auth/logout/").status_code == 204
        assert browser.call(1, "GET", "/api/auth/me/").status_code in (401, 403)
        # a copy of the cookie taken before the logout is refused by both hosts too
        for host in (0, 1):
            thief = requests.get(hosts[host] + "/api/auth/me/", cookies=stolen, timeout=30)
            assert thief.status_code in (401, 403)


def _results(response: requests.Response) -> list[dict]:
    body = response.json()
    return body["results"] if isinstance(body, dict) else body
