"""``judge-reference`` and ``judge-fidelity``: a language model rating a text (plain Python).

LLM-as-judge tasks score a *candidate* text (``TaskItem.candidate``: the judged run's
output for the item, or the item's own candidate) on a fixed integer scale:

- ``judge-reference`` (FLUB's reference-guided rubric): an impartial judge reads the
  question (the item's text), the reference answer (``TaskItem.reference``: the gold of
  the free-text field) and the assistant's answer, and rates the answer 1 to 10, ending
  with ``[[n]]``;
- ``judge-fidelity`` (SmartyPat): how faithfully the candidate renders the original
  (the reference when the item has one, else the item's text), 0 (unrelated) to 3
  (faithful), ending with ``Score: n`` (``[[n]]`` is read too).

Repeats: a judgement is asked ``k`` times (``variant.settings["repeats"]``, default 1;
at temperature 0), as ``k`` requests per item with ``unit_index`` 0..k-1. Every request
must have its own generation-cache key, or the cache would answer repeats 2..k with the
first output; the key hashes the prompt, so repeat ``i`` carries a visible line
"Judgement i of k (an independent rating)." through the ``{repeat}`` placeholder (a
template without it gets the line prepended). With ``k == 1`` the placeholder is empty
and the prompt is the plain rubric. (A per-request seed would be cleaner, but a request's
key depends only on its prompt and the run's decoding parameters.)

``parse`` reads the last ``[[n]]`` (then ``Score: n`` / ``Rating: n``) of the answer,
``<think>`` blocks removed; a number outside the scale is unparseable (``None``).
``score`` averages each item's parseable repeats (``per_item``: document id -> mean, or
``None`` when none parsed), and the primary figure ``judge_mean`` is the mean of those
means; every unparseable repeat is counted. Policy ``wrong`` leaves unparseable repeats
out of the means (a rating cannot be "wrong"); ``random`` replaces each by a seeded
random score of the scale.
"""

from __future__ import annotations

import random
import re
import statistics
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any, ClassVar

from evaluation.benchmarks.base import (
    TaskError,
    TaskLabel,
    UnitPrompt,
    VariantSpec,
    check_template,
    strip_reasoning,
)
from evaluation.benchmarks.items import TaskItem, register

MAX_REPEATS = 20
JUDGE_KINDS = ("zero-shot", "guided", "chain-of-thought")

_THINK_RE = re.compile(r"<think>.*?(?:</think>|$)", re.DOTALL | re.IGNORECASE)
_NUMBER = r"(-?\d+(?:\.\d+)?)"
_BRACKETS_RE = re.compile(r"\[\[\s*" + _NUMBER + r"\s*(?:/\s*\d+\s*)?\]\]")
_LABELLED_RE = re.compile(r"\b(?:score|rating)\s*[:=]\s*\**\s*" + _NUMBER, re.IGNORECASE)

_REFERENCE_RUBRIC = """{repeat}You are asked to act as a fair and impartial judge of an answer \
written by an AI assistant. You are given a question, a reference answer written by a \
person, and the assistant's answer. Judge how correct and helpful the assistant's answer \
is, using the reference answer as the standard: does it identify the same problem in the \
reasoning, and explain it as clearly? Point out mistakes of the assistant's answer by \
comparing it with the reference. Do not favour long answers, and do not let the order or \
style of the texts sway you; stay objective.

After a short explanation, give your rating as a whole number from 1 (useless or wrong) \
to 10 (as good as the reference), written exactly in this form: [[rating]], for example \
[[6]].

[Question]
{text}

[Reference answer]
{reference}

[The assistant's answer]
{candidate}

[Your judgement]"""

_FIDELITY_RUBRIC = """{repeat}Compare a rewritten text with the original it was written \
from, and rate how faithfully the rewritten text keeps the original's content and \
reasoning (including any flaw in that reasoning), on this scale:
0 - unrelated: the rewritten text has nothing to do with the original;
1 - loosely related: same topic, but the argument or its flaw is lost or changed;
2 - mostly faithful: the argument is kept, with a detail missing, added or distorted;
3 - faithful: the same content and reasoning, only worded differently.

[Original]
{original}

[Rewritten text]
{candidate}

Answer with one line of the form "Score: n" (n from 0 to 3)."""

