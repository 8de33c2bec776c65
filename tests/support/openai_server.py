"""A small OpenAI-compatible HTTP server for tests (standard library only).

``with openai_server() as server:`` starts it on a free port of 127.0.0.1 in a thread;
``server.base_url`` is its ``.../v1`` address. It serves ``GET /v1/models``,
``POST /v1/chat/completions`` (the last user message is the prompt) and
``POST /v1/completions``, and answers deterministically: the first ``guided_choice`` when
the request has one (unless started with ``guided=False``, like a server without vLLM's
extension), else ``answer(prompt)`` (by default ``"echo:" + prompt``).

It records every request (``server.requests``: path, headers, JSON body, prompt), counts
completion requests per prompt (``server.count(prompt)``) and the most completion requests
it was answering at once (``server.max_in_flight``; ``delay`` keeps each one open a while).

Scripted failures, each used up by the completion requests it answers:

- ``server.fail_next(status=429, times=2, retry_after=0)``: the next ``times`` requests,
  whatever their prompt;
- ``server.fail_prompt(prompt, status=500, times=3)``: that prompt's next ``times`` requests;
- ``status=None`` drops the connection without an answer (a connection error);
- ``openai_server(api_key="sk-...")``: any other ``Authorization`` is refused with 401, and
  the message quotes the key it got (as some servers do), to check that clients scrub it;
- a ``model`` not served gets 404.
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class _Server(ThreadingHTTPServer):
    """A threading server whose listen backlog takes as many connections at once as a
    model server does (the standard library's 5 refuses a burst of clients)."""

    request_queue_size = 256


@dataclass
class Recorded:
    """One request the server received."""

    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any] = field(default_factory=dict)
    prompt: str | None = None


@dataclass
class _Fault:
    status: int | None  # None: drop the connection
    times: int
    retry_after: float | str | None = None
    message: str | None = None


class FakeOpenAIServer:
    """The server's state and scripting; see the module docstring."""

    def __init__(
        self,
        *,
        models: tuple[str, ...] = ("test-model",),
        api_key: str | None = None,
        delay: float = 0.0,
        answer: Callable[[str], str] | None = None,
        guided: bool = True,
    ) -> None:
        self.models = models
        self.guided = guided
        self.api_key = api_key
        self.delay = delay
        self.answer = answer or (lambda prompt: f"echo:{prompt}")
        self.requests: list[Recorded] = []
        self.counts: Counter[str] = Counter()
        self.in_flight = 0
        self.max_in_flight = 0
        self._faults: list[_Fault] = []
        self._prompt_faults: dict[str, list[_Fault]] = {}
        self._lock = threading.Lock()
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None

    # --------------------------------------------------------------------------- scripting

    def fail_next(
        self,
        status: int | None = 500,
        times: int = 1,
        retry_after: float | str | None = None,
        message: str | None = None,
    ) -> None:
        with self._lock:
            self._faults.append(_Fault(status, times, retry_after, message))

    def fail_prompt(
        self,
        prompt: str,
        status: int | None = 500,
        times: int = 1,
        retry_after: float | str | None = None,
        message: str | None = None,
    ) -> None:
        with self._lock:
            self._prompt_faults.setdefault(prompt, []).append(
                _Fault(status, times, retry_after, message)
            )

    # --------------------------------------------------------------------------- recording

    @property
    def base_url(self) -> str:
        assert self._httpd is not None, "the server is not started"
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def count(self, prompt: str) -> int:
        """How many completion requests carried ``prompt``."""
        with self._lock:
            return self.counts[prompt]

    def completion_requests(self) -> list[Recorded]:
        with self._lock:
            return [r for r in self.requests if r.path.endswith("completions")]

    # ----------------------------------------------------------------------------- serving

    def start(self) -> None:
        handler = type("Handler", (_Handler,), {"state": self})
        self._httpd = _Server(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _take_fault(self, prompt: str | None) -> _Fault | None:
        with self._lock:
            queue = self._prompt_faults.get(prompt or "") or self._faults
            if not queue:
                return None
            fault = queue[0]
            fault.times -= 1
            if fault.times <= 0:
                queue.pop(0)
            return fault


class _Handler(BaseHTTPRequestHandler):
    state: FakeOpenAIServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _record(self, body: dict[str, Any], prompt: str | None) -> None:
        with self.state._lock:
            self.state.requests.append(
                Recorded(self.command, self.path, dict(self.headers.items()), body, prompt)
            )
            if prompt is not None:
                self.state.counts[prompt] += 1

    def _send(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        self._send(
            status, {"error": {"message": message, "type": "error", "code": status}}, headers
        )

    def _authorized(self) -> bool:
        expected = self.state.api_key
        got = self.headers.get("Authorization", "")
        if expected is None or got == f"Bearer {expected}":
            return True
        given = got.removeprefix("Bearer ")
        self._error(401, f"Incorrect API key provided: {given}")
        return False

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self._record({}, None)
        if not self._authorized():
            return
        if self.path.rstrip("/") == "/v1/models":
            data = [
                {"id": model, "object": "model", "created": 0, "owned_by": "tests"}
                for model in self.state.models
            ]
            self._send(200, {"object": "list", "data": data})
        else:
            self._error(404, f"no route {self.path}")

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            self._record({}, None)
            self._error(400, "the body is not JSON")
            return
        chat = self.path == "/v1/chat/completions"
        if chat:
            messages = body.get("messages") or [{}]
            prompt = str(messages[-1].get("content", ""))
        elif self.path == "/v1/completions":
            prompt = str(body.get("prompt", ""))
        else:
            self._record(body, None)
            self._error(404, f"no route {self.path}")
            return
        self._record(body, prompt)
        state = self.state
        with state._lock:
            state.in_flight += 1
            state.max_in_flight = max(state.max_in_flight, state.in_flight)
        try:
            if state.delay:
                time.sleep(state.delay)
        finally:
            # counted out before the answer is written: a client that has its answer may send
            # its next request before this thread runs again
            with state._lock:
                state.in_flight -= 1
        self._answer(body, prompt, chat)

    def _answer(self, body: dict[str, Any], prompt: str, chat: bool) -> None:
        if not self._authorized():
            return
        fault = self.state._take_fault(prompt)
        if fault is not None:
            if fault.status is None:  # drop the connection
                self.close_connection = True
                return
            headers = {}
            if fault.retry_after is not None:
                headers["Retry-After"] = str(fault.retry_after)
            self._error(fault.status, fault.message or f"scripted {fault.status}", headers)
            return
        model = body.get("model")
        if model not in self.state.models:
            self._error(404, f"The model `{model}` does not exist.")
            return
        choices = body.get("guided_choice") if self.state.guided else None
        text = str(choices[0]) if choices else self.state.answer(prompt)
        if chat:
            choice = {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
            }
            kind = "chat.completion"
        else:
            choice = {"index": 0, "text": text, "finish_reason": "stop"}
            kind = "text_completion"
        self._send(
            200,
            {
                "id": f"cmpl-{self.state.count(prompt)}",
                "object": kind,
                "created": int(time.time()),
                "model": model,
                "choices": [choice],
                "usage": {"prompt_tokens": len(prompt.split()), "completion_tokens": 1},
            },
        )


@contextmanager
def openai_server(**options: Any) -> Iterator[FakeOpenAIServer]:
    """A started ``FakeOpenAIServer`` (options as its constructor's), stopped on exit."""
    server = FakeOpenAIServer(**options)
    server.start()
    try:
        yield server
    finally:
        server.stop()
