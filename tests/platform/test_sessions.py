"""The browser's session and its user (``fallacy_platform.sessions``): Django's
``cached_db`` sessions on the configured cache, and ModelBackend's rules for the user read
with a hand-written query."""

from __future__ import annotations

import datetime as dt
import time
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.contrib.sessions.models import Session
from django.core.cache import cache
from django.test import override_settings
from django.utils import timezone
from fallacy_platform.authentication import TokenAuthentication
from fallacy_platform.sessions import LEGACY_BACKEND, SessionStore, UserBackend
from rest_framework import authentication, exceptions
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery"


@pytest.fixture
def alice(db: None) -> User:
    return User.objects.create_user("alice", password=PASSWORD)


def logged_in(user: User) -> APIClient:
    """A client logged in through the login endpoint, as the browser is."""
    client = APIClient(enforce_csrf_checks=True)
    client.get("/api/auth/csrf/")
    response = client.post(
        "/api/auth/login/",
        {"username": user.username, "password": PASSWORD},
        format="json",
        HTTP_X_CSRFTOKEN=client.cookies["csrftoken"].value,
    )
    assert response.status_code == 200, response.content
    return client


def me(client: APIClient) -> Any:
    response = client.get("/api/auth/me/")
    return response.json()["username"] if response.status_code == 200 else response.status_code


def cached(key: str) -> Any:
    return cache.get(SessionStore.cache_key_prefix + key)


@override_settings(SESSION_CACHE_SHARED=True)
def test_a_login_holds_until_logout(alice: User) -> None:
    client = logged_in(alice)
    assert me(client) == "alice"
    session = Session.objects.get()
    assert session.get_decoded()["_auth_user_backend"] == settings.AUTHENTICATION_BACKENDS[0]
    assert cached(session.session_key) == session.get_decoded()  # the same data, both stores
    client.post("/api/auth/logout/", HTTP_X_CSRFTOKEN=client.cookies["csrftoken"].value)
    assert me(client) == 403 and not Session.objects.exists()
    assert cached(session.session_key) is None


@override_settings(SESSION_CACHE_SHARED=True)
def test_a_session_the_cache_lost_is_read_from_the_database(alice: User) -> None:
    client = logged_in(alice)
    key = client.cookies[settings.SESSION_COOKIE_NAME].value
    cache.delete(SessionStore.cache_key_prefix + key)
    assert me(client) == "alice"
    assert cached(key)["_auth_user_id"] == str(alice.pk)  # cached again


@override_settings(SESSION_CACHE_SHARED=False)
def test_a_cache_not_shared_by_every_web_host_holds_no_session(alice: User) -> None:
    """Web hosts with their own cache each (``tests/platform/test_web_tier.py``): a session
    is read from the database only, so a logout holds on every host."""
    client = logged_in(alice)
    key = client.cookies[settings.SESSION_COOKIE_NAME].value
    assert me(client) == "alice" and cached(key) is None
    Session.objects.all().delete()  # a logout on another host
    assert me(client) == 403


def test_expired_unknown_and_tampered_sessions_are_none(alice: User) -> None:
    client = logged_in(alice)
    store = SessionStore(client.cookies[settings.SESSION_COOKIE_NAME].value)
    store.load()
    store.set_expiry(1)  # seconds: the database row's and the cache entry's lifetime
    store.save()
    assert me(client) == "alice"
    time.sleep(1.2)
    assert me(client) == 403
    client = logged_in(alice)
    key = client.cookies[settings.SESSION_COOKIE_NAME].value
    Session.objects.filter(session_key=key).update(
        expire_date=timezone.now() - dt.timedelta(seconds=1)
    )
    cache.delete(SessionStore.cache_key_prefix + key)
    assert me(client) == 403  # expired in the database, not in the cache: no session
    client = logged_in(alice)
    key = client.cookies[settings.SESSION_COOKIE_NAME].value
    client.cookies[settings.SESSION_COOKIE_NAME] = key[:-1] + ("a" if key[-1] != "a" else "b")
    assert me(client) == 403
    Session.objects.filter(session_key=key).update(session_data="not signed data")
    cache.delete(SessionStore.cache_key_prefix + key)
    client.cookies[settings.SESSION_COOKIE_NAME] = key
    assert me(client) == 403


def test_inactive_deleted_or_repassworded_users_are_logged_out(alice: User) -> None:
    client = logged_in(alice)
    User.objects.filter(pk=alice.pk).update(is_active=False)
    assert me(client) == 403
    User.objects.filter(pk=alice.pk).update(is_active=True)
    client = logged_in(alice)
    alice.set_password("another password entirely")
    alice.save()
    assert me(client) == 403  # the session's hash is of the old password
    bob = User.objects.create_user("bob", password=PASSWORD)
    client = logged_in(bob)
    bob.delete()
    assert me(client) == 403


def test_sessions_from_before_name_django_s_backend_and_still_log_in(alice: User) -> None:
    store = SessionStore()
    store["_auth_user_id"] = str(alice.pk)
    store["_auth_user_backend"] = LEGACY_BACKEND
    store["_auth_user_hash"] = alice.get_session_auth_hash()
    store.create()
    client = APIClient()
    client.cookies[settings.SESSION_COOKIE_NAME] = store.session_key
    assert me(client) == "alice"
    stored = Session.objects.get(session_key=store.session_key).get_decoded()
    assert stored["_auth_user_backend"] == LEGACY_BACKEND  # read as the new one, not rewritten


def test_users_read_by_hand_equal_the_orm_s(alice: User) -> None:
    """The session's user and the token's user (hand-written SQL) have the field values
    the ORM gives, datetimes aware on every database."""
    logged_in(alice)  # sets last_login
    expected = User.objects.get(pk=alice.pk)
    token = Token.objects.create(user=alice)
    for found in (
        UserBackend().get_user(str(alice.pk)),
        TokenAuthentication().authenticate_credentials(token.key)[0],
    ):
        assert found is not None and found.last_login is not None
        for field in User._meta.concrete_fields:
            assert getattr(found, field.attname) == getattr(expected, field.attname), field.name
        assert timezone.is_aware(found.last_login) and timezone.is_aware(found.date_joined)
    assert UserBackend().get_user("not a number") is None
    assert UserBackend().get_user(str(alice.pk + 1000)) is None


def test_token_authentication_answers_as_drf_s(alice: User) -> None:
    """The token's user read by hand gives the answers of DRF's ``TokenAuthentication``
    (the stock idiom it replaces): the same user and token for a valid key, the same
    error for an unknown key and for an inactive user's."""
    ours, stock = TokenAuthentication(), authentication.TokenAuthentication()
    key = Token.objects.create(user=alice).key

    def answer(way: Any, key: str) -> Any:
        try:
            user, token = way.authenticate_credentials(key)
        except exceptions.AuthenticationFailed as refused:
            return refused.status_code, refused.get_codes(), str(refused.detail)
        fields = [getattr(user, f.attname) for f in User._meta.concrete_fields]
        return fields, token.key, token.user_id

    for each in (key, "0" * 40, "", key.upper()):
        assert answer(ours, each) == answer(stock, each), each
    alice.is_active = False
    alice.save()
    assert answer(ours, key) == answer(stock, key)
    assert answer(ours, key)[2] == "User inactive or deleted."
