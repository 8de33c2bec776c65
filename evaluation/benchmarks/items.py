"""The item-task contract: one request per item of an item project (plain Python).

An item task answers one kind of form field (``annotations.items``: multiple-choice,
classification, ranked, detection, segmentation, free-text) or judges a text (judge
tasks). The Django side (``evaluation.items.runs``) hands it ``TaskItem`` objects and
stores what it gives back:

- ``prompts(items, labels=, variant=, examples=)`` yields one ``UnitPrompt`` per item
  (``unit_index`` 0; judge tasks repeating a judgement k times use 0..k-1);
  ``examples`` is the k-shot pool (items with their gold), never drawn from the item
  asked about (``choose_examples``);
- ``answer(variant, output)`` is the part of an output the parser reads (chain-of-thought
  reasoning removed);
- ``parse(answer, item=, labels=)`` is the prediction, with the same JSON shape as a
  human's answer to the field, or ``None`` when the output is unparseable;
- ``score(items, predictions, labels=, policy=, seed=)`` is the report (JSON): the
  ``primary`` figure, the task's other figures, and ``unparseable`` (count and the
  policy applied: ``wrong``, or ``random``: a seeded random valid answer).

The report of an item run (``RunScore.report``, profile ``items``), also produced for a
human annotator's answers (human baselines) by ``evaluation.scoring.items``::

    {"task": "multiple-choice", "field": "answer", "kind": "multiple-choice",
     "primary": {"name": "accuracy", "value": 0.41},
     "metrics": {"accuracy": 0.41, ...},           # every figure of the kind
     "per_label": {label: {"precision", "recall", "f1", "support", "predicted"}},
     "predicted_counts": {label: n}, "gold_counts": {label: n},   # label bias
     "items": 120, "scored": 118,                  # items asked / with an answer key
     "unparseable": {"count": 3, "policy": "wrong"}}

Primary figures: multiple-choice ``accuracy``; classification ``macro_f1``; ranked
``mean_s`` (mean of S = Σ ±1/i); detection ``f1`` (fallacious class); segmentation
``span_f1`` (macro exact-span F1); free-text ``bertscore_f1``; judges ``judge_mean``.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from evaluation.benchmarks.base import TaskLabel, UnitPrompt, VariantSpec

UNPARSEABLE_POLICIES = ("wrong", "random")


@dataclass(frozen=True)
class TaskItem:
    """An item as a task sees it; ``gold`` is the asked field's answer key (``None``: the
    item has none, e.g. a FLUB text without a type)."""

    id: int
    text: str
    gold: Any = None
    options: dict[str, str] = field(default_factory=dict)
    reference: str = ""  # free text: the reference answer (an explanation)
    candidate: str = ""  # judges and ratings: the text being judged
    extra: dict[str, Any] = field(default_factory=dict)  # other record fields (is_question...)


class ItemTask(Protocol):
    name: ClassVar[str]
    answers: ClassVar[str]  # the form field kind it answers ("judge" for judges)
    placeholders: ClassVar[frozenset[str]]
    required: ClassVar[tuple[str, ...]]
    builtin_variants: ClassVar[tuple[VariantSpec, ...]]

    def check(self, variant: VariantSpec) -> None: ...

    def prompts(
        self,
        items: Sequence[TaskItem],
        *,
        labels: Sequence[TaskLabel],
        variant: VariantSpec,
        examples: Sequence[TaskItem] = (),
    ) -> Iterator[UnitPrompt]: ...

    def answer(self, variant: VariantSpec, output: str) -> str: ...

    def parse(self, answer: str, *, item: TaskItem, labels: Sequence[str]) -> Any | None: ...

    def score(
        self,
        items: Sequence[TaskItem],
        predictions: Sequence[Any | None],
        *,
        labels: Sequence[str],
        policy: str = "wrong",
        seed: int = 0,
        ranks: int = 3,
    ) -> dict[str, Any]: ...


def choose_examples(
    pool: Sequence[TaskItem], *, shots: int, seed: int, item_id: int
) -> list[TaskItem]:
    """``shots`` examples with a gold answer, seeded by the variant's seed and the item,
    never the item itself."""
    candidates = [example for example in pool if example.id != item_id and example.gold is not None]
    rng = random.Random(f"{seed}:{item_id}")
    return rng.sample(candidates, min(shots, len(candidates)))


#: Item tasks by name; each task file registers its class with ``@register``.
ITEM_TASKS: dict[str, type] = {}


def register(task_class: type) -> type:
    ITEM_TASKS[task_class.name] = task_class
    return task_class
