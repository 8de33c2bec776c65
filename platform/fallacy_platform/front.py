"""The public face of ``manage.py serve``: a small HTTP/1.1 front server, standard library only
(the supervisor runs it as a script; nothing here imports Django).

    python front.py --listen 127.0.0.1:8000 --upstream /tmp/…/web.sock \\
        --upload-max BYTES --request-max BYTES --header-timeout 10 --body-timeout 15

gunicorn's gthread workers read a request's body in the thread that serves it, with no time
limit: a few clients that declare a large body and then stall hold every thread. This server
takes the connections instead, on asyncio (a waiting client costs a coroutine, not a thread):
it reads each request's head within ``--header-timeout`` seconds of its first byte and its
body with no pause longer than ``--body-timeout`` (else 408), refuses a body over the size
limits before reading it (413, the rule of ``fallacy_platform.uploads``) and a body without a
``Content-Length`` (411), holds the body (in memory up to 1 MiB, in a temporary file beyond),
and only then hands the whole request to gunicorn on its private unix socket, one upstream
pooled connection at a time (kept alive for the next request). The response is streamed back as it
comes (framed by its ``Content-Length`` or chunks, so the client's connection stays alive);
writes to a client that stops reading give up after ``SEND_TIMEOUT``. The client's address
is appended to ``X-Forwarded-For`` (``serve`` makes the web server trust one more proxy).
While gunicorn is down (the supervisor restarts it) requests get 503 with ``Retry-After``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import resource
import signal
import socket
import tempfile
from dataclasses import dataclass
from typing import IO

HEAD_MAX_BYTES = 64 * 1024
MEMORY_BODY_BYTES = 1024 * 1024  # larger bodies wait in a temporary file
CHUNK = 256 * 1024
KEEPALIVE_TIMEOUT = 30.0  # an idle client connection is closed after this
SEND_TIMEOUT = 60.0  # a write to a client that does not read gives up after this
UPSTREAM_TIMEOUT = 3600.0  # gunicorn's own worker timeout stops a stuck request first
LINGER_SECONDS = 2.0  # after a refusal, what the client still sends is read and dropped
CLIENT_WRITE_BUFFER = 1024 * 1024  # a response this large is taken from gunicorn at once
POOL_IDLE_SECONDS = 20.0  # gunicorn keeps an idle connection longer (serve: --keep-alive)
POOL_MAX_IDLE = 64
SAFE_METHODS = (b"GET", b"HEAD", b"OPTIONS")
CONNECTIONS: set[asyncio.Task] = set()  # one task per client connection, cancelled at exit
TOKEN = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
VERSIONS = (b"HTTP/1.0", b"HTTP/1.1")
REASONS = {
    400: "Bad Request",
    408: "Request Timeout",
    411: "Length Required",
    413: "Content Too Large",
    417: "Expectation Failed",
    431: "Request Header Fields Too Large",
    502: "Bad Gateway",
    503: "Service Unavailable",
}


@dataclass(frozen=True)
class Limits:
    upload_max: int
    request_max: int
    header_timeout: float
    body_timeout: float

    def body_limit(self, content_type: str) -> tuple[int, str]:
        """The largest body of this media type and the settings that make it (as Django's
        ``fallacy_platform.uploads.body_limit`` says)."""
        named = f"{_size(self.request_max)} (REQUEST_MAX_BYTES)"
        if content_type.split(";")[0].strip().lower() == "multipart/form-data":
            upload = f"a file of {_size(self.upload_max)} (UPLOAD_MAX_BYTES)"
            return self.upload_max + self.request_max, f"{upload} and {named} more"
        return self.request_max, named


def _size(limit: int) -> str:
    for unit, factor in (("MiB", 1024 * 1024), ("KiB", 1024)):
        if limit % factor == 0:
            return f"{limit // factor} {unit}"
    return f"{limit} bytes"


class Refusal(Exception):
    """An answer of the front itself (JSON ``{"detail": …}``); the connection then closes."""

    def __init__(self, status: int, detail: str, retry_after: int | None = None) -> None:
        super().__init__(detail)
        self.status, self.detail, self.retry_after = status, detail, retry_after


@dataclass
class Request:
    method: bytes
    version: bytes
    headers: list[tuple[bytes, bytes]]
    length: int = 0
    keep_alive: bool = True
    body: IO[bytes] | None = None

    def header(self, name: bytes) -> list[bytes]:
        return [value for key, value in self.headers if key == name]


def parse_head(head: bytes, limits: Limits) -> tuple[Request, bytes]:
    """The request of a head (request line and header lines, CRLF-terminated), and its
    request line; refuses what gunicorn might frame differently."""
    lines = head[:-4].split(b"\r\n")
    if any(byte in line for line in lines for byte in (b"\r", b"\n", b"\0")):
        raise Refusal(400, "a bare CR, LF or NUL in the request head")
    parts = lines[0].split(b" ")
    if len(parts) != 3 or not TOKEN.fullmatch(parts[0]) or parts[2] not in VERSIONS:
        raise Refusal(400, "malformed request line")
    headers: list[tuple[bytes, bytes]] = []
    for line in lines[1:]:
        name, colon, value = line.partition(b":")
        if not colon or not TOKEN.fullmatch(name):
            raise Refusal(400, "malformed header line")
        headers.append((name.lower(), value.strip(b" \t")))
    request = Request(method=parts[0], version=parts[2], headers=headers)
    if request.header(b"transfer-encoding"):
        raise Refusal(411, "send the body with a Content-Length: chunked bodies are not read")
    lengths = set(request.header(b"content-length"))
    if len(lengths) > 1 or not all(value.isdigit() for value in lengths):
        raise Refusal(400, "malformed Content-Length")
    request.length = int(lengths.pop()) if lengths else 0
    content_type = b",".join(request.header(b"content-type")).decode("latin-1")
    limit, names = limits.body_limit(content_type)
    if request.length > limit:
        raise Refusal(
            413,
            f"the request body ({request.length} bytes) is larger than the limit: {names}; "
            "nothing was read",
        )
    tokens = b",".join(request.header(b"connection")).lower().replace(b" ", b"").split(b",")
    if request.version == b"HTTP/1.1":
        request.keep_alive = b"close" not in tokens
    else:
        request.keep_alive = b"keep-alive" in tokens
    return request, lines[0]


async def read_head(reader: asyncio.StreamReader, limits: Limits) -> bytes | None:
    """The next request's head, or None when the client closes or stays idle."""
    try:
        async with asyncio.timeout(KEEPALIVE_TIMEOUT):
            first = await reader.readexactly(1)
    except (TimeoutError, asyncio.IncompleteReadError):
        return None
    try:
        async with asyncio.timeout(limits.header_timeout):
            rest = await reader.readuntil(b"\r\n\r\n")
    except TimeoutError:
        within = f"{limits.header_timeout:g} s"
        raise Refusal(408, f"the request head did not arrive within {within}") from None
    except asyncio.LimitOverrunError:
        raise Refusal(431, f"the request head is over {HEAD_MAX_BYTES} bytes") from None
    except asyncio.IncompleteReadError:
        return None
    head = (first + rest).lstrip(b"\r\n")  # empty lines may precede a request
    return head if head else None


