"""Failed logins are limited per address and per username and address (429 + Retry-After), on
the session login and the token endpoint; failures for a username from everywhere never lock
its owner out of a new address; correct logins are never slowed down before the limit; failed
attempts are logged without the password."""

from __future__ import annotations

import logging

import pytest
from django.conf import settings
from django.core.cache import cache
from django.test import override_settings
from rest_framework.test import APIClient

PASSWORD = "correct-horse-battery"
LOGIN = "/api/auth/login/"
TOKEN = "/api/auth/token/"


def rates(*, username: str = "3/m", address: str = "100/m", pair: str | None = None):
    """``pair`` (failures per username and address) defaults to ``username``."""
    config = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            "login_username_address": pair or username,
            "login_username": username,
            "login_address": address,
        },
    }
    return override_settings(REST_FRAMEWORK=config)


@pytest.fixture(autouse=True)
def clean_cache():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def alice(django_user_model):
    return django_user_model.objects.create_user("alice", password=PASSWORD)


def attempt(url: str, username: str, password: str, address: str = "10.0.0.1"):
    return APIClient().post(
        url, {"username": username, "password": password}, format="json", REMOTE_ADDR=address
    )


@pytest.mark.django_db
@pytest.mark.parametrize("url", [LOGIN, TOKEN])
def test_failures_per_username_and_address(alice, url: str) -> None:
    with rates(pair="3/m", username="100/m"):
        for _ in range(3):
            assert attempt(url, "alice", "wrong", "10.0.1.1").status_code == 400
        # The attacker's address is refused for alice, the right password included.
        blocked = attempt(url, "Alice", PASSWORD, "10.0.1.1")
        assert blocked.status_code == 429
        assert 1 <= int(blocked["Retry-After"]) <= 60
        # Alice logs in from her own address; another username from the attacker's is counted
        # apart.
        assert attempt(url, "alice", PASSWORD, "10.0.2.1").status_code == 200
        assert attempt(url, "bob", "wrong", "10.0.1.1").status_code == 400
        assert attempt(url, "alice", "wrong", "10.0.1.1").status_code == 429


@pytest.mark.django_db
@pytest.mark.parametrize("url", [LOGIN, TOKEN])
def test_attacker_cannot_lock_a_user_out_from_everywhere(alice, url: str) -> None:
    """Default rates: ten wrong passwords from A refuse A for an hour, never B."""
    attacker, owner = "203.0.113.7", "198.51.100.20"
    for _ in range(10):
        assert attempt(url, "alice", "wrong", attacker).status_code == 400
    assert attempt(url, "alice", PASSWORD, owner).status_code == 200
    for password in ("wrong", PASSWORD):
        blocked = attempt(url, "alice", password, attacker)
        assert blocked.status_code == 429
        assert 3500 < int(blocked["Retry-After"]) <= 3600


@pytest.mark.django_db
def test_failures_per_username_from_everywhere(alice) -> None:
    """Past the username's bound (a distributed guess) every address that failed for it is
    refused, and each new address gets one attempt: the owner's right password still works."""
    with rates(pair="5/h", username="4/h"):
        for i in range(4):
            assert attempt(TOKEN, "alice", "wrong", f"10.3.0.{i}").status_code == 400
        for i in range(4):
            blocked = attempt(TOKEN, "alice", PASSWORD, f"10.3.0.{i}")
            assert blocked.status_code == 429
            assert 3500 < int(blocked["Retry-After"]) <= 3600
        assert attempt(TOKEN, "alice", "wrong", "10.3.1.1").status_code == 400
        assert attempt(TOKEN, "alice", PASSWORD, "10.3.1.1").status_code == 429
        assert attempt(TOKEN, "alice", PASSWORD, "10.3.1.2").status_code == 200
        assert attempt(LOGIN, "alice", PASSWORD, "10.3.1.3").status_code == 200
        # Other usernames from the same addresses are not affected.
        assert attempt(TOKEN, "bob", "wrong", "10.3.0.0").status_code == 400


@pytest.mark.django_db
def test_failures_per_address_across_usernames(alice) -> None:
    with rates(username="100/m", address="4/h"):
        for i in range(4):
            assert attempt(TOKEN, f"user{i}", "wrong", "10.9.9.9").status_code == 400
        blocked = attempt(TOKEN, "alice", PASSWORD, "10.9.9.9")
        assert blocked.status_code == 429
        assert 3000 < int(blocked["Retry-After"]) <= 3600
        assert attempt(TOKEN, "alice", PASSWORD, "10.9.9.10").status_code == 200


@pytest.mark.django_db
def test_correct_logins_are_never_counted(alice) -> None:
    with rates(username="3/m", address="3/m"):
        for _ in range(10):
            assert attempt(TOKEN, "alice", PASSWORD).status_code == 200
            assert attempt(LOGIN, "alice", PASSWORD).status_code == 200
        # Two failures stay below the limit: the right password still works.
        for _ in range(2):
            assert attempt(TOKEN, "alice", "wrong").status_code == 400
        assert attempt(TOKEN, "alice", PASSWORD).status_code == 200


@pytest.mark.django_db
def test_malformed_requests_are_not_counted(alice) -> None:
    with rates(username="2/m", address="2/m"):
        for _ in range(5):
            response = APIClient().post(TOKEN, {"username": "alice"}, format="json")
            assert response.status_code == 400
        assert attempt(TOKEN, "alice", PASSWORD, "127.0.0.1").status_code == 200


@pytest.mark.django_db
def test_failed_attempts_are_logged_without_the_password(alice, caplog) -> None:
    secret = "s3cret-guess-%d"
    with rates(username="2/m"), caplog.at_level(logging.WARNING, logger="fallacy.auth"):
        for i in range(3):
            attempt(LOGIN, "alice", secret % i, "10.7.7.7")
    records = [r for r in caplog.records if r.name == "fallacy.auth"]
    messages = [r.getMessage() for r in records]
    assert len(messages) == 3, messages  # two failures, then the throttled attempt
    assert all(r.levelno == logging.WARNING for r in records)
    assert all("alice" in m and "10.7.7.7" in m for m in messages), messages
    assert "failed login" in messages[0] and "throttled" in messages[2]
    assert not any("s3cret" in m for m in messages)


@pytest.mark.django_db
def test_forwarded_for_is_ignored_without_trusted_proxies(alice) -> None:
    """A client cannot escape the address limit by sending X-Forwarded-For (NUM_PROXIES=0)."""
    with rates(username="100/m", address="2/m"):
        for i in range(2):
            response = APIClient().post(
                TOKEN,
                {"username": f"u{i}", "password": "x"},
                format="json",
                REMOTE_ADDR="10.5.5.5",
                HTTP_X_FORWARDED_FOR=f"192.0.2.{i}",
            )
            assert response.status_code == 400
        response = APIClient().post(
            TOKEN,
            {"username": "u9", "password": "x"},
            format="json",
            REMOTE_ADDR="10.5.5.5",
            HTTP_X_FORWARDED_FOR="192.0.2.99",
        )
        assert response.status_code == 429


def test_schema_documents_429_with_retry_after() -> None:
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    for path in (LOGIN, TOKEN):
        response = schema["paths"][path]["post"]["responses"]["429"]
        assert "Retry-After" in response["headers"]


def test_throttle_cache_is_shared_between_processes() -> None:
    """Not per-process memory: every gunicorn worker must see the same counts."""
    backend = settings.CACHES["default"]["BACKEND"]
    assert "locmem" not in backend.lower(), backend
