"""Invitations instead of looking users up: a project admin invites by a single-use link (or
e-mail); the holder sets their own username and password, or joins with their account. And
no endpoint tells a project admin whether an account exists, nor another user's e-mail."""

from __future__ import annotations

import socketserver
import threading
from collections.abc import Iterator
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.utils import timezone
from rest_framework.test import APIClient

from annotations.models import Invitation, Membership, Project
from annotations.services.invitations import token_hash
from tests.support.factories import PASSWORD, World, make_world

pytestmark = pytest.mark.django_db
NEW_PASSWORD = "a-long-new-password"


@pytest.fixture
def world(settings) -> World:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    return make_world()


def client_of(user: User) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def invite(world: World, role: str = "reviewer", email: str = "") -> tuple[str, dict]:
    """A new invitation to p1 by its admin: (token, reply)."""
    reply = client_of(world.admin).post(
        f"/api/projects/{world.p1.pk}/invitations/", {"role": role, "email": email}, format="json"
    )
    assert reply.status_code == 201, reply.content
    body = reply.json()
    return body["link"].rstrip("/").rsplit("/", 1)[1], body


def accept(token: str, client: APIClient | None = None, **fields: str):
    return (client or APIClient()).post(f"/api/invitations/{token}/accept/", fields, format="json")


# --- inviting and accepting -------------------------------------------------------------------


def test_an_invited_person_sets_a_password_joins_with_the_role_and_signs_in(world):
    token, body = invite(world, "reviewer")
    assert body["link"] == f"http://testserver/invite/{token}/" and body["sent"] is False
    stored = Invitation.objects.get()
    assert stored.token_hash == token_hash(token) != token  # only the hash is kept
    assert token not in str(Invitation.objects.values().get())
    listed = client_of(world.admin).get(f"/api/projects/{world.p1.pk}/invitations/").json()
    assert [(row["id"], row["role"]) for row in listed] == [(stored.pk, "reviewer")]
    assert "link" not in listed[0]

    holder = APIClient(enforce_csrf_checks=True)
    shown = holder.get(f"/api/invitations/{token}/").json()
    assert (shown["project"], shown["role"], shown["signed_in_as"]) == ("P1", "reviewer", None)
    holder.get("/api/auth/csrf/")
    csrf = {"HTTP_X_CSRFTOKEN": holder.cookies["csrftoken"].value}
    joined = holder.post(
        f"/api/invitations/{token}/accept/",
        {"username": "newbie", "password": NEW_PASSWORD},
        format="json",
        **csrf,
    )
    assert joined.status_code == 200, joined.content
    assert joined.json() == {"project": world.p1.pk, "role": "reviewer", "username": "newbie"}
    me = holder.get("/api/auth/me/").json()  # signed in by the acceptance
    assert [(p["id"], p["role"]) for p in me["projects"]] == [(world.p1.pk, "reviewer")]

    fresh = APIClient()
    fresh.get("/api/auth/csrf/")
    signed = fresh.post(
        "/api/auth/login/", {"username": "newbie", "password": NEW_PASSWORD}, format="json"
    )
    assert signed.status_code == 200
    projects = fresh.get("/api/projects/").json()
    assert [row["name"] for row in projects["results"]] == ["P1"]
    assert client_of(world.admin).get(f"/api/projects/{world.p1.pk}/invitations/").json() == []


def test_a_signed_in_user_joins_with_their_account_and_a_member_keeps_their_role(world):
    token, _ = invite(world, "annotator")
    stranger = User.objects.create_user("stranger", password=PASSWORD)
    shown = client_of(stranger).get(f"/api/invitations/{token}/").json()
    assert (shown["signed_in_as"], shown["member"]) == ("stranger", False)
    joined = accept(token, client_of(stranger))
    assert joined.json() == {"project": world.p1.pk, "role": "annotator", "username": "stranger"}
    assert Membership.objects.get(project=world.p1, user=stranger).role == "annotator"

    token, _ = invite(world, "annotator")
    kept = accept(token, client_of(world.reviewer))
    assert (kept.status_code, kept.json()["role"]) == (200, "reviewer")