async def read_body(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, request: Request, limits: Limits
) -> None:
    """Reads the request's body into ``request.body``: no pause over the body timeout."""
    expect = b",".join(request.header(b"expect")).lower()
    if expect and expect != b"100-continue":
        raise Refusal(417, "only 'Expect: 100-continue' is understood")
    if expect and request.length:
        writer.write(request.version + b" 100 Continue\r\n\r\n")
    if not request.length:
        return
    body = tempfile.SpooledTemporaryFile(max_size=MEMORY_BODY_BYTES)
    request.body = body
    remaining = request.length
    while remaining:
        try:
            async with asyncio.timeout(limits.body_timeout):
                chunk = await reader.read(min(CHUNK, remaining))
        except TimeoutError:
            got = request.length - remaining
            raise Refusal(
                408,
                f"the request body stalled: no bytes for {limits.body_timeout:g} s "
                f"({got} of {request.length} received)",
            ) from None
        if not chunk:
            raise ConnectionResetError("the client closed its connection mid-body")
        body.write(chunk)
        remaining -= len(chunk)
    body.seek(0)


def upstream_head(request: Request, line: bytes, peer: str) -> bytes:
    """The head sent to gunicorn: the client's, without Expect, with the client's address
    appended to X-Forwarded-For."""
    forwarded = [value for value in request.header(b"x-forwarded-for") if value]
    forwarded.append(peer.encode())
    skip = (b"expect", b"x-forwarded-for")
    lines = [line]
    lines += [name + b": " + value for name, value in request.headers if name not in skip]
    lines.append(b"x-forwarded-for: " + b", ".join(forwarded))
    return b"\r\n".join(lines) + b"\r\n\r\n"


