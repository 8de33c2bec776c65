"""What a project admin may set on a backend: each backend's ``tenant_settings`` maps a
setting to a rule (its type and bounds). Plain Python.

A setting a backend reads but does not list there (``trust_remote_code``, ``gguf_file``,
``revision``, ``load_format: pt``…) belongs to the operator: it comes from a registered model
(``registry``) or from a superuser's launch, never from a project admin.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from evaluation.backends.base import SettingProblem


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


@dataclass(frozen=True)
class Rule:
    """A setting's allowed values; ``problem`` says what is wrong with one (None: fine)."""

    def problem(self, value: Any) -> str | None:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError


@dataclass(frozen=True)
class Flag(Rule):
    def problem(self, value: Any) -> str | None:
        return None if isinstance(value, bool) else "must be true or false"

    def describe(self) -> str:
        return "true or false"


@dataclass(frozen=True)
class Whole(Rule):
    low: int
    high: int

    def problem(self, value: Any) -> str | None:
        whole = isinstance(value, int) and not isinstance(value, bool)
        if not whole or not self.low <= value <= self.high:
            return f"a whole number from {self.low} to {self.high}, not {value!r}"
        return None

    def describe(self) -> str:
        return f"{self.low}..{self.high}"


@dataclass(frozen=True)
class Number(Rule):
    """A number in ``(low, high]`` (``low`` itself excluded)."""

    low: float
    high: float

    def problem(self, value: Any) -> str | None:
        if not _number(value) or not self.low < value <= self.high:
            return f"a number above {self.low} and at most {self.high}, not {value!r}"
        return None

    def describe(self) -> str:
        return f"({self.low}, {self.high}]"


@dataclass(frozen=True)
class AtLeast(Rule):
    """A number in ``[low, high]``."""

    low: float
    high: float

    def problem(self, value: Any) -> str | None:
        if not _number(value) or not self.low <= value <= self.high:
            return f"a number from {self.low} to {self.high}, not {value!r}"
        return None

    def describe(self) -> str:
        return f"[{self.low}, {self.high}]"


@dataclass(frozen=True)
class OneOf(Rule):
    choices: tuple[str, ...]

    def problem(self, value: Any) -> str | None:
        if value not in self.choices:
            return f"{value!r} is not one of {', '.join(self.choices)}"
        return None

    def describe(self) -> str:
        return " | ".join(self.choices)


@dataclass(frozen=True)
class Text(Rule):
    max_length: int

    def problem(self, value: Any) -> str | None:
        if not isinstance(value, str) or not value.strip() or len(value) > self.max_length:
            return f"a non-empty text of at most {self.max_length} characters"
        return None

    def describe(self) -> str:
        return f"text (at most {self.max_length} characters)"


def tenant_problems(
    backend: str, rules: Mapping[str, Rule], settings: Mapping[str, Any], *, known: frozenset[str]
) -> list[SettingProblem]:
    """What a project admin may not set in ``settings``, each named: a setting the backend
    does not read, one it reads (``known``) but keeps for the operator, a value outside its
    rule."""
    problems: list[SettingProblem] = []
    allowed = ", ".join(sorted(rules)) or "none"
    for key in sorted(settings):
        rule = rules.get(key)
        if rule is None:
            message = (
                f"not a setting a project admin may choose for backend {backend!r} "
                f"(these are: {allowed}); the operator sets it for a registered model"
                if key in known
                else f"not a setting of backend {backend!r}"
            )
            problems.append(SettingProblem(f"settings.{key}", message))
            continue
        message = rule.problem(settings[key])
        if message is not None:
            problems.append(SettingProblem(f"settings.{key}", message))
    return problems
