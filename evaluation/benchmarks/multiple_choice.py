"""``multiple-choice``: pick one option of the item (FLUB answer selection).

The prediction is an option key (``"B"``). The parser reads, in this order: an answer
that is just a key ("B", "(B)", "B."), a key after "answer"/"option"/"choice" ("the
answer is B"), the full text of exactly one option, then the first key standing alone
(a capital letter that is not the start of a word, e.g. not the article "A" before a
word). Primary figure: accuracy.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, ClassVar

from evaluation.benchmarks.answering import AnswerTask, clean_answer
from evaluation.benchmarks.base import TaskLabel, VariantSpec, answer_templates
from evaluation.benchmarks.items import TaskItem, register

_INSTRUCTION = (
    "Read the text and the options below. Choose the option that best explains what is "
    "wrong, tricky or funny in the text."
)

_ZERO_SHOT, _FEW_SHOT = answer_templates(
    _INSTRUCTION,
    "Reply with the letter of one option only.",
    body="Text: {text}\n\nOptions:\n{options}\n\n",
    examples_after=" ",
)

_CHAIN_OF_THOUGHT = (
    _INSTRUCTION
    + """

Text: {text}

Options:
{options}

First reason briefly, step by step, about what the text means and each option. Then end \
with one line "Answer: " followed by the letter of one option."""
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

_AFTER_WORD = re.compile(
    r"(?:answer|option|choice)\s*(?:is|:|=)?\s*[\(\[]?([A-Z])[\)\]]?(?![A-Za-z])", re.IGNORECASE
)
_ALONE = re.compile(r"(?<![A-Za-z])([A-Z])(?![A-Za-z])")


def read_option(answer: str, keys: Sequence[str], options: dict[str, str]) -> str | None:
    """The option key ``answer`` names, or ``None``."""
    keys = list(keys)
    cleaned = clean_answer(answer).strip("()[]").strip()
    if cleaned in keys:
        return cleaned
    for match in _AFTER_WORD.finditer(answer):
        if match.group(1).upper() in keys:
            return match.group(1).upper()
    containing = [key for key, text in options.items() if text and text.strip() in answer]
    if len(containing) == 1:
        return containing[0]
    for match in _ALONE.finditer(answer):
        key = match.group(1)
        rest = answer[match.end() :]
        if key == "A" and re.match(r"\s+[a-z]", rest):
            continue  # the article "A"
        if key in keys:
            return key
    return None


@register
class MultipleChoiceTask(AnswerTask):
    name: ClassVar[str] = "multiple-choice"
    answers: ClassVar[str] = "multiple-choice"
    builtin_variants: ClassVar[tuple[VariantSpec, ...]] = BUILTIN_VARIANTS
    guidable: ClassVar[bool] = True

    def example_answer(self, item: TaskItem) -> str:
        return str(item.gold)

    def allowed(self, item: TaskItem, labels: Sequence[TaskLabel]) -> tuple[str, ...]:
        return tuple(item.options)

    def parse(self, answer: str, *, item: TaskItem, labels: Sequence[str]) -> Any | None:
        keys = list(item.options) or list(labels) or ["A", "B", "C", "D"]
        return read_option(answer, keys, item.options)
