"""``openai``: any OpenAI-compatible server (OpenAI, vLLM's ``vllm serve``, llama.cpp...).

Contract:

- Endpoint: ``settings.base_url``, else ``OPENAI_BASE_URL`` (as the OpenAI client reads it),
  with or without its trailing ``/v1``. ``chat`` (default true) posts the prompt as one user
  message to ``/v1/chat/completions``; ``chat: false`` posts it to ``/v1/completions``.
- Key: ``settings.api_key`` (accepted for scripts only; the platform refuses it), else the
  operator's credential named by ``settings.credential`` (``MODEL_CREDENTIALS``, see
  ``credentials``), else ``OPENAI_API_KEY`` when the server is ``OPENAI_BASE_URL`` itself; sent
  as ``Authorization: Bearer``. A credential is only ever sent to its own servers (without
  ``base_url`` a run addresses its first one), and a run only addresses the operator's allowed
  servers (``MODEL_SERVER_ALLOWED_URLS``); a run never names an environment variable
  (``api_key_env`` is refused). A server on this machine (127.0.0.1, localhost, ::1) may go
  without a key: ``EMPTY`` is sent, as vLLM's server accepts. The key is read, never stored:
  it is not in the fingerprint, not in ``environment()``, not in errors or logs (a server
  message echoing it is scrubbed).
- Concurrency: at most ``concurrency`` (default 8) requests in flight, from a thread pool.
  Results are yielded as they complete (the ones completed together in one list), every
  request exactly once, so the runner writes each output as soon as it arrives: after a
  crash only the requests then in flight had no output.
- Retries: a 429, a 5xx or a connection error (refused, reset, timed out after ``timeout``
  seconds without data, default 120) is retried up to ``max_retries`` times (default 5, so
  at most 6 attempts) with exponential backoff from ``backoff`` seconds (default 1.0, doubled
  each time, plus up to 25 % jitter, capped at 60 s); a ``Retry-After`` header, when present,
  is obeyed instead (capped at 60 s). Any other 4xx fails at once. The first request that
  fails for good stops the run (requests not yet sent are dropped) with a ``ModelFailure``
  (``failures``): its ``public`` text, the run's error, names the key prefix and the class of
  failure (could not connect, timed out, HTTP status, invalid answer), never the server's
  answer; its ``str()``, for the operator's log, adds the server's last message and address.
- Decoding: ``temperature``, ``top_p``, ``max_tokens`` (``max_new_tokens``) and ``seed`` from
  the run's ``GenerationParams``. A guided request also sends ``guided_choice`` (its labels;
  vLLM's extension); a text outside the labels is kept as is (the parser reports it).
- Standard library only (``urllib`` and threads): the runner needs no client library. The
  server and its key are resolved and checked in ``openai_server``, one attempt is posted by
  ``openai_http``.
"""

from __future__ import annotations

import json
import platform
import random
import threading
import time
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any, ClassVar

from evaluation.backends import failures, spec_checks
from evaluation.backends.base import (
    Backend,
    BackendError,
    GenerationParams,
    GenerationRequest,
    GenerationResult,
    ModelSpec,
    SettingProblem,
)
from evaluation.backends.openai_http import MAX_WAIT, AttemptFailure, NoRedirect, post_json
from evaluation.backends.openai_server import (
    api_root,
    base_url_of,
    is_local,
    public_url,
    read_key,
    server_problems,
)
from evaluation.backends.setting_rules import Flag, Number, Rule, Text, Whole

#: the key sent to a local server when none is configured (vLLM's server accepts any)
LOCAL_KEY = "EMPTY"

DEFAULT_CONCURRENCY = 8
DEFAULT_MAX_RETRIES = 5
DEFAULT_TIMEOUT = 120.0
DEFAULT_BACKOFF = 1.0
#: how long ``environment()`` waits for ``/v1/models``
MODELS_TIMEOUT = 10.0


class _Secret:
    """A key that shows as ``***`` in reprs, tracebacks with locals and debuggers."""

    __slots__ = ("value",)

    def __init__(self, value: str) -> None:
        self.value = value

    def __repr__(self) -> str:
        return "'***'"

    __str__ = __repr__


class _Stopped(BackendError):
    """A request dropped because another one failed for good (or the run was closed)."""


