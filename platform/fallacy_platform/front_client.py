"""The client's side of a connection to the front server (``front.py``, standard library
only, run as a script with its siblings): a request's head read and checked within the
header timeout, its body read with no pause over the body timeout (in memory up to
``MEMORY_BODY_BYTES``, in a temporary file beyond), and writes to a client that give up
after ``SEND_TIMEOUT``. What the front refuses raises ``Refusal``.
"""

from __future__ import annotations

import asyncio
import re
import tempfile
from dataclasses import dataclass
from typing import IO

HEAD_MAX_BYTES = 64 * 1024
MEMORY_BODY_BYTES = 1024 * 1024  # larger bodies wait in a temporary file
CHUNK = 256 * 1024
KEEPALIVE_TIMEOUT = 30.0  # an idle client connection is closed after this
SEND_TIMEOUT = 60.0  # a write to a client that does not read gives up after this
CLIENT_WRITE_BUFFER = 1024 * 1024  # a response this large is taken from gunicorn at once
TOKEN = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
VERSIONS = (b"HTTP/1.0", b"HTTP/1.1")


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


async def send(writer: asyncio.StreamWriter, data: bytes) -> None:
    writer.write(data)
    if writer.transport.get_write_buffer_size() > CLIENT_WRITE_BUFFER:
        async with asyncio.timeout(SEND_TIMEOUT):
            await writer.drain()
