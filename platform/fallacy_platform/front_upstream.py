"""The gunicorn side of the front server (``front.py``, standard library only, run as a
script with its siblings): a pool of connections to gunicorn's unix socket, each whole
request sent there with the client's address appended to ``X-Forwarded-For``, and the
response streamed back to the client as it comes (framed by its ``Content-Length`` or
chunks). While gunicorn is down, a request is refused with 503 and ``Retry-After``.
"""

from __future__ import annotations

import asyncio
import socket

from front_client import CHUNK, HEAD_MAX_BYTES, Refusal, Request, send

UPSTREAM_TIMEOUT = 3600.0  # gunicorn's own worker timeout stops a stuck request first
POOL_IDLE_SECONDS = 20.0  # gunicorn keeps an idle connection longer (serve: --keep-alive)
POOL_MAX_IDLE = 64
SAFE_METHODS = (b"GET", b"HEAD", b"OPTIONS")


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