_FIDELITY_RUBRIC_COT = _FIDELITY_RUBRIC.replace(
    'Answer with one line of the form "Score: n" (n from 0 to 3).',
    "First compare the two texts briefly, step by step. Then end with one line of the form "
    '"Score: n" (n from 0 to 3).',
)


def repeat_line(index: int, repeats: int) -> str:
    """What ``{repeat}`` becomes for repeat ``index`` (0-based) of ``repeats``."""
    return f"Judgement {index + 1} of {repeats} (an independent rating).\n\n" if repeats > 1 else ""


def repeats_of(variant: VariantSpec) -> int:
    """``variant.settings["repeats"]`` (default 1); ``TaskError`` when not 1..MAX_REPEATS."""
    value = variant.settings.get("repeats", 1)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_REPEATS:
        raise TaskError(f"settings.repeats: a whole number from 1 to {MAX_REPEATS}, not {value!r}")
    return value


def _number(text: str) -> float | int:
    value = float(text)
    return int(value) if value.is_integer() else value


class JudgeTask:
    """A rubric on an integer scale ``low..high``; subclasses set the scale and wording."""

    name: ClassVar[str]
    answers: ClassVar[str] = "judge"
    low: ClassVar[int]
    high: ClassVar[int]
    answer_format: ClassVar[str]  # how the random baseline's outputs look ("[[{n}]]")
    placeholders: ClassVar[frozenset[str]] = frozenset(
        {"text", "candidate", "reference", "original", "repeat"}
    )
    required: ClassVar[tuple[str, ...]] = ("candidate",)
    builtin_variants: ClassVar[tuple[VariantSpec, ...]] = ()

    def check(self, variant: VariantSpec) -> None:
        """``TaskError`` for a variant this task cannot run."""
        check_template(variant.template, self.placeholders, self.required)
        if variant.kind not in JUDGE_KINDS:
            raise TaskError(f"kind: a judge is {', '.join(JUDGE_KINDS)}, not {variant.kind!r}")
        repeats_of(variant)

    def scale(self) -> tuple[int, ...]:
        return tuple(range(self.low, self.high + 1))

    def original(self, item: TaskItem) -> str:
        return item.reference or item.text

    def prompts(
        self,
        items: Sequence[TaskItem],
        *,
        labels: Sequence[TaskLabel] = (),
        variant: VariantSpec,
        examples: Sequence[TaskItem] = (),
    ) -> Iterator[UnitPrompt]:
        """``k`` requests per item (``unit_index`` 0..k-1), each prompt distinct."""
        self.check(variant)
        repeats = repeats_of(variant)
        template = variant.template
        if repeats > 1 and "{repeat}" not in template:
            template = "{repeat}" + template
        answers = tuple(self.answer_format.format(n=n) for n in self.scale())
        for item in items:
            values = {
                "text": item.text,
                "candidate": item.candidate,
                "reference": item.reference,
                "original": self.original(item),
            }
            for index in range(repeats):
                yield UnitPrompt(
                    document_id=item.id,
                    unit_index=index,
                    unit_text=item.candidate,
                    prompt=template.format_map({**values, "repeat": repeat_line(index, repeats)}),
                    labels=answers,
                    guided=variant.kind == "guided",
                )

    def answer(self, variant: VariantSpec, output: str) -> str:
        """The output without ``<think>`` blocks (chain of thought: after "Answer:" too)."""
        if variant.kind == "chain-of-thought":
            return strip_reasoning(output)
        return _THINK_RE.sub("", output).strip()

    def parse(
        self, answer: str, *, item: TaskItem | None = None, labels: Sequence[str] = ()
    ) -> int | float | None:
        """The rating (last ``[[n]]``, else last ``Score: n``), ``None`` when there is none
        or it is outside ``low..high``."""
        matches = _BRACKETS_RE.findall(answer) or _LABELLED_RE.findall(answer)
        if not matches:
            stripped = answer.strip().strip("*.").strip()
            if not re.fullmatch(_NUMBER, stripped):
                return None
            matches = [stripped]
        value = _number(matches[-1])
        return value if self.low <= value <= self.high else None

    def score(
        self,
        items: Sequence[TaskItem],
        predictions: Sequence[Any],
        *,
        labels: Sequence[str] = (),
        policy: str = "wrong",
        seed: int = 0,
        ranks: int = 3,
    ) -> dict[str, Any]:
        """The report (see the module docstring). ``predictions[i]`` is item ``i``'s list of
        parsed repeats in ``unit_index`` order, or a single parsed value."""
        if len(predictions) != len(items):
            raise TaskError(
                f"predictions: {len(predictions)} for {len(items)} items (one list per item)"
            )
        per_item: dict[str, float | None] = {}
        distribution: Counter[int | float] = Counter()
        unparseable = judgements = 0
        spreads: list[float] = []
        for item, predicted in zip(items, predictions, strict=True):
            repeats = list(predicted) if isinstance(predicted, list | tuple) else [predicted]
            values: list[float] = []
            for index, value in enumerate(repeats):
                judgements += 1
                if value is None or not self.low <= value <= self.high:
                    unparseable += 1
                    if policy != "random":
                        continue
                    value = random.Random(f"{seed}:{item.id}:{index}").choice(self.scale())
                values.append(value)
                distribution[value] += 1
            per_item[str(item.id)] = statistics.fmean(values) if values else None
            if len(values) > 1:
                spreads.append(statistics.pstdev(values))
        means = [value for value in per_item.values() if value is not None]
        mean = statistics.fmean(means) if means else None
        span = self.high - self.low
        return {
            "task": self.name,
            "kind": self.answers,
            "primary": {"name": "judge_mean", "value": mean},
            "metrics": {
                "judge_mean": mean,
                "judge_mean_normalised": (mean - self.low) / span if mean is not None else None,
                "repeat_sd": statistics.fmean(spreads) if spreads else None,
            },
            "scale": {"min": self.low, "max": self.high},
            "per_item": per_item,
            "distribution": {str(k): distribution[k] for k in sorted(distribution)},
            "items": len(items),
            "scored": len(means),
            "judgements": judgements,
            "unparseable": {"count": unparseable, "policy": policy},
        }


