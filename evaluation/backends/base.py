"""The backend contract: what every model backend takes and gives (plain Python, no Django).

A backend turns prompts into raw text. It never imports torch or vLLM at module level:
``evaluation.backends.get_backend`` imports the module that implements a backend only in
the process that runs the model (the runner), never in the web process.
"""

from __future__ import annotations

import hashlib
import json
import os
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from evaluation.backends.setting_rules import Rule


class BackendError(RuntimeError):
    """A backend cannot run (bad settings, model missing, server refusing...)."""


@dataclass(frozen=True)
class SettingProblem:
    """A launch-time problem with a run's settings, naming the field."""

    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.field}: {self.message}"


@dataclass(frozen=True)
class GenerationParams:
    """Decoding settings; ``temperature == 0`` means greedy."""

    max_new_tokens: int = 48
    temperature: float = 0.0
    top_p: float = 1.0
    seed: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, values: Mapping[str, Any] | None) -> GenerationParams:
        values = dict(values or {})
        known = {name: values[name] for name in cls.__dataclass_fields__ if name in values}
        return cls(**known)

    @property
    def greedy(self) -> bool:
        return self.temperature <= 0


@dataclass(frozen=True)
class GenerationRequest:
    """One prompt. ``labels`` are the answers the task accepts (the random baseline draws
    from them); with ``guided`` the output must be exactly one of them."""

    key: str
    prompt: str
    labels: tuple[str, ...] = ()
    guided: bool = False


@dataclass(frozen=True)
class GenerationResult:
    key: str
    output: str
    seconds: float = 0.0  # this request's share of its batch's wall time


@dataclass
class ModelSpec:
    """What a run asks a backend for: a model name/path and backend settings."""

    backend: str
    model: str
    settings: dict[str, Any] = field(default_factory=dict)


class Backend(ABC):
    """A model backend. Subclasses set ``name`` and implement ``generate``.

    ``check`` and ``fingerprint`` are class methods that must stay cheap (no model load,
    no torch import): the web process calls ``check`` at launch; the runner calls
    ``fingerprint`` to compute cache keys before deciding whether to load the model at all.
    """

    name: ClassVar[str]
    #: settings keys this backend reads (others are refused at launch)
    settings_keys: ClassVar[frozenset[str]] = frozenset()
    #: the settings a project admin may choose, with their types and bounds (the rest of
    #: ``settings_keys`` are the operator's: ``setting_rules``)
    tenant_settings: ClassVar[Mapping[str, Rule]] = {}
    #: whether ``spec.model`` names model files this machine loads (a path or a hub id),
    #: which a project admin may choose only from the operator's registry (``registry``)
    loads_model_files: ClassVar[bool] = False
    #: how many requests a part of a run holds when the launch does not choose: parts are
    #: what workers take as they free up, so a few dozen; a backend that batches a whole
    #: part at once asks for more
    chunk_requests: ClassVar[int] = 64

    def __init__(self, spec: ModelSpec, params: GenerationParams) -> None:
        self.spec = spec
        self.params = params

    @classmethod
    def check(cls, spec: ModelSpec) -> list[SettingProblem]:
        """Problems with ``spec`` that can be seen without loading anything."""
        unknown = sorted(set(spec.settings) - cls.settings_keys)
        return [
            SettingProblem(f"settings.{key}", f"not a setting of backend {cls.name!r}")
            for key in unknown
        ]

    @classmethod
    def fingerprint(cls, spec: ModelSpec) -> str:
        """Identifies the exact weights: a revision, or a hash of the local files."""
        revision = spec.settings.get("revision")
        if revision:
            return f"revision:{revision}"
        path = Path(spec.model).expanduser()
        if spec.model and path.exists():
            return "files:" + files_fingerprint(path, spec.settings.get("gguf_file"))
        return f"name:{spec.model}"

    @abstractmethod
    def generate(self, requests: Sequence[GenerationRequest]) -> Iterator[list[GenerationResult]]:
        """Yield results in batches as they complete (every request exactly once)."""

    def load(self) -> None:  # noqa: B027 - optional hook
        """Load the model now (``generate`` otherwise loads it on first use), so that the
        runner can tell the load from the generation."""

    def environment(self) -> dict[str, Any]:
        """Versions and device facts recorded with the run."""
        return {}

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release the model (GPU memory, engine processes)."""


_SMALL_FILE = 16 * 1024 * 1024
_EDGE = 1024 * 1024


def files_fingerprint(path: Path, only: str | None = None) -> str:
    """A SHA-256 over a model file or folder: every file's name and size, the whole
    content of files under 16 MiB (configs, tokenizers) and the first and last MiB of
    larger ones (weights), so a changed file changes it without reading gigabytes."""
    digest = hashlib.sha256()
    if path.is_file():
        files = [path]
        base = path.parent
    else:
        base = path
        files = sorted(p for p in path.rglob("*") if p.is_file() and ".cache" not in p.parts)
        if only:
            files = [p for p in files if p.suffix != ".gguf" or p.name == only]
    for file in files:
        size = file.stat().st_size
        digest.update(f"{file.relative_to(base)}\0{size}\0".encode())
        with file.open("rb") as handle:
            if size <= _SMALL_FILE:
                digest.update(handle.read())
            else:
                digest.update(handle.read(_EDGE))
                handle.seek(size - _EDGE)
                digest.update(handle.read(_EDGE))
    return digest.hexdigest()


def request_key(
    *,
    backend: str,
    model: str,
    fingerprint: str,
    prompt: str,
    guided_labels: Sequence[str],
    params: GenerationParams,
) -> str:
    """The cache key of one request: the same key is never generated twice."""
    payload = json.dumps(
        {
            "backend": backend,
            "model": model,
            "fingerprint": fingerprint,
            "prompt": prompt,
            "guided": list(guided_labels),
            "params": params.to_dict(),
        },
        sort_keys=True,
        ensure_ascii=False,
    )
    return hashlib.sha256(payload.encode()).hexdigest()


def package_versions(*names: str) -> dict[str, str]:
    """Installed versions of ``names`` (``"-"`` when absent), without importing them."""
    from importlib import metadata

    versions = {}
    for name in names:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "-"
    return versions


def render_chat(tokenizer: Any, prompt: str) -> tuple[str, bool]:
    """The text a model sees: its chat template around one user message (and whether the
    template was used), or the prompt itself when the tokenizer has no template."""
    if getattr(tokenizer, "chat_template", None):
        rendered = tokenizer.apply_chat_template(
            [{"role": "user", "content": prompt}], tokenize=False, add_generation_prompt=True
        )
        return rendered, True
    return prompt, False


def cuda_facts() -> dict[str, Any]:
    """The CUDA devices: name, count, CUDA version and the driver (via ``nvidia-smi``)."""
    import subprocess

    import torch

    facts: dict[str, Any] = {
        "type": "cuda",
        "name": torch.cuda.get_device_name(0),
        "count": torch.cuda.device_count(),
        "cuda": torch.version.cuda,
    }
    try:
        facts["driver"] = (
            subprocess.run(
                ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                capture_output=True,
                text=True,
                timeout=10,
                check=True,
            )
            .stdout.split("\n")[0]
            .strip()
        )
    except (OSError, subprocess.SubprocessError):
        facts["driver"] = None
    return facts


def env_or_setting(settings: Mapping[str, Any], key: str, variable: str) -> str | None:
    """A setting from the run, else the environment variable (as the OpenAI client reads)."""
    value = settings.get(key)
    return str(value) if value else os.environ.get(variable) or None
