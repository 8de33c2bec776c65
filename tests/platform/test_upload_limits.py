"""Request bodies are refused by size before they are read (``fallacy_platform.uploads``): a
``Content-Length`` over the limit is a 413 naming it, with nothing read; a file streamed past
``UPLOAD_MAX_BYTES`` stops the multipart parser at the limit; a chunked body is a 411 that
the web worker answers without holding the body in memory (a real gunicorn)."""

from __future__ import annotations

import io
import socket
import threading
import time
from collections.abc import Iterator

import pytest
from django.contrib.auth.models import User
from django.core import signals
from django.core.handlers.wsgi import WSGIHandler
from django.db import close_old_connections
from django.test import RequestFactory, override_settings
from django.test.client import MULTIPART_CONTENT, encode_multipart
from rest_framework.authtoken.models import Token

from annotations.models import ImportJob, Membership, Project
from annotations.services.projects import add_member, create_project
from annotations.services.taxonomy import install_preset
from tests.support.processes import ROOT, embedded_env, one_worker_gunicorn, peak_rss

KIB = 1024
MIB = 1024 * KIB
BOUNDARY = "BoUnDaRy"


class CountingInput(io.RawIOBase):
    """A request body of ``size`` bytes that counts what the server read of it."""

    def __init__(self, body: bytes) -> None:
        self.body, self.read_bytes = io.BytesIO(body), 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:
        data = self.body.read(len(buffer))
        buffer[: len(data)] = data
        self.read_bytes += len(data)
        return len(data)


def call(
    path: str, body: bytes, content_type: str, *, declared: bool = True, **meta: str
) -> tuple[int, bytes, int]:
    """POST through Django's WSGI handler: (status, response body, bytes of the body read)."""
    environ = RequestFactory().post(path).environ
    stream = CountingInput(body)
    environ.update(
        {
            "wsgi.input": stream,
            "CONTENT_LENGTH": str(len(body)),
            "CONTENT_TYPE": content_type,
            **meta,
        }
    )
    if not declared:
        del environ["CONTENT_LENGTH"]
    statuses: list[str] = []
    # As Django's test client does: the test's database connection stays open.
    connection_signals = (signals.request_started, signals.request_finished)
    for signal in connection_signals:
        signal.disconnect(close_old_connections)
    try:
        response = WSGIHandler()(environ, lambda status, headers, *_: statuses.append(status))
        content = b"".join(response)
        response.close()
    finally:
        for signal in connection_signals:
            signal.connect(close_old_connections)
    return int(statuses[0].split()[0]), content, stream.read_bytes


@pytest.fixture
def admin_project(db) -> tuple[Project, str]:
    project = create_project(name="Uploads", taxonomy=install_preset(name="mafalda"))
    user = User.objects.create_user("uploader")
    add_member(project=project, user=user, role=Membership.Role.ADMIN)
    return project, f"Token {Token.objects.create(user=user).key}"