class _Run:
    """What the workers of one ``generate`` share: a stop flag and the first failure."""

    def __init__(self) -> None:
        self.stop = threading.Event()
        self.failure: BackendError | None = None
        self._lock = threading.Lock()

    def fail(self, error: BackendError) -> BackendError:
        """Record ``error`` (the first one wins) and stop the other workers."""
        with self._lock:
            if self.failure is None:
                self.failure = error
        self.stop.set()
        return error


class OpenAIBackend(Backend):
    name = "openai"
    settings_keys = frozenset(
        {
            "base_url",
            "api_key",
            "credential",
            "concurrency",
            "max_retries",
            "timeout",
            "chat",
            "backoff",
            "revision",
        }
    )
    #: what a project admin may set (``api_key`` never: a run names a credential)
    tenant_settings: ClassVar[Mapping[str, Rule]] = {
        "base_url": Text(2000),
        "credential": Text(200),
        "concurrency": Whole(1, 64),
        "max_retries": Whole(0, 20),
        "timeout": Number(0, 3600),
        "chat": Flag(),
        "backoff": Number(0, 600),
        "revision": Text(200),
    }

    def __init__(self, spec: ModelSpec, params: GenerationParams) -> None:
        super().__init__(spec, params)
        settings = spec.settings
        spec_checks.refuse(type(self).check(spec))
        base_url = base_url_of(settings) or ""
        key = read_key(settings, base_url) or LOCAL_KEY  # check() refused a remote one
        self._key = _Secret(key)
        self.base_url = public_url(base_url)
        self._root = api_root(base_url)
        self.chat = bool(settings.get("chat", True))
        self.concurrency = int(settings.get("concurrency", DEFAULT_CONCURRENCY))
        self.max_retries = int(settings.get("max_retries", DEFAULT_MAX_RETRIES))
        self.timeout = float(settings.get("timeout", DEFAULT_TIMEOUT))
        self.backoff = float(settings.get("backoff", DEFAULT_BACKOFF))
        self._random = random.Random()
        handlers: list[urllib.request.BaseHandler] = [NoRedirect()]
        if is_local(base_url):
            handlers.append(urllib.request.ProxyHandler({}))  # never through a proxy
        self._opener = urllib.request.build_opener(*handlers)

    # ----------------------------------------------------------------- launch-time checks

    @classmethod
    def check(cls, spec: ModelSpec) -> list[SettingProblem]:
        settings = spec.settings
        problems = [
            SettingProblem(
                "settings.api_key_env",
                "a run never names an environment variable: choose one of the operator's "
                "credentials by name (settings.credential)",
            )
            if problem.field == "settings.api_key_env"
            else problem
            for problem in super().check(spec)
        ]
        problems += server_problems(settings)
        problems += spec_checks.invalid(
            settings,
            ("concurrency",),
            lambda value: spec_checks.is_whole(value) and value >= 1,
            lambda _: "a positive integer",
        )
        problems += spec_checks.invalid(
            settings,
            ("max_retries",),
            lambda value: spec_checks.is_whole(value) and value >= 0,
            lambda _: "an integer >= 0",
        )
        problems += spec_checks.invalid(
            settings,
            ("timeout", "backoff"),
            lambda value: spec_checks.is_number(value) and value > 0,
            lambda _: "a positive number of seconds",
        )
        if "chat" in settings and not isinstance(settings["chat"], bool):
            problems.append(SettingProblem("settings.chat", "true or false"))
        return problems

    @classmethod
    def fingerprint(cls, spec: ModelSpec) -> str:
        revision = spec.settings.get("revision")
        if revision:
            return f"revision:{revision}"
        base_url = base_url_of(spec.settings) or ""
        return f"openai:{public_url(base_url)}:{spec.model}"

    # ------------------------------------------------------------------------ generation

    def generate(self, requests: Sequence[GenerationRequest]) -> Iterator[list[GenerationResult]]:
        if not requests:
            return
        run = _Run()
        executor = ThreadPoolExecutor(
            max_workers=min(self.concurrency, len(requests)), thread_name_prefix="openai"
        )
        try:
            pending: set[Future[GenerationResult]] = {
                executor.submit(self._complete, request, run) for request in requests
            }
            last = time.monotonic()
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                batch: list[GenerationResult] = []
                for future in done:
                    error = future.exception()
                    if error is not None:
                        # the first request that failed for good, not one it stopped
                        raise run.failure or error
                    batch.append(future.result())
                now = time.monotonic()
                share, last = (now - last) / len(batch), now  # wall time, shared out
                yield [GenerationResult(result.key, result.output, share) for result in batch]
        finally:
            run.stop.set()
            executor.shutdown(wait=True, cancel_futures=True)

    def _body(self, request: GenerationRequest) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.spec.model}
        if self.chat:
            body["messages"] = [{"role": "user", "content": request.prompt}]
        else:
            body["prompt"] = request.prompt
        body.update(
            max_tokens=self.params.max_new_tokens,
            temperature=self.params.temperature,
            top_p=self.params.top_p,
            seed=self.params.seed,
        )
        if request.guided and request.labels:
            body["guided_choice"] = list(request.labels)
        return body

    def _complete(self, request: GenerationRequest, run: _Run) -> GenerationResult:
        """One request with its retries (runs in a worker thread)."""
        url = f"{self._root}/chat/completions" if self.chat else f"{self._root}/completions"
        data = json.dumps(self._body(request), ensure_ascii=False).encode()
        attempt = 0
        while not run.stop.is_set():
            try:
                answer = self._post(url, data)
            except AttemptFailure as failure:
                if not failure.retry or attempt >= self.max_retries:
                    tried = f" after {attempt + 1} attempts" if failure.retry else ""
                    which = f"request {request.key[:12]} failed{tried}"
                    raise run.fail(
                        failures.ModelFailure(
                            f"{which}: {failure.public}",
                            f"{self.name} {which}: "
                            f"{failure.status} {self._scrub(failure.message)} ({url})",
                        )
                    ) from None
                delay = failure.delay
                if delay is None:
                    delay = self.backoff * 2**attempt * (1 + self._random.uniform(0, 0.25))
                attempt += 1
                run.stop.wait(min(MAX_WAIT, delay))
                continue
            try:
                return GenerationResult(request.key, self._text(answer))
            except BackendError as error:
                raise run.fail(
                    failures.ModelFailure(
                        f"request {request.key[:12]}: {failures.INVALID}",
                        f"{self.name} request {request.key[:12]}: {error}",
                    )
                ) from None
        raise _Stopped("stopped: another request failed")

    def _headers(self) -> dict[str, str]:
        return {
            "Authorization": f"Bearer {self._key.value}",
            "Content-Type": "application/json",
            "Accept": "application/json",
            "User-Agent": f"fallacy-platform ({self.name} backend; urllib)",
        }

    def _post(self, url: str, data: bytes) -> Any:
        """The decoded JSON answer of one attempt, or ``AttemptFailure``."""
        return post_json(self._opener, url, data, headers=self._headers(), timeout=self.timeout)

    def _text(self, answer: Any) -> str:
        try:
            choice = answer["choices"][0]
            text = choice["message"].get("content") if self.chat else choice.get("text")
        except (KeyError, IndexError, TypeError, AttributeError):
            raise BackendError(
                f"an answer without choices: {self._scrub(json.dumps(answer)[:200])}"
            ) from None
        return text if isinstance(text, str) else ""

    def _scrub(self, text: str) -> str:
        key = self._key.value
        return text.replace(key, "***") if key and key != LOCAL_KEY else text

    # ----------------------------------------------------------------------- environment

    def environment(self) -> dict[str, Any]:
        facts: dict[str, Any] = {
            "base_url": self.base_url,
            "api": "chat/completions" if self.chat else "completions",
            "concurrency": self.concurrency,
            "max_retries": self.max_retries,
            "client": f"urllib (Python {platform.python_version()})",
        }
        request = urllib.request.Request(f"{self._root}/models", headers=self._headers())
        try:
            with self._opener.open(request, timeout=min(self.timeout, MODELS_TIMEOUT)) as answer:
                listing = json.loads(answer.read())
            models = listing.get("data") or []
            entry = next(
                (m for m in models if isinstance(m, dict) and m.get("id") == self.spec.model),
                None,
            )
            if entry is None:
                facts["model"] = {"id": self.spec.model, "listed": False}
            else:
                facts["model"] = {
                    "id": entry.get("id"),
                    "owned_by": entry.get("owned_by"),
                    "listed": True,
                }
                for extra in ("root", "max_model_len"):  # vLLM tells the weights and length
                    if extra in entry:
                        facts["model"][extra] = entry[extra]
        except Exception as error:  # facts are best effort; the class of failure only
            public = failures.request_failure(error, timeout=min(self.timeout, MODELS_TIMEOUT))
            facts["model"] = {"id": self.spec.model, "error": public}
        return facts