class Upstream:
    """One connection to gunicorn's unix socket, on the bare socket (not an asyncio stream):
    when gunicorn answers early and closes while the request is still being sent (a 4xx that
    does not read the body), the failed send does not discard the answer, which is still read.
    """

    def __init__(self, sock: socket.socket) -> None:
        self.sock, self.buffer = sock, bytearray()
        self.loop = asyncio.get_running_loop()
        self.since = 0.0  # when it went idle in the pool

    @classmethod
    async def connect(cls, path: str) -> Upstream:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.setblocking(False)
        try:
            await asyncio.get_running_loop().sock_connect(sock, path)
        except OSError:
            sock.close()
            raise
        return cls(sock)

    def alive(self) -> bool:
        """Whether gunicorn still keeps the idle connection (no end of file, no stray bytes)."""
        try:
            self.sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
        except BlockingIOError:
            return True
        except OSError:
            return False
        return False  # end of file, or bytes nobody asked for

    async def sendall(self, data: bytes) -> None:
        await self.loop.sock_sendall(self.sock, data)

    async def _fill(self) -> bool:
        data = await self.loop.sock_recv(self.sock, CHUNK)
        self.buffer += data
        return bool(data)

    async def readuntil(self, separator: bytes) -> bytes:
        while (found := self.buffer.find(separator)) < 0:
            if len(self.buffer) > HEAD_MAX_BYTES:
                raise ConnectionResetError("the web server sent an oversized head")
            if not await self._fill():
                raise asyncio.IncompleteReadError(bytes(self.buffer), None)
        end = found + len(separator)
        data = bytes(self.buffer[:end])
        del self.buffer[:end]
        return data

    async def read(self, n: int) -> bytes:
        if not self.buffer and not await self._fill():
            return b""
        data = bytes(self.buffer[:n])
        del self.buffer[:n]
        return data

    def close(self) -> None:
        self.sock.close()


