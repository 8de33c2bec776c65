"""``classification``: one label of the field's label set (FLUB type classification).

The prediction is a label name. The parser takes an answer that is exactly a label
(ignoring case, quotes and final punctuation), else the label named first in the answer
(a label inside a longer one counts as the longer one). Primary figure: macro-F1 over
the labels that occur in gold or predictions (``evaluation.scoring.items``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from evaluation.benchmarks.answering import AnswerTask, exact_label, find_labels
from evaluation.benchmarks.base import VariantSpec, answer_templates
from evaluation.benchmarks.items import TaskItem, register

_INSTRUCTION = (
    "Classify the text by the kind of fallacy or trick it contains. The possible labels "
    "are:\n{labels}"
)

_REPLY = "Reply with exactly one label from the list, written as in the list."
_ZERO_SHOT, _FEW_SHOT = answer_templates(_INSTRUCTION, _REPLY)

_CHAIN_OF_THOUGHT = (
    _INSTRUCTION
    + """

Text: {text}

First reason briefly, step by step, about how the text misleads. Then end with one line \
"Answer: " followed by exactly one label from the list, written as in the list."""
)

BUILTIN_VARIANTS: tuple[VariantSpec, ...] = (
    VariantSpec("zero-shot", "zero-shot", _ZERO_SHOT, settings={"max_new_tokens": 32}),
    VariantSpec(
        "few-shot", "few-shot", _FEW_SHOT, shots=3, seed=0, settings={"max_new_tokens": 32}
    ),
    VariantSpec(
        "chain-of-thought",
        "chain-of-thought",
        _CHAIN_OF_THOUGHT,
        settings={"max_new_tokens": 384},
    ),
)


def read_label(answer: str, labels: Sequence[str]) -> str | None:
    exact = exact_label(answer, labels)
    if exact is not None:
        return exact
    found = find_labels(answer, labels)
    return found[0] if found else None


@register
class ClassificationTask(AnswerTask):
    name: ClassVar[str] = "classification"
    answers: ClassVar[str] = "classification"
    builtin_variants: ClassVar[tuple[VariantSpec, ...]] = BUILTIN_VARIANTS
    guidable: ClassVar[bool] = True

    def example_answer(self, item: TaskItem) -> str:
        return str(item.gold)

    def parse(self, answer: str, *, item: TaskItem, labels: Sequence[str]) -> Any | None:
        return read_label(answer, labels)