def test_used_expired_revoked_and_unknown_links_are_refused_without_naming_the_project(world):
    used, _ = invite(world)
    assert accept(used, username="first", password=NEW_PASSWORD).status_code == 200
    expired, _ = invite(world)
    Invitation.objects.filter(token_hash=token_hash(expired)).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )
    revoked, body = invite(world)
    url = f"/api/projects/{world.p1.pk}/invitations/{body['id']}/"
    assert client_of(world.reviewer).delete(url).status_code == 403
    assert client_of(world.admin).delete(url).status_code == 204
    assert client_of(world.admin).delete(url).status_code == 404  # no longer pending

    for token, expected in [(used, 410), (expired, 410), (revoked, 410), ("x" * 43, 404)]:
        shown = APIClient().get(f"/api/invitations/{token}/")
        tried = accept(token, username=f"u{expected}{token[:4]}", password=NEW_PASSWORD)
        assert (shown.status_code, tried.status_code) == (expected, expected), token
        assert "P1" not in shown.content.decode() + tried.content.decode()
    assert not User.objects.filter(username__startswith="u4").exists()
    assert Membership.objects.filter(project=world.p1).count() == 5  # 4 + "first"


def test_an_invitation_expires_after_the_operators_max_age(world, settings):
    settings.INVITATION_MAX_AGE_DAYS = 2
    before = timezone.now()
    token, _ = invite(world)
    expires = Invitation.objects.get(token_hash=token_hash(token)).expires_at
    assert timedelta(days=2) <= expires - before < timedelta(days=2, minutes=1)


def test_a_refused_username_keeps_the_invitation_and_tells_nothing_of_the_invited_address(world):
    User.objects.create_user("taken", email="someone@example.org", password=PASSWORD)
    token, _ = invite(world, "annotator", email="someone@example.org")
    refused = accept(token, username="TAKEN", password=NEW_PASSWORD)
    assert refused.status_code == 400 and list(refused.json()) == ["username"]
    short = accept(token, username="fresh", password="short")
    assert short.status_code == 400 and list(short.json()) == ["password"]
    joined = accept(token, username="fresh", password=NEW_PASSWORD)
    assert joined.status_code == 200  # the address belongs to another account: not reused
    assert User.objects.get(username="fresh").email == ""


def test_only_the_projects_admins_invite(world):
    url = f"/api/projects/{world.p1.pk}/invitations/"
    for user, expected in [(world.reviewer, 403), (world.ann1, 403), (world.outsider, 404)]:
        assert client_of(user).post(url, {"role": "admin"}, format="json").status_code == expected
        assert client_of(user).get(url).status_code == expected
    bad = client_of(world.admin).post(url, {"role": "owner", "email": "nope"}, format="json")
    assert bad.status_code == 400 and set(bad.json()) == {"role", "email"}
    bad = client_of(world.admin).post(url, {"role": "admin", "email": "nope"}, format="json")
    assert bad.status_code == 400 and set(bad.json()) == {"email"}
    assert not Invitation.objects.exists()


class SmtpHandler(socketserver.StreamRequestHandler):
    """Just enough SMTP to receive a message (EHLO, MAIL, RCPT, DATA, QUIT)."""

    def handle(self) -> None:
        self.wfile.write(b"220 localhost test\r\n")
        while line := self.rfile.readline():
            verb = line[:4].upper()
            if verb == b"DATA":
                self.wfile.write(b"354 go on\r\n")
                body = b"".join(iter(self.rfile.readline, b".\r\n"))
                self.server.messages.append(body.decode())  # type: ignore[attr-defined]
                self.wfile.write(b"250 queued\r\n")
            elif verb == b"QUIT":
                self.wfile.write(b"221 bye\r\n")
                return
            else:
                self.wfile.write(b"250 ok\r\n")


@pytest.fixture
def smtp_server() -> Iterator[socketserver.ThreadingTCPServer]:
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), SmtpHandler)
    server.messages = []  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def test_the_link_is_emailed_only_when_the_operator_configured_sending(
    world, settings, smtp_server
):
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = smtp_server.server_address
    settings.EMAIL_USE_TLS = False
    settings.INVITATION_EMAILS = False
    _, quiet = invite(world, email="dora@example.org")
    assert quiet["sent"] is False and smtp_server.messages == []

    settings.INVITATION_EMAILS = True
    token, sent = invite(world, email="dora@example.org")
    assert sent["sent"] is True
    (message,) = smtp_server.messages
    assert "To: dora@example.org" in message and f"/invite/{token}/" in message
    smtp_server.server_close()  # sending fails: the admin still gets the link
    settings.EMAIL_PORT = 1
    _, failed = invite(world, email="dora@example.org")
    assert failed["sent"] is False and failed["link"]


