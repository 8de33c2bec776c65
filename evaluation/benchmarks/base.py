"""The task contract: how a benchmark turns documents into prompts and outputs into answers.

Plain Python (no Django). The Django side hands a task plain objects (``TaskDocument``,
``TaskLabel``, ``Example``, ``VariantSpec``) and stores what it gives back.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Protocol

# the answer part of a chain-of-thought output, read the same way by the scoring library
from evaluation.scoring.parsers import strip_reasoning  # noqa: F401

VARIANT_KINDS: tuple[str, ...] = ("zero-shot", "guided", "few-shot", "chain-of-thought")


class TaskError(ValueError):
    """A task cannot build its prompts (e.g. a template placeholder it does not know)."""


@dataclass(frozen=True)
class TaskLabel:
    name: str
    definition: str = ""


@dataclass(frozen=True)
class TaskDocument:
    """A text and its units (sentences) as strings, in text order."""

    id: int
    text: str
    units: tuple[str, ...]


@dataclass(frozen=True)
class Example:
    """A few-shot example: a unit of another document and its gold answer."""

    document_id: int
    text: str
    unit: str
    answer: str


@dataclass(frozen=True)
class VariantSpec:
    """A prompt variant as stored data: ``template`` with named placeholders."""

    name: str
    kind: str
    template: str
    parser: str = "keyword"
    shots: int = 0
    seed: int = 0
    settings: dict = field(default_factory=dict)
    unparseable: str = "wrong"  # item tasks: "wrong" or "random" (see benchmarks.items)


@dataclass(frozen=True)
class UnitPrompt:
    document_id: int
    unit_index: int
    unit_text: str
    prompt: str
    labels: tuple[str, ...]
    guided: bool


class Task(Protocol):
    name: ClassVar[str]
    placeholders: ClassVar[frozenset[str]]

    def prompts(
        self,
        documents: Sequence[TaskDocument],
        *,
        labels: Sequence[TaskLabel],
        variant: VariantSpec,
        examples: Sequence[Example] = (),
    ) -> Iterator[UnitPrompt]: ...

    def answer(self, variant: VariantSpec, output: str) -> str: ...


def template_fields(template: str) -> list[str]:
    """The placeholder names of a ``str.format`` template (``TaskError`` when malformed)."""
    try:
        return [name for _, name, _, _ in string.Formatter().parse(template) if name is not None]
    except ValueError as error:
        raise TaskError(f"template: {error} (write a literal brace as {{{{ or }}}})") from None


def check_template(template: str, allowed: frozenset[str], required: Sequence[str] = ()) -> None:
    """``TaskError`` naming an unknown or missing placeholder."""
    names = template_fields(template)
    for name in names:
        if not name or not re.fullmatch(r"\w+", name) or name not in allowed:
            raise TaskError(
                f"template: unknown placeholder {{{name}}}; "
                f"allowed: {', '.join('{' + n + '}' for n in sorted(allowed))}"
            )
    for name in required:
        if name not in names:
            raise TaskError(f"template: the placeholder {{{name}}} is required")


EXAMPLES_LEAD = "Examples of other texts with the expected answer:\n\n{examples}\n\n"


def answer_templates(
    instruction: str, reply: str, *, body: str = "Text: {text}\n\n", examples_after: str = "\n\n"
) -> tuple[str, str]:
    """The zero-shot and few-shot templates of a task that asks for a short answer: the
    instruction, (the examples,) the ``body`` (the text and what else the item shows),
    the ``reply`` rule, then "Answer:"; ``examples_after`` joins the instruction and the
    examples."""
    zero_shot = f"{instruction}\n\n{body}{reply}\nAnswer:"
    few_shot = f"{instruction}{examples_after}{EXAMPLES_LEAD}{body}{reply}\nAnswer:"
    return zero_shot, few_shot
