"""``segmentation``: the fallacious passages of the text with their labels (ArgBench-style).

The model writes one line per passage, "Label: passage copied from the text"; the
parser finds each passage in the item's text (as written, quotes dropped, then without
its final punctuation; exact, then ignoring case; the first occurrence not already taken)
and gives ``[[start, end, label], ...]`` in text order. A line whose label is not in the
set, or whose passage is not in the text, is skipped. "none" / "no fallacy" with no
readable line is ``[]``; an answer with neither is unparseable. Primary figure: exact-span
F1, macro over labels.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, ClassVar

from evaluation.benchmarks.answering import (
    QUOTES,
    AnswerTask,
    clean_answer,
    exact_label,
    says_no_fallacy,
)
from evaluation.benchmarks.base import TaskLabel, VariantSpec, answer_templates
from evaluation.benchmarks.items import TaskItem, register

_INSTRUCTION = (
    "Find every passage of the text that commits a fallacy and name its type. The "
    "possible types are:\n{labels}"
)
_REPLY = (
    "Write one line per passage: the type, a colon, then the passage copied exactly from "
    'the text ("type: passage"). If there is none, reply "none".'
)

_ZERO_SHOT, _FEW_SHOT = answer_templates(_INSTRUCTION, _REPLY)

_CHAIN_OF_THOUGHT = (
    _INSTRUCTION
    + f"""

Text: {{text}}

First reason briefly, step by step, about the argument of the text. Then write a line \
"Answer:" followed by the passages. {_REPLY}"""
)

BUILTIN_VARIANTS: tuple[VariantSpec, ...] = (
    VariantSpec("zero-shot", "zero-shot", _ZERO_SHOT, settings={"max_new_tokens": 160}),
    VariantSpec(
        "few-shot", "few-shot", _FEW_SHOT, shots=3, seed=0, settings={"max_new_tokens": 160}
    ),
    VariantSpec(
        "chain-of-thought",
        "chain-of-thought",
        _CHAIN_OF_THOUGHT,
        settings={"max_new_tokens": 512},
    ),
)

_LINE = re.compile(r"^\s*(?:[-*•]|\d+[.)])?\s*(.+?)\s*[:：]\s*(.+?)\s*$")


def _locate(text: str, passage: str, taken: list[tuple[int, int]]) -> tuple[int, int] | None:
    for haystack, needle in ((text, passage), (text.casefold(), passage.casefold())):
        start = haystack.find(needle)
        while start != -1:
            end = start + len(needle)
            if not any(s < end and start < e for s, e in taken):
                return start, end
            start = haystack.find(needle, start + 1)
    return None


def read_segments(answer: str, text: str, labels: Sequence[str]) -> list[list] | None:
    segments: list[list] = []
    taken: list[tuple[int, int]] = []
    for line in answer.splitlines():
        match = _LINE.match(line)
        if not match:
            continue
        label = exact_label(match.group(1), labels)
        if label is None:
            continue
        # the passage as written (quotes dropped), else without its final punctuation
        written = match.group(2).strip().strip(QUOTES).strip()
        place = None
        for passage in dict.fromkeys((written, clean_answer(written))):
            if passage:
                place = place or _locate(text, passage, taken)
        if place is None:
            continue
        taken.append(place)
        segments.append([place[0], place[1], label])
    if segments:
        return sorted(segments)
    return [] if says_no_fallacy(answer) else None


@register
class SegmentationTask(AnswerTask):
    name: ClassVar[str] = "segmentation"
    answers: ClassVar[str] = "segmentation"
    builtin_variants: ClassVar[tuple[VariantSpec, ...]] = BUILTIN_VARIANTS

    def example_answer(self, item: TaskItem) -> str:
        lines = [f"{label}: {item.text[start:end]}" for start, end, label in item.gold or []]
        return "\n".join(lines) if lines else "none"

    def allowed(self, item: TaskItem, labels: Sequence[TaskLabel]) -> tuple[str, ...]:
        return (*(label.name for label in labels), "none")

    def parse(self, answer: str, *, item: TaskItem, labels: Sequence[str]) -> Any | None:
        return read_segments(answer, item.text, labels)
