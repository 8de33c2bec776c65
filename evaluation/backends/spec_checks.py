"""Launch-time checks of a model spec that the backends share: the model path, a GGUF file
in it, and settings of the same kind (a revision, flags, positive integers, choices).

Each check returns the problems it finds, each naming its field (``model``,
``settings.<key>``); a setting left out (or null) is not checked. Plain Python: ``check``
runs in the web process, without torch or vLLM.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from evaluation.backends.base import BackendError, ModelSpec, SettingProblem


def is_whole(value: Any) -> bool:
    """An integer (a bool is not one)."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    """An integer or a float (a bool is not one)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def refuse(problems: Sequence[SettingProblem]) -> None:
    """Raise ``BackendError`` listing ``problems``, if any: a backend is never built from a
    spec its ``check`` refuses."""
    if problems:
        raise BackendError("; ".join(str(problem) for problem in problems))


def invalid(
    settings: Mapping[str, Any],
    keys: Iterable[str],
    valid: Callable[[Any], bool],
    message: Callable[[Any], str],
) -> list[SettingProblem]:
    """A problem for each of ``keys`` set to a value ``valid`` refuses, told
    ``message(value)``."""
    return [
        SettingProblem(f"settings.{key}", message(settings[key]))
        for key in keys
        if settings.get(key) is not None and not valid(settings[key])
    ]


def positive_integers(settings: Mapping[str, Any], keys: Iterable[str]) -> list[SettingProblem]:
    """Each of ``keys`` that is not an integer of at least 1."""
    return invalid(
        settings,
        keys,
        lambda value: is_whole(value) and value >= 1,
        lambda value: f"must be a positive integer, not {value!r}",
    )


def flags(settings: Mapping[str, Any], keys: Iterable[str]) -> list[SettingProblem]:
    """Each of ``keys`` that is not true or false."""
    return invalid(
        settings, keys, lambda value: isinstance(value, bool), lambda _: "must be true or false"
    )


def choices(
    settings: Mapping[str, Any], allowed: Mapping[str, Sequence[str]]
) -> list[SettingProblem]:
    """Each setting of ``allowed`` whose value is not one of its choices."""
    return [
        SettingProblem(f"settings.{key}", f"{settings[key]!r} is not one of {', '.join(options)}")
        for key, options in allowed.items()
        if settings.get(key) is not None and settings[key] not in options
    ]


def revision(settings: Mapping[str, Any]) -> list[SettingProblem]:
    """``settings.revision`` when it is not a non-empty string."""
    return invalid(
        settings,
        ("revision",),
        lambda value: isinstance(value, str) and bool(value.strip()),
        lambda _: "must be a non-empty string",
    )


def looks_like_path(model: str) -> bool:
    """A local path rather than a hub id (``org/name`` has exactly one slash)."""
    if model.startswith(("/", "./", "../", "~")) or model in (".", ".."):
        return True
    if os.sep != "/" and os.sep in model:
        return True
    return model.count("/") > 1


def no_model(spec: ModelSpec, *, what: str) -> SettingProblem | None:
    """``spec.model`` missing or blank (``what`` names what it should be)."""
    if not isinstance(spec.model, str) or not spec.model.strip():
        return SettingProblem("model", f"a {what} or hub id is required")
    return None


def missing_path(
    spec: ModelSpec, *, is_path: Callable[[str], bool] = looks_like_path
) -> SettingProblem | None:
    """``spec.model`` names a local path (``is_path``) that does not exist."""
    if is_path(spec.model) and not os.path.exists(os.path.expanduser(spec.model)):
        return SettingProblem("model", f"no such file or folder: {spec.model}")
    return None


def gguf_file_problems(spec: ModelSpec, *, folder_only: bool) -> list[SettingProblem]:
    """``settings.gguf_file``, a GGUF file inside the model's folder. With ``folder_only``
    (vLLM) its name must end in ``.gguf`` and the model must hold it; otherwise any file
    name, looked for when the model is a folder, and refused beside a model that is a file."""
    gguf_file = spec.settings.get("gguf_file")
    if gguf_file is None:
        return []
    if folder_only and (not isinstance(gguf_file, str) or not gguf_file.endswith(".gguf")):
        return [SettingProblem("settings.gguf_file", "must be a .gguf file name")]
    if not folder_only and (not isinstance(gguf_file, str) or not gguf_file.strip()):
        return [SettingProblem("settings.gguf_file", "must be a file name")]
    model = os.path.expanduser(spec.model)
    if (folder_only or os.path.isdir(model)) and not os.path.isfile(os.path.join(model, gguf_file)):
        return [SettingProblem("settings.gguf_file", f"no such file in {spec.model}: {gguf_file}")]
    if not folder_only and os.path.isfile(model):
        return [SettingProblem("settings.gguf_file", "model must be a folder with gguf_file")]
    return []
