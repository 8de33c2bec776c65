"""``detection``: is the reasoning of the text fallacious (``true``) or sound (``false``)?

The parser reads the earliest of these words in the answer (a longer phrase wins at the
same place): "not fallacious", "no fallacy", "sound", "valid", "no" -> ``false``;
"fallacious", "fallacy", "yes", "flawed", "not sound", "unsound", "invalid" -> ``true``.
A JSON object with ``logic_error`` "yes" or "no" (SmartyPat's published outputs) is read
by that key alone.
Primary figure: F1 of the fallacious class (precision, recall and accuracy are reported
too).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from evaluation.benchmarks.answering import AnswerTask
from evaluation.benchmarks.base import TaskLabel, VariantSpec, answer_templates
from evaluation.benchmarks.items import TaskItem, register
from evaluation.scoring.label_answers import read_detection

FALLACIOUS, SOUND = "fallacious", "sound"

_INSTRUCTION = (
    "Decide whether the reasoning of the text is fallacious (its premises, even if true, "
    "do not support its conclusion, or it misleads by a trick) or sound."
)

_ZERO_SHOT, _FEW_SHOT = answer_templates(
    _INSTRUCTION, 'Reply with one word: "fallacious" or "sound".', examples_after=" "
)

_CHAIN_OF_THOUGHT = (
    _INSTRUCTION
    + """

Text: {text}

First reason briefly, step by step, about whether the premises support the conclusion. \
Then end with one line "Answer: fallacious" or "Answer: sound"."""
)

BUILTIN_VARIANTS: tuple[VariantSpec, ...] = (
    VariantSpec("zero-shot", "zero-shot", _ZERO_SHOT, settings={"max_new_tokens": 8}),
    VariantSpec("few-shot", "few-shot", _FEW_SHOT, shots=3, seed=0, settings={"max_new_tokens": 8}),
    VariantSpec(
        "chain-of-thought",
        "chain-of-thought",
        _CHAIN_OF_THOUGHT,
        settings={"max_new_tokens": 384},
    ),
)


@register
class DetectionTask(AnswerTask):
    name: ClassVar[str] = "detection"
    answers: ClassVar[str] = "detection"
    builtin_variants: ClassVar[tuple[VariantSpec, ...]] = BUILTIN_VARIANTS
    guidable: ClassVar[bool] = True

    def example_answer(self, item: TaskItem) -> str:
        return FALLACIOUS if item.gold else SOUND

    def allowed(self, item: TaskItem, labels: Sequence[TaskLabel]) -> tuple[str, ...]:
        return (FALLACIOUS, SOUND)

    def parse(self, answer: str, *, item: TaskItem, labels: Sequence[str]) -> Any | None:
        return read_detection(answer)
