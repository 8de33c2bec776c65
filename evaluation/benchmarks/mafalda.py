"""``mafalda``: the MAFALDA paper's per-sentence protocol, one request per sentence.

A prompt holds, in this order, the definitions of argument and fallacy, the whole text,
the labels of the chosen level with their definitions, then the sentence: everything but
the sentence is shared by a document's requests (and the definitions by all of them), so
an engine with prefix caching computes it once. The exact wording lives in the stored
prompt variants (``BUILTIN_VARIANTS`` seed them; an admin copies and edits them), never
in code; this module only fills the placeholders:

- ``{text}``: the whole document; ``{sentence}``: the unit asked about (both required);
- ``{labels}``: one line per label, "- name: definition"; ``{label_names}``: names only;
- ``{level_name}``: "fallacy type", "fallacy category" or "fallacy";
- ``{examples}``: few-shot examples (a unit of ANOTHER document and its gold answer).

Answers: the variant's parser (``evaluation.scoring.parsers``) reads ``answer(output)``,
which for chain-of-thought variants drops ``<think>`` blocks and keeps the text after the
last "Answer:". Every request lists the level's labels and "no fallacy" as ``labels``
(the guided variant's allowed outputs; the random baseline's draw).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import ClassVar

from evaluation.benchmarks.answering import label_lines
from evaluation.benchmarks.base import (
    Example,
    TaskDocument,
    TaskError,
    TaskLabel,
    UnitPrompt,
    VariantSpec,
    check_template,
    strip_reasoning,
)

NO_FALLACY_ANSWER = "no fallacy"
LEVEL_NAMES = {0: "fallacy", 1: "fallacy category", 2: "fallacy type"}

_DEFINITIONS = """Definitions:
- An argument is a group of statements in which some statements (the premises) are put \
forward as reasons to accept another statement (the conclusion). A premise or the \
conclusion may be left unstated.
- An argument is fallacious when its premises, even if true, do not actually support \
its conclusion."""

_ZERO_SHOT = (
    _DEFINITIONS
    + """

Text: "{text}"

Based on the above text, determine whether the following sentence is part of a fallacious \
argument. If it is, name the {level_name} (or several) without explaining; if it is not, \
answer "no fallacy". The possible labels are:
{labels}

Sentence: "{sentence}"

Output:"""
)

_GUIDED = (
    _DEFINITIONS
    + """

Text: "{text}"

Based on the above text, determine whether the following sentence is part of a fallacious \
argument. Answer with exactly one label from this list, or "no fallacy":
{labels}

Sentence: "{sentence}"

Label:"""
)

_FEW_SHOT = (
    _DEFINITIONS
    + """

Examples (sentences from other texts, with the expected output):
{examples}

Text: "{text}"

Based on the above text, determine whether the following sentence is part of a fallacious \
argument. If it is, name the {level_name} (or several) without explaining; if it is not, \
answer "no fallacy". The possible labels are:
{labels}

Sentence: "{sentence}"

Output:"""
)

_CHAIN_OF_THOUGHT = (
    _DEFINITIONS
    + """

Text: "{text}"

Based on the above text, determine whether the following sentence is part of a fallacious \
argument. The possible labels are:
{labels}

Sentence: "{sentence}"

