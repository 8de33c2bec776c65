"""Slow clients cannot hold the web server's threads. Five logins whose body stalls (the head
says a megabyte, 6 bytes come) and five whose head stalls leave a plain GET's p95 under 1 s
through ``manage.py serve`` (its front server) and through the repository's nginx config in
front of the production gunicorn, while the same five stalls sent to gunicorn directly stop
it. ``serve`` answers the stalled requests 408 once ``CLIENT_BODY_TIMEOUT`` /
``CLIENT_HEADER_TIMEOUT`` pass. Behind either proxy the client's address is its socket's,
whatever it writes in ``X-Forwarded-For`` (the login throttle counts failures per address).
The front keeps HTTP intact: keep-alive, HEAD, large responses, ``Expect: 100-continue``,
bodies that wait in a temporary file, 413 and 411 before a body is read."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest

from tests.support.jobs import DatabaseTemplates
from tests.support.processes import embedded_env, free_port
from tests.support.slow_clients import (
    STALLED_BODY,
    STALLED_HEAD,
    Target,
    get_latencies,
    gunicorn,
    nginx,
    p95,
    read_answer,
    serve,
    stall,
)

pytestmark = pytest.mark.slow

STALLED_FOR_S = 9  # serve's body and header timeouts in these tests
MEASURE_S = 6


@pytest.fixture(scope="module")
def served(
    tmp_path_factory: pytest.TempPathFactory, database_templates: DatabaseTemplates
) -> Iterator[Target]:
    folder = tmp_path_factory.mktemp("serve")
    env = embedded_env(
        folder,
        CLIENT_BODY_TIMEOUT=str(STALLED_FOR_S),
        CLIENT_HEADER_TIMEOUT=str(STALLED_FOR_S),
        LOGIN_THROTTLE_ADDRESS="2/h",
        UPLOAD_MAX_BYTES=str(8 * 1024 * 1024),
    )
    database_templates.sqlite_copy("migrated", folder)
    port = free_port()
    with serve(env, port, folder / "serve.log"):
        yield Target(port)


@pytest.fixture(scope="module")
def proxied(
    tmp_path_factory: pytest.TempPathFactory, database_templates: DatabaseTemplates
) -> Iterator[tuple[Target, Target]]:
    """(nginx's https port, gunicorn's own port): docker-compose.yml's proxy and web."""
    folder = tmp_path_factory.mktemp("proxied")
    env = embedded_env(
        folder,
        NUM_PROXIES="1",
        FALLACY_HTTPS="1",
        SECRET_KEY="test-" + "k9Qz-x7Lw_Rt3V" * 5,
        ALLOWED_HOSTS="localhost,127.0.0.1",
        LOGIN_THROTTLE_ADDRESS="2/h",
    )
    database_templates.sqlite_copy("migrated", folder)
    port = free_port()
    with gunicorn(env, port), nginx(folder / "nginx", f"127.0.0.1:{port}") as (https, _):
        yield https, Target(port)


def test_stalled_requests_leave_serve_answering(served: Target) -> None:
    began = time.monotonic()
    stalled = stall(served, STALLED_BODY) + stall(served, STALLED_HEAD)
    latencies = get_latencies(served, MEASURE_S)
    assert p95(latencies) < 1.0, latencies
    assert time.monotonic() - began < STALLED_FOR_S  # measured while all ten were stalled
    answers = [read_answer(sock, timeout=STALLED_FOR_S + 5) for sock in stalled]
    waited = time.monotonic() - began
    for answer in answers[:5]:
        assert answer.startswith(b"HTTP/1.1 408 "), answer
        assert b"the request body stalled: no bytes for 9 s (6 of 1000000 received)" in answer
    for answer in answers[5:]:
        assert answer.startswith(b"HTTP/1.1 408 "), answer
        assert b"the request head did not arrive within 9 s" in answer
    assert waited < STALLED_FOR_S + 4


def test_stalled_requests_leave_nginx_and_gunicorn_answering(
    proxied: tuple[Target, Target],
) -> None:
    https, direct = proxied
    # The measure can fail: the same stalls sent to gunicorn itself stop it.
    stalled = stall(direct, STALLED_BODY)
    time.sleep(0.5)
    unprotected = get_latencies(direct, 3, timeout=2)
    for sock in stalled:
        sock.close()
    assert p95(unprotected) >= 1.0, unprotected
    assert p95(get_latencies(direct, 2)) < 1.0  # the threads are free again

    stalled = stall(https, STALLED_BODY) + stall(https, STALLED_HEAD)
    latencies = get_latencies(https, MEASURE_S)
    assert p95(latencies) < 1.0, latencies
    for sock in stalled:
        sock.close()