@register
class ReferenceJudge(JudgeTask):
    name: ClassVar[str] = "judge-reference"
    low: ClassVar[int] = 1
    high: ClassVar[int] = 10
    answer_format: ClassVar[str] = "[[{n}]]"
    required: ClassVar[tuple[str, ...]] = ("candidate", "reference")


@register
class FidelityJudge(JudgeTask):
    name: ClassVar[str] = "judge-fidelity"
    low: ClassVar[int] = 0
    high: ClassVar[int] = 3
    answer_format: ClassVar[str] = "Score: {n}"


ReferenceJudge.builtin_variants = (
    VariantSpec(
        "reference-guided",
        "zero-shot",
        _REFERENCE_RUBRIC,
        parser="strict",
        settings={"temperature": 0.0, "max_new_tokens": 512, "repeats": 1},
    ),
)
FidelityJudge.builtin_variants = (
    VariantSpec(
        "fidelity",
        "zero-shot",
        _FIDELITY_RUBRIC,
        parser="strict",
        settings={"temperature": 0.0, "max_new_tokens": 16, "repeats": 3},
    ),
    VariantSpec(
        "fidelity-reasoned",
        "chain-of-thought",
        _FIDELITY_RUBRIC_COT,
        parser="strict",
        settings={"temperature": 0.0, "max_new_tokens": 384, "repeats": 3},
    ),
)

#: The stored variants a fresh installation starts with: (task name, spec).
BUILTIN_VARIANTS: tuple[tuple[str, VariantSpec], ...] = tuple(
    (task.name, spec) for task in (ReferenceJudge, FidelityJudge) for spec in task.builtin_variants
)