def test_guessing_tokens_or_usernames_is_throttled_like_signing_in(world, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            "login_address": "4/h",
            "login_username_address": "2/h",
            "login_username": "100/h",
        },
    }
    cache.clear()  # earlier tests' failures from this address
    User.objects.create_user("taken", password=PASSWORD)
    token, _ = invite(world)
    tries = [accept(token, username="taken", password=NEW_PASSWORD).status_code for _ in range(3)]
    assert tries == [400, 400, 429]  # the same taken username twice from one address
    guesses = [APIClient().get(f"/api/invitations/{'x' * 43}/").status_code for _ in range(3)]
    assert guesses == [404, 404, 429]  # 4 failures from this address in all
    assert Invitation.objects.get().accepted_at is None


# --- no user discovery ----------------------------------------------------------------------


def answers_before_and_after_deleting(world: World, ask) -> tuple:
    """``ask(stranger)``'s answer while an account of another project exists, and the same
    question once it is gone: they must be equal."""
    stranger = User.objects.create_user("stranger", email="stranger@example.org")
    Membership.objects.create(project=world.p2, user=stranger, role="annotator")
    before, pk = ask(stranger), stranger.pk
    stranger.delete()
    stranger.pk = pk  # the same id, now missing
    return before, ask(stranger)


@pytest.mark.parametrize(
    "ask",
    [
        pytest.param(
            lambda c, w, s: c.post(
                f"/api/projects/{w.p1.pk}/members/",
                {"user": "stranger", "role": "annotator"},
                format="json",
            ),
            id="member-username",
        ),
        pytest.param(
            lambda c, w, s: c.post(
                f"/api/projects/{w.p1.pk}/members/",
                {"user": "stranger@example.org", "role": "annotator"},
                format="json",
            ),
            id="member-email",
        ),
        pytest.param(
            lambda c, w, s: c.get(
                "/api/datasets/export/",
                {"project": w.p1.pk, "format": "doccano", "annotator": s.pk},
            ),
            id="doccano-export-id",
        ),
        pytest.param(
            lambda c, w, s: c.post(
                f"/api/projects/{w.p1.pk}/assignments/",
                {"annotators": [s.pk], "per_document": 1},
                format="json",
            ),
            id="assign-id",
        ),
        pytest.param(
            lambda c, w, s: c.post(
                f"/api/projects/{w.p1.pk}/assignments/unassign/",
                {"annotator": s.pk, "document_ids": [w.d1.pk]},
                format="json",
            ),
            id="unassign-id",
        ),
    ],
)
def test_a_strangers_account_answers_as_a_missing_one(world, ask):
    admin = client_of(world.admin)
    before, after = answers_before_and_after_deleting(world, lambda s: ask(admin, world, s))
    assert before.status_code == after.status_code == 400, before.content
    assert before.content == after.content
    assert not Membership.objects.filter(project=world.p1, user__username="stranger").exists()


LS_TASK = (
    b'[{"data": {"text": "Hello there."}, "annotations": [{"completed_by": 1, "result": []}]}]'
)


@pytest.mark.parametrize(
    ("url", "fields"),
    [
        pytest.param(
            "/api/datasets/import/",
            lambda w, s: {"format": "doccano", "project": w.p1.pk, "annotator": s.pk},
            id="datasets-import-doccano-id",
        ),
        pytest.param(
            "/api/projects/{p1}/imports/",
            lambda w, s: {"format": "doccano", "annotator": s.username},
            id="import-tab-doccano-username",
        ),
        pytest.param(
            "/api/projects/{p1}/imports/",
            lambda w, s: {"format": "labelstudio", "annotators": f'{{"1": "member:{s.email}"}}'},
            id="import-tab-label-studio-member",
        ),
    ],
)
def test_an_import_into_a_strangers_account_answers_as_a_missing_one(world, url, fields):
    from django.core.files.uploadedfile import SimpleUploadedFile

    admin = client_of(world.admin)

    def ask(stranger: User):
        content = b'{"text": "Hello there.", "label": []}\n'
        if fields(world, stranger)["format"] == "labelstudio":
            content = LS_TASK
        upload = SimpleUploadedFile("d.json", content)
        data = {"file": upload, **fields(world, stranger)}
        return admin.post(url.format(p1=world.p1.pk), data)

    before, after = answers_before_and_after_deleting(world, ask)
    assert before.status_code == after.status_code == 400, before.content
    assert before.content == after.content
    assert not Membership.objects.filter(project=world.p1, user__username="stranger").exists()