def _multipart(size: int) -> bytes:
    line = b'{"text": "A text to import."}\n'
    content = (line * (size // len(line) + 1))[:size]
    fields = {"format": "text", "file": io.BytesIO(content)}
    fields["file"].name = "texts.jsonl"
    return encode_multipart(BOUNDARY, fields)


@override_settings(UPLOAD_MAX_BYTES=MIB, DATA_UPLOAD_MAX_MEMORY_SIZE=64 * KIB)
def test_a_declared_length_over_the_limit_is_refused_before_the_body_is_read(admin_project):
    project, token = admin_project
    url = f"/api/projects/{project.pk}/imports/"
    body = _multipart(2 * MIB)
    started = time.monotonic()
    code, content, read = call(
        url, body, f"{MULTIPART_CONTENT}; boundary={BOUNDARY}", HTTP_AUTHORIZATION=token
    )
    assert code == 413
    assert read == 0
    assert time.monotonic() - started < 2
    assert b"a file of 1 MiB (UPLOAD_MAX_BYTES) and 64 KiB (REQUEST_MAX_BYTES)" in content
    # A JSON body has the smaller limit of the other fields.
    code, content, read = call(url, b"[" + b"1," * 40 * KIB + b"1]", "application/json")
    assert (code, read) == (413, 0)
    assert b"limit: 64 KiB (REQUEST_MAX_BYTES)" in content
    assert ImportJob.objects.count() == 0


@override_settings(UPLOAD_MAX_BYTES=MIB, DATA_UPLOAD_MAX_MEMORY_SIZE=2 * MIB)
def test_a_file_streamed_past_the_limit_stops_the_parser_at_the_limit(admin_project):
    """The declared length passes (file limit + other fields), the file itself does not."""
    project, token = admin_project
    url = f"/api/projects/{project.pk}/imports/"
    body = _multipart(MIB + 512 * KIB)
    code, content, read = call(
        url, body, f"{MULTIPART_CONTENT}; boundary={BOUNDARY}", HTTP_AUTHORIZATION=token
    )
    assert code == 413, content
    assert b"texts.jsonl is larger than the limit of 1 MiB (UPLOAD_MAX_BYTES)" in content
    assert MIB < read < MIB + 256 * KIB  # one parser chunk past the limit, not the rest
    assert ImportJob.objects.count() == 0
    # Under the limit the same upload is imported.
    body = _multipart(MIB - 4 * KIB)
    code, content, _ = call(
        url, body, f"{MULTIPART_CONTENT}; boundary={BOUNDARY}", HTTP_AUTHORIZATION=token
    )
    assert code == 201, content


def test_a_chunked_body_is_answered_411_without_being_read(db) -> None:
    code, content, read = call(
        "/api/auth/token/",
        b"x" * MIB,
        "application/json",
        declared=False,  # a server gives a chunked body no Content-Length
        HTTP_TRANSFER_ENCODING="chunked",
    )
    assert (code, read) == (411, 0)
    assert b"Content-Length" in content


def test_the_limits_are_settings_named_in_the_readme() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    settings_py = (ROOT / "platform" / "fallacy_platform" / "settings.py").read_text("utf-8")
    for name in ("UPLOAD_MAX_BYTES", "REQUEST_MAX_BYTES"):
        assert f"`{name}`" in readme and f'"{name}"' in settings_py


# --- a real gunicorn ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, int]]:
    """gunicorn (one gthread worker) with a 1 MiB upload limit: (port, worker pid)."""
    data = tmp_path_factory.mktemp("uploads")
    env = embedded_env(data, UPLOAD_MAX_BYTES=str(MIB))
    with one_worker_gunicorn(env, timeout=60) as (port, worker):
        yield port, worker


def response_head(sock: socket.socket) -> str:
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(4096)
        if not chunk:
            break
        head += chunk
    return head.decode("latin-1")


def request_head(port: int, headers: str) -> bytes:
    return (
        f"POST /api/projects/1/imports/ HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Content-Type: multipart/form-data; boundary={BOUNDARY}\r\n{headers}\r\n"
    ).encode()


def test_gunicorn_refuses_a_gigabyte_upload_at_once(server: tuple[int, int]) -> None:
    port, worker = server
    before = peak_rss(worker)
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request_head(port, f"Content-Length: {1024 * MIB}\r\n"))
        sock.sendall(b"--" + BOUNDARY.encode() + b"\r\n" + b"x" * 64 * KIB)  # then stalls
        head = response_head(sock)
    assert head.startswith("HTTP/1.1 413"), head
    assert time.monotonic() - started < 3
    assert peak_rss(worker) - before < 8 * MIB


def test_gunicorn_answers_a_chunked_upload_411_with_bounded_memory(
    server: tuple[int, int],
) -> None:
    port, worker = server
    before = peak_rss(worker)
    sent = 0

    def send_chunks(sock: socket.socket) -> None:
        nonlocal sent
        chunk = b"%x\r\n%s\r\n" % (MIB, b"y" * MIB)
        try:
            for _ in range(64):
                sock.sendall(chunk)
                sent += MIB
            sock.sendall(b"0\r\n\r\n")
        except OSError:
            pass  # the server closed the connection: it stopped reading

    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request_head(port, "Transfer-Encoding: chunked\r\n"))
        sender = threading.Thread(target=send_chunks, args=(sock,))
        sender.start()
        head = response_head(sock)
        sender.join(timeout=30)
    assert head.startswith("HTTP/1.1 411"), head
    assert peak_rss(worker) - before < 8 * MIB, (sent, peak_rss(worker) - before)
