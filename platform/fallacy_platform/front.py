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

This script serves the connections; reading a client's request is ``front_client.py``,
talking to gunicorn ``front_upstream.py`` (its siblings, standard library only too).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import resource
import signal

# Run as a script: its folder is on sys.path, and the siblings are imported by their names.
from front_client import (
    CHUNK,
    CLIENT_WRITE_BUFFER,
    HEAD_MAX_BYTES,
    Limits,
    Refusal,
    Request,
    parse_head,
    read_body,
    read_head,
    send,
)
from front_upstream import UpstreamPool, forward

LINGER_SECONDS = 2.0  # after a refusal, what the client still sends is read and dropped
CONNECTIONS: set[asyncio.Task] = set()  # one task per client connection, cancelled at exit
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