def failed_logins(target: Target, source: str, count: int) -> list[int]:
    """Statuses of ``count`` wrong-password token requests from ``source``, each claiming
    another address in X-Forwarded-For."""
    statuses = []
    for n in range(count):
        connection = target.connection(source=source)
        connection.request(
            "POST",
            "/api/auth/token/",
            body=json.dumps({"username": "nobody", "password": "wrong"}),
            headers={
                "Host": "localhost",
                "Content-Type": "application/json",
                "X-Forwarded-For": f"10.9.8.{n}",
            },
        )
        response = connection.getresponse()
        response.read()
        statuses.append(response.status)
        connection.close()
    return statuses


@pytest.mark.parametrize("server", ["served", "proxied"])
def test_the_client_address_is_the_sockets(server: str, request: pytest.FixtureRequest) -> None:
    found = request.getfixturevalue(server)
    target = found if isinstance(found, Target) else found[0]
    assert failed_logins(target, "127.0.0.2", 3) == [400, 400, 429]
    assert failed_logins(target, "127.0.0.3", 1) == [400]


def exchange(target: Target, data: bytes, expect_continue: bool = False) -> bytes:
    sock = target.socket()
    if expect_continue:
        head, body = data.split(b"\r\n\r\n", 1)
        sock.sendall(head + b"\r\n\r\n")
        assert sock.recv(100) == b"HTTP/1.1 100 Continue\r\n\r\n"
        sock.sendall(body)
    else:
        sock.sendall(data)
    answer = read_answer(sock, timeout=10)
    sock.close()
    return answer


def test_serve_keeps_http_intact(served: Target) -> None:
    connection = served.connection(timeout=30)
    connection.request("GET", "/api/auth/csrf/")
    assert connection.getresponse().read() == b"{}"
    connection.request("HEAD", "/api/schema/")
    head = connection.getresponse()
    assert head.status == 200 and head.read() == b""
    connection.request("GET", "/api/schema/")
    schema = connection.getresponse()
    body = schema.read()
    assert len(body) == int(schema.headers["Content-Length"]) > 100_000
    assert b"/api/auth/token/" in body
    upload = b"x" * (3 * 1024 * 1024)  # waits in a temporary file of the front
    connection.request("POST", "/api/auth/token/", body=upload, headers={"Content-Type": "a/b"})
    refused = connection.getresponse()
    assert refused.status == 415 and b"a/b" in refused.read()
    connection.request("GET", "/api/auth/csrf/")  # the same connection, still in step
    assert connection.getresponse().read() == b"{}"
    connection.close()

    login = json.dumps({"username": "someone", "password": "wrong"}).encode()
    answer = exchange(
        served,
        b"POST /api/auth/token/ HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
        b"Expect: 100-continue\r\nConnection: close\r\n"
        b"Content-Length: %d\r\n\r\n%s" % (len(login), login),
        expect_continue=True,
    )
    assert answer.startswith(b"HTTP/1.1 400 ") and b"wrong password" in answer


def test_serve_refuses_bodies_it_will_not_read(served: Target) -> None:
    began = time.monotonic()
    answer = exchange(
        served,
        b"POST /api/projects/1/imports/ HTTP/1.1\r\nHost: localhost\r\n"
        b"Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 900000000\r\n\r\n",
    )
    assert answer.startswith(b"HTTP/1.1 413 "), answer
    assert b"(900000000 bytes) is larger than the limit: a file of 8 MiB (UPLOAD_MAX_BYTES)" in (
        answer
    )
    answer = exchange(
        served,
        b"POST /api/auth/token/ HTTP/1.1\r\nHost: localhost\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n3\r\nabc",
    )
    assert answer.startswith(b"HTTP/1.1 411 ") and b"Content-Length" in answer
    for ambiguous in (  # framed one way by the front and maybe another by gunicorn: refused
        b"X-A: 1\nTransfer-Encoding: chunked\r\nContent-Length: 3",
        b"Content-Length: 3\r\nContent-Length: 30",
        b"Content-Length: +3",
    ):
        answer = exchange(
            served,
            b"POST /api/auth/token/ HTTP/1.1\r\nHost: localhost\r\n%s\r\n\r\nabc" % ambiguous,
        )
        assert answer.startswith(b"HTTP/1.1 400 "), (ambiguous, answer)
    assert time.monotonic() - began < 8  # answered at once, not after a body timeout
