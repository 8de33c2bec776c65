"""Launch-time checks of a ``transformers`` model spec and its settings (no torch import)."""

from __future__ import annotations

import os

from evaluation.backends import spec_checks
from evaluation.backends.base import ModelSpec, SettingProblem
from evaluation.backends.setting_rules import Flag, OneOf, Rule, Whole

DTYPES = ("auto", "float32", "bfloat16", "float16")
DEVICES = ("auto", "cpu", "cuda")
ATTENTIONS = ("auto", "eager", "sdpa")
MAX_BATCH_SIZE = 512

#: what a project admin may set; ``gguf_file``, ``revision`` and ``trust_remote_code`` come
#: from the operator's registered model
TENANT_SETTINGS: dict[str, Rule] = {
    "batch_size": Whole(1, MAX_BATCH_SIZE),
    "prefix_cache": Flag(),
    "dtype": OneOf(DTYPES),
    "device": OneOf(DEVICES),
    "attention": OneOf(ATTENTIONS),
}


def _looks_like_path(model: str) -> bool:
    """A local path (a GGUF file name too) rather than a hub id."""
    return spec_checks.looks_like_path(model) or model.endswith(".gguf")


def problems_of(spec: ModelSpec) -> list[SettingProblem]:
    """Every problem of ``spec``'s model and settings, each naming its field."""
    settings = spec.settings
    no_model = spec_checks.no_model(spec, what="model path")
    if no_model is not None:
        return [no_model]
    problems: list[SettingProblem] = []
    missing = spec_checks.missing_path(spec, is_path=_looks_like_path)
    if missing is not None:
        problems.append(missing)
    problems += spec_checks.gguf_file_problems(spec, folder_only=False)
    model = os.path.expanduser(spec.model)
    if settings.get("gguf_file") is None and os.path.isfile(model) and not model.endswith(".gguf"):
        problems.append(SettingProblem("model", f"a file must be a .gguf file, not {spec.model}"))
    problems += spec_checks.revision(settings)
    problems += spec_checks.positive_integers(settings, ("batch_size",))
    problems += spec_checks.choices(
        settings, {"dtype": DTYPES, "device": DEVICES, "attention": ATTENTIONS}
    )
    problems += spec_checks.flags(settings, ("trust_remote_code", "prefix_cache"))
    return problems