def test_a_former_member_is_still_named_by_id(world):
    """Removed from p1, ann1 keeps an annotation there: their doccano export still works."""
    Membership.objects.filter(project=world.p1, user=world.ann1).delete()
    query = {"project": world.p1.pk, "format": "doccano", "annotator": world.ann1.pk}
    assert client_of(world.admin).get("/api/datasets/export/", query).status_code == 200


# --- no e-mail of another user --------------------------------------------------------------


def _gettable_routes() -> Iterator[str]:
    """Every API route, its integer parts filled with 0 (replaced by the caller)."""
    from django.urls import URLPattern, URLResolver, get_resolver

    def walk(patterns, prefix: str) -> Iterator[str]:
        for entry in patterns:
            route = prefix + str(entry.pattern)
            if isinstance(entry, URLResolver):
                yield from walk(entry.url_patterns, route)
            elif isinstance(entry, URLPattern) and route.startswith("api/"):
                yield route

    yield from walk(get_resolver().url_patterns, "")


def test_no_reply_to_a_project_admin_carries_another_users_email(world):
    import re

    for user in User.objects.all():
        user.email = f"{user.username}@mail.example.org"
        user.save()
    admin = client_of(world.admin)
    members = f"/api/projects/{world.p1.pk}/members/"
    p3 = Project.objects.create(name="P3", taxonomy=world.taxonomy)
    Membership.objects.create(project=p3, user=world.admin, role="admin")
    Membership.objects.create(project=p3, user=world.outsider, role="annotator")
    replies = [
        admin.post(members, {"user": "outsider", "role": "annotator"}, format="json"),
        admin.post(members, {"user": "outsider@mail.example.org", "role": "reviewer"}),
        admin.get(members),
        admin.get(f"{members}suggestions/", {"q": "an"}),
    ]
    membership = Membership.objects.get(project=world.p1, user=world.ann1)
    replies.append(admin.patch(f"{members}{membership.pk}/", {"role": "reviewer"}, format="json"))
    ids = {"pk": world.p1.pk, "project_id": world.p1.pk}
    admin.raise_request_exception = False  # another route's failure is not this test's
    for route in _gettable_routes():
        url = "/" + re.sub(r"<(?:int|str|path|slug):(\w+)>", lambda m: str(ids.get(m[1], 1)), route)
        replies.append(admin.get(url, {"project": world.p1.pk}))
    assert [r.status_code for r in replies[:5]] == [201, 200, 200, 200, 200]
    assert len(replies) > 50
    own = "admin@mail.example.org"
    for reply in replies:
        text = reply.content.decode(errors="replace").replace(own, "")
        assert "@mail.example.org" not in text, (reply.request["PATH_INFO"], text[:300])
    listed = admin.get(members).json()
    assert {row["user"]["username"]: row["user"].get("email") for row in listed}["admin"] == own


# --- one link, one member -------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_link_accepted_at_once_by_several_makes_one_member(settings):
    import threading

    from django.db import connection

    from annotations.services.invitations import (
        InvitationGone,
        accept_invitation,
        create_invitation,
    )

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    world = make_world()
    _, token = create_invitation(project=world.p1, role="reviewer", created_by=world.admin)
    takers = [User.objects.create_user(f"taker{i}") for i in range(4)]
    barrier = threading.Barrier(len(takers))
    outcomes: list[str] = []

    def take(user: User) -> None:
        try:
            barrier.wait()
            accept_invitation(token=token, user=user)
            outcomes.append("joined")
        except InvitationGone:
            outcomes.append("gone")
        finally:
            connection.close()

    threads = [threading.Thread(target=take, args=(user,)) for user in takers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["gone", "gone", "gone", "joined"]
    assert Membership.objects.filter(project=world.p1, user__in=takers).count() == 1
