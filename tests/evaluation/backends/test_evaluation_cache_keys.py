"""The request cache key (``request_key``) and the weights fingerprint
(``files_fingerprint`` / ``Backend.fingerprint``) that it includes.

A run reuses a cached output only when every input that could change it is the same, so
each input must change the key: backend, model, weights (revision or file content), prompt
text, the guided label set, and every decoding parameter (seed included). Identical
inputs must give the same key, or nothing would ever be reused across runs. Plain Python:
no database, no model.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from evaluation.backends import ModelSpec, get_backend
from evaluation.backends.base import GenerationParams, files_fingerprint, request_key

BASE: dict[str, Any] = {
    "backend": "transformers",
    "model": "HuggingFaceTB/SmolLM2-135M-Instruct",
    "fingerprint": "files:abc",
    "prompt": "Definitions... Text: A. Sentence: A.",
    "guided_labels": (),
    "params": GenerationParams(max_new_tokens=48, temperature=0.0, top_p=1.0, seed=0),
}


def key(**change: Any) -> str:
    return request_key(**{**BASE, **change})


def test_identical_inputs_give_the_same_key() -> None:
    assert key() == key()
    # a fresh but equal params object, labels as a list rather than a tuple
    assert key(params=GenerationParams(48, 0.0, 1.0, 0), guided_labels=[]) == key()
    assert len(key()) == 64 and int(key(), 16) >= 0  # a SHA-256 in hex


@pytest.mark.parametrize(
    "change",
    [
        {"backend": "vllm"},
        {"model": "HuggingFaceTB/SmolLM2-360M-Instruct"},
        {"fingerprint": "files:abd"},
        {"prompt": "Definitions... Text: A. Sentence: B."},
        {"prompt": BASE["prompt"] + " "},  # one trailing space
        {"guided_labels": ("ad hominem", "none")},
        {"params": replace(BASE["params"], seed=1)},
        {"params": replace(BASE["params"], max_new_tokens=49)},
        {"params": replace(BASE["params"], temperature=0.7)},
        {"params": replace(BASE["params"], top_p=0.9)},
    ],
    ids=[
        "backend",
        "model",
        "fingerprint",
        "prompt",
        "prompt-whitespace",
        "guided-labels",
        "seed",
        "max_new_tokens",
        "temperature",
        "top_p",
    ],
)
def test_each_input_changes_the_key(change: dict[str, Any]) -> None:
    assert key(**change) != key()


def test_every_decoding_parameter_is_in_the_key() -> None:
    """A new field of ``GenerationParams`` must change the key too (``to_dict`` is hashed)."""
    params = BASE["params"]
    for name in params.to_dict():
        value = getattr(params, name)
        other = replace(params, **{name: value + 1 if isinstance(value, int) else value + 0.5})
        assert key(params=other) != key(), name


def test_guided_label_order_matters_for_the_key() -> None:
    # the constrained choice list is passed in order; a different order is another request
    assert key(guided_labels=("a", "b")) != key(guided_labels=("b", "a"))


# --- weights fingerprint --------------------------------------------------------------------


def model_folder(root: Path, weights: bytes, config: str = '{"layers": 2}') -> Path:
    root.mkdir(parents=True)
    (root / "config.json").write_text(config, encoding="utf-8")
    (root / "model.safetensors").write_bytes(weights)
    return root


def test_same_files_in_two_places_give_the_same_fingerprint(tmp_path: Path) -> None:
    a = model_folder(tmp_path / "a", b"\x01" * 1000)
    b = model_folder(tmp_path / "elsewhere" / "b", b"\x01" * 1000)
    assert files_fingerprint(a) == files_fingerprint(b)
    assert files_fingerprint(a) == files_fingerprint(a)


def test_changed_weights_or_config_change_the_fingerprint(tmp_path: Path) -> None:
    base = files_fingerprint(model_folder(tmp_path / "base", b"\x01" * 1000))
    weights = files_fingerprint(model_folder(tmp_path / "w", b"\x01" * 999 + b"\x02"))
    config = files_fingerprint(model_folder(tmp_path / "c", b"\x01" * 1000, '{"layers": 3}'))
    longer = files_fingerprint(model_folder(tmp_path / "l", b"\x01" * 1001))
    assert len({base, weights, config, longer}) == 4


def test_renamed_or_added_file_changes_the_fingerprint(tmp_path: Path) -> None:
    folder = model_folder(tmp_path / "m", b"\x01" * 100)
    before = files_fingerprint(folder)
    (folder / "tokenizer.json").write_text("{}", encoding="utf-8")
    added = files_fingerprint(folder)
    (folder / "tokenizer.json").rename(folder / "tokenizer2.json")
    renamed = files_fingerprint(folder)
    assert len({before, added, renamed}) == 3


def test_a_large_weights_file_is_hashed_at_both_ends(tmp_path: Path) -> None:
    """Files over 16 MiB are hashed by size and their first and last MiB."""
    size = 17 * 1024 * 1024
    path = tmp_path / "big.safetensors"
    path.write_bytes(b"\0" * size)
    zeros = files_fingerprint(path)
    with path.open("r+b") as handle:
        handle.write(b"\1")  # first byte
    head = files_fingerprint(path)
    with path.open("r+b") as handle:
        handle.seek(size - 1)
        handle.write(b"\1")  # last byte
    tail = files_fingerprint(path)
    assert len({zeros, head, tail}) == 3


def test_gguf_file_selects_which_quantisation_is_hashed(tmp_path: Path) -> None:
    folder = tmp_path / "gguf"
    folder.mkdir()
    (folder / "model-q4.gguf").write_bytes(b"q4")
    (folder / "model-q8.gguf").write_bytes(b"q8")
    q4 = files_fingerprint(folder, "model-q4.gguf")
    q8 = files_fingerprint(folder, "model-q8.gguf")
    assert q4 != q8
    (folder / "model-q8.gguf").write_bytes(b"q8 changed")
    assert files_fingerprint(folder, "model-q4.gguf") == q4  # the other file is ignored
    assert files_fingerprint(folder, "model-q8.gguf") != q8


def test_backend_fingerprint_revision_files_or_name(tmp_path: Path) -> None:
    backend = get_backend("transformers")
    folder = model_folder(tmp_path / "m", b"\x01" * 100)
    local = backend.fingerprint(ModelSpec("transformers", str(folder)))
    assert local == "files:" + files_fingerprint(folder)
    pinned = backend.fingerprint(ModelSpec("transformers", "org/m", {"revision": "abc123"}))
    assert pinned == "revision:abc123"
    assert backend.fingerprint(ModelSpec("transformers", "org/m")) == "name:org/m"


def test_new_weights_at_the_same_path_change_every_request_key(tmp_path: Path) -> None:
    """Retrained weights saved over the old ones are never answered from the old cache."""
    backend = get_backend("transformers")
    folder = model_folder(tmp_path / "m", b"\x01" * 100)
    spec = ModelSpec("transformers", str(folder))
    before = key(model=str(folder), fingerprint=backend.fingerprint(spec))
    assert key(model=str(folder), fingerprint=backend.fingerprint(spec)) == before
    (folder / "model.safetensors").write_bytes(b"\x02" * 100)  # same size, new content
    after = key(model=str(folder), fingerprint=backend.fingerprint(spec))
    assert after != before
