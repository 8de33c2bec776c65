"""Slow clients and the servers they are sent to: the repository's nginx configuration run
with a temporary prefix (``nginx``), ``manage.py serve`` (``serve``), a bare gunicorn
(``gunicorn``), sockets that stall mid-request (``stall``) and a plain GET's latencies."""

from __future__ import annotations

import functools
import http.client
import os
import shutil
import signal
import socket
import ssl
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.support.processes import PYTHON, ROOT, free_port, stop, wait_for_http

NGINX_CONF = ROOT / "platform" / "deploy" / "nginx.conf"
GUNICORN_CONF = ROOT / "platform" / "fallacy_platform" / "gunicorn.conf.py"
PLAIN_GET = "/api/auth/csrf/"
# A login whose body never comes: the head says a megabyte, 6 bytes follow.
STALLED_BODY = (
    b"POST /api/auth/login/ HTTP/1.1\r\nHost: localhost\r\n"
    b"Content-Type: application/json\r\nContent-Length: 1000000\r\n\r\n" + b'{"a":1'
)
# X-Forwarded-Proto: gunicorn behind nginx redirects plain http (nginx sets the header itself).
GET_HEADERS = {"Host": "localhost", "X-Forwarded-Proto": "https"}
STALLED_HEAD = b"POST /api/auth/login/ HTTP/1.1\r\nHost: localhost\r\nContent-Le"


def nginx_binary() -> str | None:
    return shutil.which("nginx") or next(
        (path for path in ("/usr/sbin/nginx",) if os.access(path, os.X_OK)), None
    )


@functools.cache
def client_context() -> ssl.SSLContext:
    """TLS without verification (the test's own certificate), made once: loading the
    system's CA certificates takes a tenth of a second."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


@dataclass
class Target:
    """Where a test sends requests: a port on 127.0.0.1, over TLS or not."""

    port: int
    tls: bool = False

    def connection(self, timeout: float = 5, source: str = "") -> http.client.HTTPConnection:
        source_address = (source, 0) if source else None
        if self.tls:
            return http.client.HTTPSConnection(
                "127.0.0.1",
                self.port,
                timeout=timeout,
                context=client_context(),
                source_address=source_address,
            )
        return http.client.HTTPConnection(
            "127.0.0.1", self.port, timeout=timeout, source_address=source_address
        )

    def socket(self) -> socket.socket:
        sock = socket.create_connection(("127.0.0.1", self.port), timeout=30)
        if self.tls:
            return client_context().wrap_socket(sock, server_hostname="localhost")
        return sock


def stall(target: Target, opening: bytes, count: int = 5) -> list[socket.socket]:
    """``count`` connections that send ``opening`` and then nothing more."""
    sockets = []
    for _ in range(count):
        sock = target.socket()
        sock.sendall(opening)
        sockets.append(sock)
    return sockets


def get_latencies(target: Target, seconds: float, timeout: float = 5) -> list[float]:
    """A plain GET again and again (a new connection each, as a new visitor) for ``seconds``:
    the seconds each took; one that failed or timed out counts as ``timeout``."""
    latencies = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        began = time.monotonic()
        connection = target.connection(timeout=timeout)
        try:
            connection.request("GET", PLAIN_GET, headers=GET_HEADERS)
            response = connection.getresponse()
            response.read()
            ok = response.status == 200
        except OSError:
            ok = False
        finally:
            connection.close()
        latencies.append(time.monotonic() - began if ok else timeout)
    return latencies


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[round(0.95 * (len(ordered) - 1))]


def read_answer(sock: socket.socket, timeout: float) -> bytes:
    """What the server sends on a stalled connection before it closes it (b"" if nothing)."""
    sock.settimeout(timeout)
    received = b""
    try:
        while chunk := sock.recv(65536):
            received += chunk
    except (TimeoutError, ConnectionError, ssl.SSLError):
        pass
    return received


@contextmanager
def gunicorn(env: dict[str, str], port: int) -> Iterator[subprocess.Popen]:
    """The production gunicorn (gunicorn.conf.py) of one worker with 4 threads on ``port``."""
    env = {**env, "WEB_BIND": f"127.0.0.1:{port}", "WEB_WORKERS": "1", "WEB_THREADS": "4"}
    process = subprocess.Popen(
        [str(Path(PYTHON).with_name("gunicorn")), "-c", str(GUNICORN_CONF)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        while get_latencies(Target(port), 0.01)[0] >= 5:  # failed
            assert process.poll() is None and time.monotonic() < deadline, "gunicorn did not start"
            time.sleep(0.5)
        yield process
    finally:
        stop(process)


def render_nginx_config(folder: Path, upstream: str, http_port: int, https_port: int) -> Path:
    """The repository's nginx.conf with the test's upstream, ports, certificate and paths."""
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"]
        + ["-subj", "/CN=localhost", "-keyout", str(folder / "privkey.pem")]
        + ["-out", str(folder / "fullchain.pem")],
        check=True,
        capture_output=True,
    )
    text = NGINX_CONF.read_text()
    for old, new in {
        "server web:8000;": f"server {upstream};",
        "listen 80;": f"listen 127.0.0.1:{http_port};",
        "listen 443 ssl;": f"listen 127.0.0.1:{https_port} ssl;",
        "/var/run/nginx.pid": f"{folder}/nginx.pid",
        "/var/log/nginx/": f"{folder}/",
        "/var/cache/nginx/": f"{folder}/",
        "/etc/nginx/certs/": f"{folder}/",
    }.items():
        assert old in text, f"{NGINX_CONF} no longer has {old!r}"
        text = text.replace(old, new)
    path = folder / "nginx.conf"
    path.write_text(text)
    return path


@contextmanager
def nginx(folder: Path, upstream: str) -> Iterator[tuple[Target, Target]]:
    """nginx with the repository's configuration in front of ``upstream``: (https, http)."""
    binary = nginx_binary()
    assert binary, "nginx is not installed (make install installs nginx-light)"
    http_port, https_port = free_port(), free_port()
    config = render_nginx_config(folder, upstream, http_port, https_port)
    directives = "daemon off;" + (" user root;" if os.geteuid() == 0 else "")
    command = [binary, "-p", str(folder), "-e", str(folder / "error.log"), "-c", str(config)]
    checked = subprocess.run([*command, "-t"], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
    process = subprocess.Popen([*command, "-g", directives], start_new_session=True)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", https_port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, (folder / "error.log").read_text()
                time.sleep(0.1)
        yield Target(https_port, tls=True), Target(http_port)
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=20)


@contextmanager
def serve(env: dict[str, str], port: int, log: Path) -> Iterator[subprocess.Popen]:
    """``manage.py serve`` on ``port``, its output in ``log`` (the supervisor process;
    stopped by SIGTERM at the end)."""
    with log.open("w") as output:
        process = subprocess.Popen(
            [PYTHON, "manage.py", "serve", "--port", str(port)],
            cwd=ROOT,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        try:
            wait_for_http(f"http://127.0.0.1:{port}{PLAIN_GET}", timeout=120, process=process)
        except (RuntimeError, TimeoutError) as error:
            raise RuntimeError(f"{error}\n{log.read_text()[-3000:]}") from None
        yield process
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
