"""Launch-time checks of a ``vllm`` model spec and its settings (no vLLM or torch import)."""

from __future__ import annotations

import os
from collections.abc import Mapping

from evaluation.backends import spec_checks
from evaluation.backends.base import ModelSpec, SettingProblem
from evaluation.backends.setting_rules import Flag, Number, OneOf, Rule, Whole

LOAD_FORMATS = ("auto", "safetensors", "pt", "dummy")
DTYPES = ("auto", "float32", "bfloat16", "float16")
POSITIVE_INTEGERS = ("tensor_parallel_size", "max_model_len", "max_num_seqs", "chunk_size")
FLAGS = ("enforce_eager", "trust_remote_code")

#: what a project admin may set; ``gguf_file``, ``revision``, ``trust_remote_code`` and
#: the pickle-reading ``load_format: pt`` are the operator's
TENANT_SETTINGS: Mapping[str, Rule] = {
    "tensor_parallel_size": Whole(1, 16),
    "load_format": OneOf(("auto", "safetensors", "dummy")),
    "enforce_eager": Flag(),
    "max_model_len": Whole(1, 1 << 20),
    "gpu_memory_utilization": Number(0, 1),
    "kv_cache_memory_gib": Number(0, 1024),
    "max_num_seqs": Whole(1, 4096),
    "dtype": OneOf(DTYPES),
    "chunk_size": Whole(1, 1 << 16),
}


def _model_problems(spec: ModelSpec) -> list[SettingProblem]:
    """The model folder (vLLM loads no single file) and the load format."""
    problems: list[SettingProblem] = []
    load_format = spec.settings.get("load_format", "auto")
    if load_format not in LOAD_FORMATS:
        problems.append(
            SettingProblem(
                "settings.load_format",
                f"{load_format!r} is not one of {', '.join(LOAD_FORMATS)}",
            )
        )
    missing = spec_checks.missing_path(spec)
    if missing is not None:
        problems.append(missing)
    elif os.path.isfile(os.path.expanduser(spec.model)):
        problems.append(
            SettingProblem(
                "model",
                "vLLM loads a model folder; for a GGUF file give its folder as model "
                "and the file name as settings.gguf_file",
            )
        )
    return problems + spec_checks.gguf_file_problems(spec, folder_only=True)


def _memory_problems(settings: Mapping[str, object]) -> list[SettingProblem]:
    """The share of device memory and the KV cache size."""
    return spec_checks.invalid(
        settings,
        ("gpu_memory_utilization",),
        lambda value: spec_checks.is_number(value) and 0 < value <= 1,
        lambda value: f"must be a number in (0, 1], not {value!r}",
    ) + spec_checks.invalid(
        settings,
        ("kv_cache_memory_gib",),
        lambda value: spec_checks.is_number(value) and value > 0,
        lambda value: f"must be a positive number, not {value!r}",
    )


def problems_of(spec: ModelSpec) -> list[SettingProblem]:
    """Every problem of ``spec``'s model and settings, each naming its field."""
    no_model = spec_checks.no_model(spec, what="model folder")
    if no_model is not None:
        return [no_model]
    settings = spec.settings
    return (
        _model_problems(spec)
        + spec_checks.positive_integers(settings, POSITIVE_INTEGERS)
        + _memory_problems(settings)
        + spec_checks.choices(settings, {"dtype": DTYPES})
        + spec_checks.revision(settings)
        + spec_checks.flags(settings, FLAGS)
    )
