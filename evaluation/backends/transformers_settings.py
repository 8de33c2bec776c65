"""Launch-time checks of a ``transformers`` model spec and its settings (no torch import)."""

from __future__ import annotations

import os

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
    """A local path rather than a hub id (``org/name`` has exactly one slash)."""
    if model.startswith(("/", "./", "../", "~")) or model in (".", ".."):
        return True
    if os.sep != "/" and os.sep in model:
        return True
    return model.count("/") > 1 or model.endswith(".gguf")


def problems_of(spec: ModelSpec) -> list[SettingProblem]:
    """Every problem of ``spec``'s model and settings, each naming its field."""
    problems: list[SettingProblem] = []
    settings = spec.settings
    if not isinstance(spec.model, str) or not spec.model.strip():
        problems.append(SettingProblem("model", "a model path or hub id is required"))
        return problems
    model = os.path.expanduser(spec.model)
    if _looks_like_path(spec.model) and not os.path.exists(model):
        problems.append(SettingProblem("model", f"no such file or folder: {spec.model}"))

    gguf_file = settings.get("gguf_file")
    if gguf_file is not None:
        if not isinstance(gguf_file, str) or not gguf_file.strip():
            problems.append(SettingProblem("settings.gguf_file", "must be a file name"))
        elif os.path.isdir(model) and not os.path.isfile(os.path.join(model, gguf_file)):
            problems.append(
                SettingProblem("settings.gguf_file", f"no such file in {spec.model}: {gguf_file}")
            )
        elif os.path.isfile(model):
            problems.append(
                SettingProblem("settings.gguf_file", "model must be a folder with gguf_file")
            )
    elif os.path.isfile(model) and not model.endswith(".gguf"):
        problems.append(SettingProblem("model", f"a file must be a .gguf file, not {spec.model}"))

    revision = settings.get("revision")
    if revision is not None and (not isinstance(revision, str) or not revision.strip()):
        problems.append(SettingProblem("settings.revision", "must be a non-empty string"))

    batch_size = settings.get("batch_size")
    if batch_size is not None and (
        isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1
    ):
        problems.append(
            SettingProblem("settings.batch_size", f"must be a positive integer, not {batch_size!r}")
        )
    for key, choices in (("dtype", DTYPES), ("device", DEVICES), ("attention", ATTENTIONS)):
        value = settings.get(key)
        if value is not None and value not in choices:
            problems.append(
                SettingProblem(f"settings.{key}", f"{value!r} is not one of {', '.join(choices)}")
            )
    for key in ("trust_remote_code", "prefix_cache"):
        value = settings.get(key)
        if value is not None and not isinstance(value, bool):
            problems.append(SettingProblem(f"settings.{key}", "must be true or false"))
    return problems
