"""What the six answer tasks share: placeholders, prompt building, label matching.

Plain Python. Each answer task (``multiple_choice``, ``classification``, ``ranked``,
``detection``, ``segmentation``, ``free_text``) subclasses ``AnswerTask`` and supplies its
parser (``parse``), how a gold answer is written as an expected output
(``example_answer``), the outputs a request allows (``allowed``) and its built-in
variants; scoring is ``evaluation.scoring.items.score_answers`` for every kind.

Placeholders every answer template may use:

- ``{text}`` (required): the item's text;
- ``{options}``: one line per option, "A. ..." (multiple choice);
- ``{labels}``: one line per label, "- name: definition"; ``{label_names}``: names only;
- ``{examples}``: the few-shot examples (other items with their expected output);
- ``{candidate}``: the item's candidate text, when it has one.

Chain-of-thought variants: ``answer`` keeps what follows the last "Answer:" (and drops
``<think>`` blocks) before the parser reads it; other variants only drop ``<think>``
blocks.
"""

from __future__ import annotations

import re
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
from evaluation.benchmarks.items import UNPARSEABLE_POLICIES, TaskItem, choose_examples

ANSWER_PLACEHOLDERS = frozenset(
    {"text", "options", "labels", "label_names", "examples", "candidate"}
)
NO_FALLACY_WORDS = ("no fallacy", "no fallacies", "none", "sound", "not fallacious")
_THINK_RE = re.compile(r"<think>.*?(?:</think>|$)", re.DOTALL | re.IGNORECASE)


def label_lines(labels: Sequence[TaskLabel]) -> str:
    return "\n".join(
        f"- {label.name}: {label.definition}" if label.definition else f"- {label.name}"
        for label in labels
    )


def option_lines(options: dict[str, str]) -> str:
    return "\n".join(f"{key}. {value}" for key, value in options.items())


QUOTES = "\"'“”‘’「」《》*`"


def clean_answer(text: str) -> str:
    """An answer without surrounding whitespace, quotes, brackets and final punctuation."""
    return text.strip().strip(QUOTES).strip().rstrip(".。!！,，;；").strip()


def find_labels(answer: str, labels: Sequence[str]) -> list[str]:
    """The labels named in ``answer``, in order of first appearance (case-insensitive); a
    label inside a longer label found at the same place counts once (the longer one)."""
    lowered = answer.casefold()
    found: list[tuple[int, int, str]] = []
    for label in labels:
        start = lowered.find(label.casefold())
        while start != -1:
            found.append((start, -len(label), label))
            start = lowered.find(label.casefold(), start + 1)
    found.sort()
    taken: list[tuple[int, int]] = []
    ordered: list[str] = []
    for start, negative_length, label in found:
        end = start - negative_length
        if any(s <= start and end <= e for s, e in taken):
            continue  # part of a longer label already read
        taken.append((start, end))
        if label not in ordered:
            ordered.append(label)
    return ordered


def exact_label(answer: str, labels: Sequence[str]) -> str | None:
    """The label ``answer`` is, ignoring case, quotes and final punctuation."""
    wanted = clean_answer(answer).casefold()
    for label in labels:
        if label.casefold() == wanted:
            return label
    return None


def says_no_fallacy(answer: str) -> bool:
    lowered = answer.casefold()
    return any(re.search(rf"(?<![a-z]){re.escape(w)}(?![a-z])", lowered) for w in NO_FALLACY_WORDS)


class AnswerTask:
    """An ``ItemTask`` answering one kind of form field (see ``benchmarks.items``)."""

    name: ClassVar[str]
    answers: ClassVar[str]
    placeholders: ClassVar[frozenset[str]] = ANSWER_PLACEHOLDERS
    required: ClassVar[tuple[str, ...]] = ("text",)
    builtin_variants: ClassVar[tuple[VariantSpec, ...]] = ()
    #: closed answer sets can be decoded as a guided choice among ``allowed``
    guidable: ClassVar[bool] = False

    # --- what a subclass supplies -------------------------------------------------------

    def example_answer(self, item: TaskItem) -> str:
        """The expected output for an item with a gold answer (few-shot examples)."""
        raise NotImplementedError

    def allowed(self, item: TaskItem, labels: Sequence[TaskLabel]) -> tuple[str, ...]:
        """The outputs a request accepts (guided choices; the random baseline's draw)."""
        return tuple(label.name for label in labels)

    def parse(self, answer: str, *, item: TaskItem, labels: Sequence[str]) -> Any | None:
        raise NotImplementedError

    # --- shared -------------------------------------------------------------------------

    def check(self, variant: VariantSpec) -> None:
        """``TaskError`` for a variant this task cannot use."""
        check_template(variant.template, self.placeholders, self.required)
        allowed_kinds = ("zero-shot", "few-shot", "chain-of-thought") + (
            ("guided",) if self.guidable else ()
        )
        if variant.kind not in allowed_kinds:
            raise TaskError(
                f"kind: the {self.name} task takes {', '.join(allowed_kinds)} variants, "
                f"not {variant.kind!r}"
            )
        if variant.kind == "few-shot" and variant.shots < 1:
            raise TaskError("shots: a few-shot variant needs at least one example")
        if variant.unparseable not in UNPARSEABLE_POLICIES:
            raise TaskError(
                f"unparseable: must be one of {', '.join(UNPARSEABLE_POLICIES)}, "
                f"not {variant.unparseable!r}"
            )

    def example_block(self, item: TaskItem) -> str:
        block = f"Text: {item.text}"
        if item.options:
            block += f"\nOptions:\n{option_lines(item.options)}"
        return f"{block}\nAnswer: {self.example_answer(item)}"

    def prompts(
        self,
        items: Sequence[TaskItem],
        *,
        labels: Sequence[TaskLabel],
        variant: VariantSpec,
        examples: Sequence[TaskItem] = (),
    ) -> Iterator[UnitPrompt]:
        self.check(variant)
        shared = {
            "labels": label_lines(labels),
            "label_names": "\n".join(f"- {label.name}" for label in labels),
        }
        for item in items:
            chosen = (
                choose_examples(examples, shots=variant.shots, seed=variant.seed, item_id=item.id)
                if variant.kind == "few-shot"
                else []
            )
            values = {
                **shared,
                "text": item.text,
                "options": option_lines(item.options),
                "candidate": item.candidate,
                "examples": "\n\n".join(self.example_block(example) for example in chosen),
            }
            yield UnitPrompt(
                document_id=item.id,
                unit_index=0,
                unit_text=item.text,
                prompt=variant.template.format_map(values),
                labels=self.allowed(item, labels),
                guided=variant.kind == "guided",
            )

    def answer(self, variant: VariantSpec, output: str) -> str:
        """The part of an output the parser reads."""
        if variant.kind == "chain-of-thought":
            return strip_reasoning(output)
        return _THINK_RE.sub("", output).strip()

    def score(
        self,
        items: Sequence[TaskItem],
        predictions: Sequence[Any | None],
        *,
        labels: Sequence[str],
        policy: str = "wrong",
        seed: int = 0,
        ranks: int = 3,
    ) -> dict[str, Any]:
        from evaluation.scoring.items import score_answers

        report = score_answers(
            self.answers,
            [item.gold for item in items],
            list(predictions),
            labels=labels,
            options=[list(item.options) for item in items],
            policy=policy,
            seed=seed,
            references=[item.reference for item in items],
            ranks=ranks,
        )
        return {"task": self.name, **report}