class UpstreamPool:
    """Connections to gunicorn: idle ones are kept for the next request (of any client: the
    client's address travels in each request's head)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.idle: list[Upstream] = []

    async def acquire(self) -> tuple[Upstream, bool]:
        """A connection, and whether it served a request before."""
        now = asyncio.get_running_loop().time()
        while self.idle:
            upstream = self.idle.pop()
            if now - upstream.since < POOL_IDLE_SECONDS and upstream.alive():
                return upstream, True
            upstream.close()
        try:
            return await Upstream.connect(self.path), False
        except OSError:
            raise Refusal(503, "the web server is starting; try again", 2) from None

    def release(self, upstream: Upstream) -> None:
        if len(self.idle) < POOL_MAX_IDLE and not upstream.buffer:
            upstream.since = asyncio.get_running_loop().time()
            self.idle.append(upstream)
        else:
            upstream.close()


async def send(writer: asyncio.StreamWriter, data: bytes) -> None:
    writer.write(data)
    if writer.transport.get_write_buffer_size() > CLIENT_WRITE_BUFFER:
        async with asyncio.timeout(SEND_TIMEOUT):
            await writer.drain()


async def copy_exactly(reader: Upstream, writer: asyncio.StreamWriter, n: int) -> None:
    while n:
        chunk = await reader.read(min(CHUNK, n))
        if not chunk:
            raise ConnectionResetError("the web server closed its connection mid-response")
        n -= len(chunk)
        await send(writer, chunk)


async def copy_chunked(reader: Upstream, writer: asyncio.StreamWriter) -> None:
    while True:
        line = await reader.readuntil(b"\r\n")
        await send(writer, line)
        size = int(line.split(b";")[0].strip(), 16)
        if size == 0:
            break
        await copy_exactly(reader, writer, size + 2)
    while True:  # trailer fields, then an empty line
        line = await reader.readuntil(b"\r\n")
        await send(writer, line)
        if line == b"\r\n":
            return


def response_framing(head: bytes) -> tuple[int, dict[bytes, bytes]]:
    lines = head[:-4].split(b"\r\n")
    status = int(lines[0].split(b" ")[1])
    headers: dict[bytes, bytes] = {}
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        key = name.strip().lower()
        headers[key] = headers[key] + b"," + value.strip() if key in headers else value.strip()
    return status, headers


async def relay_response(
    head: bytes, upstream: Upstream, client: asyncio.StreamWriter, method: bytes
) -> bool:
    """Streams gunicorn's response (its head read already) to the client; whether both
    connections may serve another request."""
    status, headers = response_framing(head)
    await send(client, head)
    while 100 <= status < 200 and status != 101:  # an interim response, then the real one
        async with asyncio.timeout(UPSTREAM_TIMEOUT):
            head = await upstream.readuntil(b"\r\n\r\n")
        status, headers = response_framing(head)
        await send(client, head)
    keep = b"close" not in headers.get(b"connection", b"").lower()
    if status == 101:
        return False  # no protocol switch here: nothing of the app asks for one
    if method == b"HEAD" or status in (204, 304):
        return keep
    if b"chunked" in headers.get(b"transfer-encoding", b"").lower():
        await copy_chunked(upstream, client)
    elif b"content-length" in headers:
        await copy_exactly(upstream, client, int(headers[b"content-length"]))
    else:  # the body ends when gunicorn closes the connection
        while chunk := await upstream.read(CHUNK):
            await send(client, chunk)
        return False
    return keep


async def send_request(upstream: Upstream, request: Request, line: bytes, peer: str) -> None:
    await upstream.sendall(upstream_head(request, line, peer))
    if request.body is not None:
        request.body.seek(0)
        while chunk := request.body.read(CHUNK):
            await upstream.sendall(chunk)


async def forward(
    request: Request, line: bytes, peer: str, pool: UpstreamPool, client: asyncio.StreamWriter
) -> bool:
    """Sends a whole request to gunicorn and its response back; whether to keep going."""
    for attempt in (1, 2):
        upstream, reused = await pool.acquire()
        sent = True
        try:
            await send_request(upstream, request, line, peer)
        except ConnectionError:
            sent = False  # gunicorn stopped reading: it may have answered already (a 4xx)
        try:
            async with asyncio.timeout(UPSTREAM_TIMEOUT):
                head = await upstream.readuntil(b"\r\n\r\n")
        except (ConnectionError, asyncio.IncompleteReadError) as error:
            upstream.close()
            answered = isinstance(error, asyncio.IncompleteReadError) and error.partial
            if attempt == 1 and reused and request.method in SAFE_METHODS and not answered:
                continue  # gunicorn closed the kept connection as the request went out
            raise Refusal(502, "the web server closed the connection before answering") from None
        try:
            keep = await relay_response(head, upstream, client, request.method)
        except BaseException:
            upstream.close()
            raise
        if keep and sent:
            pool.release(upstream)
        else:
            upstream.close()
        return keep  # the client's connection is in step either way: its body was read
    return False


async def reply(writer: asyncio.StreamWriter, refusal: Refusal, version: bytes) -> None:
    body = json.dumps({"detail": refusal.detail}).encode()
    lines = [
        f"{version.decode()} {refusal.status} {REASONS[refusal.status]}",
        "Content-Type: application/json",
        f"Content-Length: {len(body)}",
        "Connection: close",
    ]
    if refusal.retry_after is not None:
        lines.append(f"Retry-After: {refusal.retry_after}")
    await send(writer, ("\r\n".join(lines) + "\r\n\r\n").encode() + body)


async def linger(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """After a refusal: stop writing and drop what the client still sends for a moment, so
    that closing does not reset the connection before the client read the answer."""
    with contextlib.suppress(OSError, RuntimeError):
        writer.write_eof()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + LINGER_SECONDS
    with contextlib.suppress(TimeoutError, ConnectionError):
        while loop.time() < deadline:
            async with asyncio.timeout_at(deadline):
                if not await reader.read(CHUNK):
                    break


async def serve_client(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    limits: Limits,
    pool: UpstreamPool,
) -> None:
    task = asyncio.current_task()
    assert task is not None
    CONNECTIONS.add(task)
    task.add_done_callback(CONNECTIONS.discard)
    writer.transport.set_write_buffer_limits(high=CLIENT_WRITE_BUFFER)
    peername = writer.get_extra_info("peername")
    peer = peername[0] if isinstance(peername, tuple) else "127.0.0.1"
    version = b"HTTP/1.1"
    request: Request | None = None
    try:
        while head := await read_head(reader, limits):
            request, line = parse_head(head, limits)
            version = request.version
            await read_body(reader, writer, request, limits)
            keep = await forward(request, line, peer, pool, writer)
            if request.body is not None:
                request.body.close()
            if not (keep and request.keep_alive):
                break
    except Refusal as refusal:
        with contextlib.suppress(OSError, TimeoutError):
            await reply(writer, refusal, version)
            await linger(reader, writer)
    except asyncio.CancelledError:
        pass  # shutting down (ended normally: Python 3.11's stream callback trips on a cancel)
    except TimeoutError:
        writer.transport.abort()  # the client stopped reading: drop what it did not take
    except (OSError, ValueError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
        pass  # the client or gunicorn went away, or gunicorn's answer was not HTTP
    finally:
        if request is not None and request.body is not None:
            request.body.close()
        writer.close()


async def main(listen: str, upstream: str, limits: Limits) -> None:
    host, _, port = listen.rpartition(":")
    pool = UpstreamPool(upstream)
    server = await asyncio.start_server(
        lambda r, w: serve_client(r, w, limits, pool),
        host.strip("[]") or None,
        int(port),
        limit=HEAD_MAX_BYTES,
        reuse_address=True,
        backlog=1024,
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    server.close()
    for task in CONNECTIONS:
        task.cancel()
    await asyncio.gather(*CONNECTIONS, return_exceptions=True)


def raise_open_files_limit() -> None:
    """Every waiting client holds a file descriptor: allow as many as the system lets us."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 65536 if hard == resource.RLIM_INFINITY else min(hard, 65536)
    if soft < wanted:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--listen", required=True, help="HOST:PORT")
    parser.add_argument("--upstream", required=True, help="gunicorn's unix socket")
    parser.add_argument("--upload-max", type=int, required=True)
    parser.add_argument("--request-max", type=int, required=True)
    parser.add_argument("--header-timeout", type=float, default=10.0)
    parser.add_argument("--body-timeout", type=float, default=15.0)
    arguments = parser.parse_args()
    raise_open_files_limit()
    os.umask(0o077)  # temporary body files
    asyncio.run(
        main(
            arguments.listen,
            arguments.upstream,
            Limits(
                upload_max=arguments.upload_max,
                request_max=arguments.request_max,
                header_timeout=arguments.header_timeout,
                body_timeout=arguments.body_timeout,
            ),
        )
    )
