"""Model backends, one file each, registered by name and imported lazily.

- ``base``: the contract (``Backend``, ``ModelSpec``, ``GenerationParams``,
  ``GenerationRequest`` -> ``GenerationResult``), the request cache key (``request_key``)
  and ``files_fingerprint`` for local weights.
- ``transformers_backend`` (``transformers``): local path or hub id, GGUF via
  ``gguf_file``; batched generation with left padding; chat template when the model has one.
- ``vllm_backend`` (``vllm``): vLLM's in-process offline engine, all requests at once,
  prefix caching, guided choice for the guided prompt variant.
- ``openai_backend`` (``openai``): any OpenAI-compatible server; bounded concurrency,
  retries with backoff on 429 and 5xx; the key is read, never stored.
- ``random_labels`` (``random``): a seeded uniform draw over the request's labels (the
  MAFALDA random baseline); ``silent`` (``silent``): answers nothing.

Who may launch what: ``registry`` (the operator's registered models, the hub allow-list,
``launch_problems`` for every launch path and ``resolve`` for the runner) and
``setting_rules`` (the settings a project admin may choose, each backend's
``tenant_settings``).

``get_backend(name)`` imports the implementing module on first use, so the web process,
which only calls ``check_spec``, never imports torch or vLLM (the modules themselves
import them inside their methods, too).
"""

from __future__ import annotations

from importlib import import_module

from evaluation.backends.base import (
    Backend,
    BackendError,
    GenerationParams,
    GenerationRequest,
    GenerationResult,
    ModelSpec,
    SettingProblem,
    request_key,
)

#: name -> "module:Class"
BACKENDS: dict[str, str] = {
    "transformers": "evaluation.backends.transformers_backend:TransformersBackend",
    "vllm": "evaluation.backends.vllm_backend:VLLMBackend",
    "openai": "evaluation.backends.openai_backend:OpenAIBackend",
    "random": "evaluation.backends.random_labels:RandomBackend",
    "silent": "evaluation.backends.silent:SilentBackend",
}

#: Backends that are reference points, not models: tables tag their rows "baseline".
BASELINES: frozenset[str] = frozenset({"random", "silent"})


def is_baseline(backend: str | None) -> bool:
    """Whether runs of ``backend`` are a baseline (a random draw, no answer), not a model."""
    return backend in BASELINES


def get_backend(name: str) -> type[Backend]:
    """The backend class registered as ``name`` (``BackendError`` naming the choices)."""
    target = BACKENDS.get(name)
    if target is None:
        raise BackendError(f"unknown backend {name!r}; available: {', '.join(sorted(BACKENDS))}")
    module_name, class_name = target.split(":")
    return getattr(import_module(module_name), class_name)


def check_spec(spec: ModelSpec) -> list[SettingProblem]:
    """Launch-time problems of a model spec, each naming its field (empty when fine)."""
    if spec.backend not in BACKENDS:
        return [
            SettingProblem(
                "backend",
                f"unknown backend {spec.backend!r}; available: {', '.join(sorted(BACKENDS))}",
            )
        ]
    return get_backend(spec.backend).check(spec)


__all__ = [
    "BACKENDS",
    "Backend",
    "BackendError",
    "GenerationParams",
    "GenerationRequest",
    "GenerationResult",
    "ModelSpec",
    "SettingProblem",
    "check_spec",
    "get_backend",
    "request_key",
]