First reason briefly, step by step, about the argument the sentence belongs to. Then end \
with one line "Answer: " followed by the label(s), or "Answer: no fallacy"."""
)

#: The stored variants a fresh installation starts with (a data migration creates them).
BUILTIN_VARIANTS: tuple[VariantSpec, ...] = (
    VariantSpec("zero-shot", "zero-shot", _ZERO_SHOT, parser="keyword"),
    VariantSpec("guided", "guided", _GUIDED, parser="strict"),
    VariantSpec("few-shot", "few-shot", _FEW_SHOT, parser="keyword", shots=3, seed=0),
    VariantSpec(
        "chain-of-thought",
        "chain-of-thought",
        _CHAIN_OF_THOUGHT,
        parser="keyword",
        settings={"max_new_tokens": 256},
    ),
)


def _example_lines(examples: Sequence[Example]) -> str:
    return "\n\n".join(
        f'Sentence: "{example.unit}"\nOutput: {example.answer}' for example in examples
    )


class MafaldaTask:
    name: ClassVar[str] = "mafalda"
    placeholders: ClassVar[frozenset[str]] = frozenset(
        {"text", "sentence", "labels", "label_names", "level_name", "examples"}
    )
    required: ClassVar[tuple[str, ...]] = ("text", "sentence")

    def check(self, variant: VariantSpec) -> None:
        """``TaskError`` for a template this task cannot fill."""
        check_template(variant.template, self.placeholders, self.required)
        if variant.kind == "few-shot" and variant.shots < 1:
            raise TaskError("shots: a few-shot variant needs at least one example")

    def choose_examples(
        self, pool: Sequence[Example], *, variant: VariantSpec, document_id: int
    ) -> list[Example]:
        """``variant.shots`` examples drawn (seeded by the variant's seed and the document)
        from the pool, never from the document being asked about."""
        candidates = [example for example in pool if example.document_id != document_id]
        rng = random.Random(f"{variant.seed}:{document_id}")
        return rng.sample(candidates, min(variant.shots, len(candidates)))

    def prompts(
        self,
        documents: Sequence[TaskDocument],
        *,
        labels: Sequence[TaskLabel],
        variant: VariantSpec,
        level: int = 2,
        examples: Sequence[Example] = (),
    ) -> Iterator[UnitPrompt]:
        self.check(variant)
        if level not in LEVEL_NAMES:
            raise TaskError(f"level: must be 0, 1 or 2, not {level!r}")
        answers = (*(label.name for label in labels), NO_FALLACY_ANSWER)
        shared = {
            "labels": label_lines(labels),
            "label_names": "\n".join(f"- {label.name}" for label in labels),
            "level_name": LEVEL_NAMES[level],
        }
        for document in documents:
            chosen = (
                self.choose_examples(examples, variant=variant, document_id=document.id)
                if variant.kind == "few-shot"
                else []
            )
            values = {**shared, "text": document.text, "examples": _example_lines(chosen)}
            for index, unit in enumerate(document.units):
                yield UnitPrompt(
                    document_id=document.id,
                    unit_index=index,
                    unit_text=unit,
                    prompt=variant.template.format_map({**values, "sentence": unit}),
                    labels=answers,
                    guided=variant.kind == "guided",
                )

    def answer(self, variant: VariantSpec, output: str) -> str:
        """The part of an output the parser reads."""
        return strip_reasoning(output) if variant.kind == "chain-of-thought" else output


def builtin_variant(name: str) -> VariantSpec:
    for variant in BUILTIN_VARIANTS:
        if variant.name == name:
            return variant
    raise TaskError(f"no built-in variant {name!r}")


def mafalda_labels(level: int = 2) -> list[TaskLabel]:
    """The MAFALDA preset's labels at ``level`` with their definitions (plain Python)."""
    from annotations.taxonomy_files import read_taxonomy_file

    preset = Path(__file__).resolve().parents[2] / "annotations" / "presets" / "mafalda.yaml"
    spec = read_taxonomy_file(preset)
    if level == 2:
        return [TaskLabel(type_.name, type_.definition) for type_ in spec.types()]
    if level == 1:
        return [TaskLabel(category.name, category.definition) for category in spec.categories]
    return [TaskLabel("fallacy", "")]


def prompts_from_gold_file(
    path: Path | str,
    *,
    level: int = 2,
    variant: str = "zero-shot",
    limit: int | None = None,
    every_nth_text: int = 1,
) -> list[str]:
    """The platform's per-sentence prompts for a MAFALDA JSONL file (units: the keys of
    ``sentences_with_labels``), for benchmarks; ``limit`` caps the number of prompts,
    ``every_nth_text`` keeps the first text and every n-th after it (all their sentences)."""
    if every_nth_text < 1:
        raise ValueError(f"every_nth_text must be 1 or more, not {every_nth_text}")
    documents = []
    with Path(path).open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            record = json.loads(line)
            units = tuple(json.loads(record.get("sentences_with_labels") or "{}"))
            documents.append(TaskDocument(number, record["text"], units))
    documents = documents[::every_nth_text]
    spec = builtin_variant(variant)
    prompts = []
    for unit in MafaldaTask().prompts(documents, labels=mafalda_labels(level), variant=spec):
        prompts.append(unit.prompt)
        if limit is not None and len(prompts) >= limit:
            break
    return prompts
