"""The ``openai`` backend against a real local OpenAI-compatible HTTP server
(``tests.support.openai_server``), not a mock of a client library."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest

from evaluation.backends import (
    BackendError,
    GenerationParams,
    GenerationRequest,
    GenerationResult,
    ModelSpec,
    check_spec,
    get_backend,
)
from evaluation.backends.credentials import parse_credentials
from evaluation.backends.openai_backend import OpenAIBackend
from tests.support.openai_server import FakeOpenAIServer, openai_server

MODEL = "test-model"
SECRET = "sk-test-0123456789abcdef-secret"


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No key or address leaks in from the developer's shell."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "MY_TEST_KEY"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with openai_server() as running:
        yield running


def make_backend(
    base_url: str, params: GenerationParams | None = None, **settings: object
) -> OpenAIBackend:
    settings = {"base_url": base_url, "backoff": 0.001, **settings}
    return OpenAIBackend(ModelSpec("openai", MODEL, settings), params or GenerationParams())


def requests_for(*prompts: str, guided: bool = False) -> list[GenerationRequest]:
    return [
        GenerationRequest(f"key{index:04d}" + "0" * 56, prompt, ("yes", "no"), guided)
        for index, prompt in enumerate(prompts)
    ]


def run_all(backend: OpenAIBackend, requests: list[GenerationRequest]) -> list[GenerationResult]:
    results = []
    for batch in backend.generate(requests):
        assert isinstance(batch, list) and batch
        assert all(isinstance(result, GenerationResult) for result in batch)
        results.extend(batch)
    return results


# ------------------------------------------------------------------------------ generation


def test_every_request_answered_once_with_bounded_concurrency() -> None:
    prompts = [f"sentence {n}" for n in range(24)]
    with openai_server(delay=0.05) as server:
        backend = make_backend(server.base_url, concurrency=4)
        results = run_all(backend, requests_for(*prompts))
    assert sorted(r.key for r in results) == sorted(r.key for r in requests_for(*prompts))
    by_key = {r.key: r.output for r in results}
    for request in requests_for(*prompts):
        assert by_key[request.key] == f"echo:{request.prompt}"
    assert all(server.count(prompt) == 1 for prompt in prompts)
    assert len(server.completion_requests()) == len(prompts)
    assert 1 < server.max_in_flight <= 4
    assert sum(r.seconds for r in results) > 0


def test_concurrency_one_sends_one_request_at_a_time() -> None:
    with openai_server(delay=0.01) as server:
        results = run_all(make_backend(server.base_url, concurrency=1), requests_for("a", "b"))
    assert len(results) == 2
    assert server.max_in_flight == 1


def test_no_requests_no_batches(server: FakeOpenAIServer) -> None:
    assert list(make_backend(server.base_url).generate([])) == []
    assert server.requests == []


def test_chat_body_carries_the_prompt_and_params(server: FakeOpenAIServer) -> None:
    params = GenerationParams(max_new_tokens=7, temperature=0.5, top_p=0.9, seed=42)
    run_all(make_backend(server.base_url, params), requests_for("Is it a fallacy?"))
    [recorded] = server.completion_requests()
    assert recorded.path == "/v1/chat/completions"
    assert recorded.body["model"] == MODEL
    assert recorded.body["messages"] == [{"role": "user", "content": "Is it a fallacy?"}]
    assert recorded.body["max_tokens"] == 7
    assert recorded.body["temperature"] == 0.5
    assert recorded.body["top_p"] == 0.9
    assert recorded.body["seed"] == 42
    assert "guided_choice" not in recorded.body


def test_completions_endpoint_when_chat_is_off(server: FakeOpenAIServer) -> None:
    [result] = run_all(make_backend(server.base_url, chat=False), requests_for("raw prompt"))
    [recorded] = server.completion_requests()
    assert recorded.path == "/v1/completions"
    assert recorded.body["prompt"] == "raw prompt"
    assert "messages" not in recorded.body
    assert result.output == "echo:raw prompt"


def test_base_url_without_v1_is_completed(server: FakeOpenAIServer) -> None:
    root = server.base_url.removesuffix("/v1") + "/"
    [result] = run_all(make_backend(root), requests_for("hello"))
    assert result.output == "echo:hello"
    assert server.completion_requests()[0].path == "/v1/chat/completions"


def test_guided_requests_send_guided_choice(server: FakeOpenAIServer) -> None:
    requests = [
        GenerationRequest("g" * 64, "guided prompt", ("ad hominem", "none"), guided=True),
        GenerationRequest("f" * 64, "free prompt", ("ad hominem", "none"), guided=False),
    ]
    results = {r.key: r.output for r in run_all(make_backend(server.base_url), requests)}
    bodies = {r.prompt: r.body for r in server.completion_requests()}
    assert bodies["guided prompt"]["guided_choice"] == ["ad hominem", "none"]
    assert "guided_choice" not in bodies["free prompt"]
    assert results["g" * 64] == "ad hominem"
    assert results["f" * 64] == "echo:free prompt"


def test_guided_answer_outside_the_labels_is_kept() -> None:
    """A server without guided decoding: the text is kept for the parser to judge."""
    with openai_server(guided=False, answer=lambda prompt: "maybe") as server:
        request = GenerationRequest("h" * 64, "p", ("yes", "no"), guided=True)
        [result] = run_all(make_backend(server.base_url), [request])
    assert result.output == "maybe"
    assert server.completion_requests()[0].body["guided_choice"] == ["yes", "no"]


# --------------------------------------------------------------------------------- retries


def test_429_then_success_is_retried(server: FakeOpenAIServer) -> None:
    server.fail_prompt("busy", status=429, times=2, retry_after=0)
    results = run_all(make_backend(server.base_url), requests_for("busy", "calm"))
    assert {r.output for r in results} == {"echo:busy", "echo:calm"}
    assert server.count("busy") == 3
    assert server.count("calm") == 1


def test_retry_after_header_is_obeyed_instead_of_backoff(server: FakeOpenAIServer) -> None:
    server.fail_next(status=429, times=1, retry_after=0)
    started = time.monotonic()
    # a backoff of 30 s would make this test hang: Retry-After: 0 must win
    [result] = run_all(make_backend(server.base_url, backoff=30), requests_for("x"))
    assert time.monotonic() - started < 5
    assert result.output == "echo:x"
    assert server.count("x") == 2


def test_500_is_retried(server: FakeOpenAIServer) -> None:
    server.fail_next(status=500, times=1)
    [result] = run_all(make_backend(server.base_url), requests_for("once"))
    assert result.output == "echo:once"
    assert server.count("once") == 2


def test_dropped_connection_is_retried(server: FakeOpenAIServer) -> None:
    server.fail_next(status=None, times=2)
    [result] = run_all(make_backend(server.base_url), requests_for("flaky"))
    assert result.output == "echo:flaky"
    assert server.count("flaky") == 3


def test_persistent_500_fails_after_max_retries(server: FakeOpenAIServer) -> None:
    server.fail_prompt("doomed", status=503, times=100, message="overloaded, come back later")
    [request] = requests_for("doomed")
    with pytest.raises(BackendError) as failure:
        run_all(make_backend(server.base_url, max_retries=3), [request])
    message = str(failure.value)
    assert "503" in message
    assert "overloaded, come back later" in message
    assert request.key[:12] in message
    assert server.count("doomed") == 4  # the first attempt and 3 retries


def test_a_failure_stops_the_other_requests() -> None:
    prompts = [f"p{n}" for n in range(50)]
    with openai_server(delay=0.01) as server:
        server.fail_prompt("p0", status=500, times=100)
        backend = make_backend(server.base_url, concurrency=2, max_retries=1)
        with pytest.raises(BackendError, match="500"):
            run_all(backend, requests_for(*prompts))
        sent = len(server.completion_requests())
        time.sleep(0.05)
        assert len(server.completion_requests()) == sent  # nothing more after the failure
    assert sent < len(prompts)


def test_closing_the_generator_early_stops_sending() -> None:
    prompts = [f"p{n}" for n in range(40)]
    with openai_server(delay=0.01) as server:
        generator = make_backend(server.base_url, concurrency=2).generate(requests_for(*prompts))
        first = next(generator)
        generator.close()
        sent = len(server.completion_requests())
        time.sleep(0.05)
        assert len(server.completion_requests()) == sent
    assert first and sent < len(prompts)


def test_401_fails_at_once_and_the_error_hides_the_key() -> None:
    with openai_server(api_key="sk-the-right-one") as server:
        backend = make_backend(server.base_url, api_key=SECRET, concurrency=1)
        with pytest.raises(BackendError) as failure:
            run_all(backend, requests_for("a", "b", "c"))
    message = str(failure.value)
    assert "401" in message
    assert "Incorrect API key provided" in message  # the server's message, scrubbed
    assert SECRET not in message
    assert SECRET not in repr(failure.value)
    assert len(server.completion_requests()) == 1  # no retry, no further request


def test_other_4xx_fails_at_once_naming_the_server_message(server: FakeOpenAIServer) -> None:
    spec = ModelSpec("openai", "no-such-model", {"base_url": server.base_url, "backoff": 0.001})
    backend = OpenAIBackend(spec, GenerationParams())
    with pytest.raises(BackendError) as failure:
        run_all(backend, requests_for("q"))
    assert "404" in str(failure.value)
    assert "no-such-model" in str(failure.value)
    assert server.count("q") == 1


def test_unreachable_server_fails_after_retries() -> None:
    with openai_server() as server:
        base_url = server.base_url
    # the server is stopped: connection refused on every attempt
    with pytest.raises(BackendError, match="connection error"):
        run_all(make_backend(base_url, max_retries=2), requests_for("nobody"))


# ------------------------------------------------------------------------------------ keys


def operator_credentials(settings, **entries: dict[str, object]) -> None:
    """The operator's ``MODEL_CREDENTIALS`` for one test (pytest-django's ``settings``)."""
    settings.MODEL_CREDENTIALS = parse_credentials(json.dumps(entries))


def test_key_comes_from_the_operator_credential_the_run_names(
    monkeypatch: pytest.MonkeyPatch, settings
) -> None:
    monkeypatch.setenv("MY_TEST_KEY", SECRET)
    with openai_server(api_key=SECRET) as server:
        operator_credentials(settings, lab={"key_env": "MY_TEST_KEY", "base_url": server.base_url})
        spec = ModelSpec("openai", MODEL, {"credential": "lab"})  # its server by default
        assert OpenAIBackend.check(spec) == []
        [result] = run_all(OpenAIBackend(spec, GenerationParams()), requests_for("k"))
    assert result.output == "echo:k"
    [recorded] = server.completion_requests()
    assert recorded.headers["Authorization"] == f"Bearer {SECRET}"
    assert SECRET not in json.dumps(spec.settings)
    assert OpenAIBackend.fingerprint(spec) == f"openai:{server.base_url}:{MODEL}"


def test_a_credential_is_never_sent_to_another_server(
    monkeypatch: pytest.MonkeyPatch, settings
) -> None:
    monkeypatch.setenv("MY_TEST_KEY", SECRET)
    with openai_server() as own, openai_server() as other:
        renamed = own.base_url.replace("127.0.0.1", "localhost")
        # even where any server is allowed (this machine's only where named: * does not)
        settings.MODEL_SERVER_ALLOWED_URLS = ["*", other.base_url, renamed]
        operator_credentials(settings, lab={"key_env": "MY_TEST_KEY", "base_url": own.base_url})
        for url in (other.base_url, renamed):
            spec = ModelSpec("openai", MODEL, {"credential": "lab", "base_url": url})
            [problem] = OpenAIBackend.check(spec)
            assert problem.field == "settings.base_url"
            assert "only sent to" in problem.message and SECRET not in problem.message
            with pytest.raises(BackendError, match="only sent to"):
                OpenAIBackend(spec, GenerationParams())
        assert other.requests == [] and own.requests == []


def test_a_run_never_names_an_environment_variable(
    monkeypatch: pytest.MonkeyPatch, server: FakeOpenAIServer
) -> None:
    monkeypatch.setenv("MY_TEST_KEY", SECRET)
    spec = ModelSpec("openai", MODEL, {"base_url": server.base_url, "api_key_env": "MY_TEST_KEY"})
    [problem] = OpenAIBackend.check(spec)
    assert problem.field == "settings.api_key_env"
    assert "settings.credential" in problem.message
    with pytest.raises(BackendError, match="api_key_env"):
        OpenAIBackend(spec, GenerationParams())
    assert server.requests == []


def test_unknown_credential_is_named(settings) -> None:
    operator_credentials(settings, lab={"key": SECRET, "base_url": "https://api.example.com"})
    [problem] = check_spec(ModelSpec("openai", MODEL, {"credential": "nope"}))
    assert problem.field == "settings.credential"
    assert "'nope'" in problem.message and "lab" in problem.message
    assert SECRET not in problem.message


def test_key_and_base_url_from_the_openai_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    with openai_server(api_key=SECRET) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        spec = ModelSpec("openai", MODEL, {"backoff": 0.001})
        assert OpenAIBackend.check(spec) == []
        [result] = run_all(OpenAIBackend(spec, GenerationParams()), requests_for("env"))
    assert result.output == "echo:env"
    assert server.completion_requests()[0].headers["Authorization"] == f"Bearer {SECRET}"


def test_openai_api_key_goes_only_to_openai_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    with openai_server() as operators, openai_server() as other:
        monkeypatch.setenv("OPENAI_BASE_URL", operators.base_url)
        run_all(make_backend(other.base_url), requests_for("elsewhere"))
    assert other.completion_requests()[0].headers["Authorization"] == "Bearer EMPTY"
    assert operators.requests == []


def test_local_server_without_a_key_gets_empty(server: FakeOpenAIServer) -> None:
    spec = ModelSpec("openai", MODEL, {"base_url": server.base_url})
    assert OpenAIBackend.check(spec) == []
    run_all(OpenAIBackend(spec, GenerationParams()), requests_for("local"))
    assert server.completion_requests()[0].headers["Authorization"] == "Bearer EMPTY"


# ---------------------------------------------------------------------------------- checks


def fields(settings: dict[str, object], model: str = MODEL) -> list[str]:
    return [problem.field for problem in check_spec(ModelSpec("openai", model, settings))]


def test_check_names_missing_base_url() -> None:
    assert fields({}) == ["settings.base_url"]
    assert fields({"api_key_env": "MY_TEST_KEY"}) == ["settings.api_key_env", "settings.base_url"]


def test_check_names_missing_key_for_a_remote_server(
    monkeypatch: pytest.MonkeyPatch, settings
) -> None:
    settings.MODEL_SERVER_ALLOWED_URLS = ["https://api.example.com"]
    [problem] = check_spec(ModelSpec("openai", MODEL, {"base_url": "https://api.example.com/v1"}))
    assert problem.field == "settings.credential"
    assert "no API key" in problem.message
    operator_credentials(
        settings, hosted={"key_env": "MY_TEST_KEY", "base_url": "https://api.example.com"}
    )
    assert fields({"credential": "hosted"}) == ["settings.credential"]  # its variable is unset
    monkeypatch.setenv("MY_TEST_KEY", SECRET)
    assert fields({"credential": "hosted"}) == []
    assert fields({"credential": "hosted", "base_url": "https://api.example.com/v1/"}) == []
    with pytest.raises(BackendError, match="no API key"):
        make_backend("https://api.example.com/v1")


def test_only_the_operators_servers_are_addressed(settings) -> None:
    settings.MODEL_SERVER_ALLOWED_URLS = []  # the default: this machine's and credentials'
    [problem] = check_spec(ModelSpec("openai", MODEL, {"base_url": "http://10.0.0.9:8000/v1"}))
    assert problem.field == "settings.base_url"
    assert "MODEL_SERVER_ALLOWED_URLS" in problem.message
    operator_credentials(settings, lab={"key": SECRET, "base_url": "http://10.0.0.9:8000"})
    assert fields({"base_url": "http://10.0.0.9:8000/v1"}) == ["settings.credential"]  # no key
    settings.MODEL_SERVER_ALLOWED_URLS = ["http://gpu.lab:8000/team"]
    assert fields({"base_url": "http://gpu.lab:8000/team/v1"}) == ["settings.credential"]
    for refused in (
        "http://gpu.lab:8001/team",
        "https://gpu.lab:8000/team",
        "http://gpu.lab:8000/",
    ):
        assert fields({"base_url": refused}) == ["settings.base_url"], refused
    assert fields({"base_url": "http://gpu.lab:8000/team/../other"}) == ["settings.base_url"]
    # a list is the whole list: this machine's servers only where it names them
    assert fields({"base_url": "http://127.0.0.1:8000/v1"}) == ["settings.base_url"]
    settings.MODEL_SERVER_ALLOWED_URLS = ["http://gpu.lab:8000/team", "http://127.0.0.1:8000"]
    assert fields({"base_url": "http://127.0.0.1:8000/v1"}) == []
    assert fields({"base_url": "http://127.0.0.1:6379/v1"}) == ["settings.base_url"]


def test_check_allows_local_servers_without_a_key() -> None:
    for url in ("http://127.0.0.1:8000/v1", "http://localhost:8000", "http://[::1]:8000/v1"):
        assert fields({"base_url": url}) == []


def test_check_names_bad_values() -> None:
    local = {"base_url": "http://127.0.0.1:8000/v1"}
    assert fields({**local, "concurrency": 0}) == ["settings.concurrency"]
    assert fields({**local, "concurrency": "8"}) == ["settings.concurrency"]
    assert fields({**local, "max_retries": -1}) == ["settings.max_retries"]
    assert fields({**local, "max_retries": 0, "concurrency": 3}) == []
    assert fields({**local, "timeout": 0}) == ["settings.timeout"]
    assert fields({**local, "backoff": "fast"}) == ["settings.backoff"]
    assert fields({**local, "chat": "yes"}) == ["settings.chat"]
    assert fields({**local, "api_key_env": "not a name"}) == ["settings.api_key_env"]
    assert fields({**local, "temperature": 1}) == ["settings.temperature"]
    assert fields({"base_url": "ftp://example.com"}) == ["settings.base_url"]
    assert fields({"base_url": "http://127.0.0.1:8000/v1#@api.example.com"}) == [
        "settings.base_url"
    ]


def test_registered_under_openai() -> None:
    assert get_backend("openai") is OpenAIBackend


# ---------------------------------------------------------------- fingerprint, environment


def test_fingerprint_has_no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    spec = ModelSpec(
        "openai", MODEL, {"base_url": "https://api.example.com/v1/", "api_key": SECRET}
    )
    assert OpenAIBackend.fingerprint(spec) == f"openai:https://api.example.com/v1:{MODEL}"
    spec.settings["revision"] = "2024-08-06"
    assert OpenAIBackend.fingerprint(spec) == "revision:2024-08-06"


def test_environment_has_the_model_and_never_the_key(
    monkeypatch: pytest.MonkeyPatch, settings
) -> None:
    monkeypatch.setenv("MY_TEST_KEY", SECRET)
    with openai_server(api_key=SECRET) as server:
        operator_credentials(settings, lab={"key_env": "MY_TEST_KEY", "base_url": server.base_url})
        backend = make_backend(server.base_url, credential="lab")
        facts = backend.environment()
    assert SECRET not in json.dumps(facts)
    assert SECRET not in repr(vars(backend))  # the key is held as a secret that shows ***
    assert facts["base_url"] == server.base_url
    assert facts["model"] == {"id": MODEL, "owned_by": "tests", "listed": True}
    # the key was sent to /v1/models, as the server wants it
    assert server.requests[0].headers["Authorization"] == f"Bearer {SECRET}"


def test_environment_of_an_unreachable_server_still_answers() -> None:
    with openai_server() as server:
        base_url = server.base_url
    facts = make_backend(base_url, api_key=SECRET).environment()
    assert SECRET not in json.dumps(facts)
    assert facts["base_url"] == base_url
    assert "error" in facts["model"]


def test_credentials_in_the_base_url_are_refused() -> None:
    url = f"https://user:{SECRET}@api.example.com/v1"
    problems = check_spec(ModelSpec("openai", MODEL, {"base_url": url, "api_key": "k"}))
    assert [problem.field for problem in problems] == ["settings.base_url"]
    assert SECRET not in str(problems)
