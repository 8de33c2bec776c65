"""``ranked``: the fallacy types of a text, most likely first (SmartyPat's ranked types).

The prediction is a list of labels, best first; ``[]`` means "no fallacy". The parser
follows the label normalisation rules of ``evaluation.scoring.label_answers`` (JSON lists
and SmartyPat's output objects; pieces split at ``,`` ``;`` ``>`` new lines and list
numbers; case, quotes, numbering and underscores ignored; each label once, in order). An
answer naming no label but saying "no fallacy" (or "none", "sound", "not fallacious") is
``[]``; an answer with neither is unparseable. Pieces naming no label are counted in the
report (``unreadable_labels``).
Primary figure: mean S (``evaluation.scoring.items``: S = Σ ±1/i, "no fallacy" counted
as a label of its own).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from evaluation.benchmarks.answering import AnswerTask
from evaluation.benchmarks.base import TaskLabel, VariantSpec, answer_templates
from evaluation.benchmarks.items import TaskItem, register
from evaluation.scoring.label_answers import LabelReader

NO_FALLACY = "no fallacy"

_INSTRUCTION = (
    "Which fallacies does the reasoning of the text commit? The possible fallacy types "
    "are:\n{labels}"
)
_REPLY = (
    "Reply with up to three types from the list, the most likely first, separated by "
    'commas. If the reasoning is sound, reply "no fallacy".'
)

_ZERO_SHOT, _FEW_SHOT = answer_templates(_INSTRUCTION, _REPLY)

_CHAIN_OF_THOUGHT = (
    _INSTRUCTION
    + """

Text: {text}

First reason briefly, step by step, about whether the premises support the conclusion. \
Then end with one line "Answer: " followed by up to three types from the list, the most \
likely first, separated by commas, or "Answer: no fallacy"."""
)

BUILTIN_VARIANTS: tuple[VariantSpec, ...] = (
    VariantSpec("zero-shot", "zero-shot", _ZERO_SHOT, settings={"max_new_tokens": 48}),
    VariantSpec(
        "few-shot", "few-shot", _FEW_SHOT, shots=3, seed=0, settings={"max_new_tokens": 48}
    ),
    VariantSpec(
        "chain-of-thought",
        "chain-of-thought",
        _CHAIN_OF_THOUGHT,
        settings={"max_new_tokens": 384},
    ),
)


def read_ranked(answer: str, labels: Sequence[str]) -> list[str] | None:
    """The ranking an answer gives, by the rules of ``evaluation.scoring.label_answers``."""
    return LabelReader(labels).read(answer).prediction


@register
class RankedTask(AnswerTask):
    name: ClassVar[str] = "ranked"
    answers: ClassVar[str] = "ranked"
    builtin_variants: ClassVar[tuple[VariantSpec, ...]] = BUILTIN_VARIANTS

    def example_answer(self, item: TaskItem) -> str:
        return ", ".join(item.gold) if item.gold else NO_FALLACY

    def allowed(self, item: TaskItem, labels: Sequence[TaskLabel]) -> tuple[str, ...]:
        return (*(label.name for label in labels), NO_FALLACY)

    def parse(self, answer: str, *, item: TaskItem, labels: Sequence[str]) -> Any | None:
        return read_ranked(answer, labels)
