"""The MAFALDA task: prompts, variants, few-shot examples and answers (plain Python)."""

from __future__ import annotations

import sys

import pytest

from evaluation.benchmarks import (
    Example,
    TaskDocument,
    TaskError,
    TaskLabel,
    VariantSpec,
    get_task,
)
from evaluation.benchmarks.base import strip_reasoning
from evaluation.benchmarks.mafalda import BUILTIN_VARIANTS, builtin_variant

LABELS = [TaskLabel("ad hominem", "attacks the person"), TaskLabel("slippery slope", "chain")]
DOCS = [
    TaskDocument(1, "He lies. So his plan fails.", ("He lies.", "So his plan fails.")),
    TaskDocument(2, "Ban it or chaos comes.", ("Ban it or chaos comes.",)),
]


def prompts(variant: VariantSpec, examples=()):
    return list(
        get_task("mafalda").prompts(DOCS, labels=LABELS, variant=variant, examples=examples)
    )


def test_one_request_per_unit_with_the_shared_part_first() -> None:
    units = prompts(builtin_variant("zero-shot"))
    assert [(u.document_id, u.unit_index, u.unit_text) for u in units] == [
        (1, 0, "He lies."),
        (1, 1, "So his plan fails."),
        (2, 0, "Ban it or chaos comes."),
    ]
    first, second = units[0].prompt, units[1].prompt
    # definitions, then the text, then the labels with their definitions, then the sentence
    order = [
        first.index(part) for part in ("argument", DOCS[0].text, "ad hominem: attacks", 'He lies."')
    ]
    assert order == sorted(order)
    shared = first[: first.rindex("Sentence:")]
    assert second.startswith(shared)  # only the sentence differs within a document
    assert units[0].labels == ("ad hominem", "slippery slope", "no fallacy")
    assert not units[0].guided


def test_guided_requests_are_constrained_to_the_labels() -> None:
    units = prompts(builtin_variant("guided"))
    assert all(u.guided and "no fallacy" in u.labels for u in units)


def test_unknown_or_missing_placeholders_are_refused_naming_them() -> None:
    with pytest.raises(TaskError, match=r"unknown placeholder \{txt\}"):
        prompts(VariantSpec("bad", "zero-shot", "Text: {txt} Sentence: {sentence}"))
    with pytest.raises(TaskError, match=r"\{sentence\} is required"):
        prompts(VariantSpec("bad", "zero-shot", "Text: {text}"))
    with pytest.raises(TaskError, match="literal brace"):
        prompts(VariantSpec("bad", "zero-shot", "Text: {text} {sentence} {"))


def test_few_shot_examples_are_seeded_and_never_from_the_asked_document() -> None:
    pool = [
        Example(doc, "t", f"unit {doc}-{i}", "ad hominem") for doc in (1, 2, 3) for i in range(4)
    ]
    variant = VariantSpec("fs", "few-shot", "{examples}\n{text}\n{sentence}", shots=3, seed=7)
    units = prompts(variant, pool)
    for unit in units:
        shown = [line for line in unit.prompt.splitlines() if line.startswith('Sentence: "unit')]
        assert len(shown) == 3
        assert not any(f'"unit {unit.document_id}-' in line for line in shown)
    assert prompts(variant, pool) == units  # same seed, same examples
    other = VariantSpec("fs", "few-shot", variant.template, shots=3, seed=8)
    assert [u.prompt for u in prompts(other, pool)] != [u.prompt for u in units]


def test_chain_of_thought_answers_drop_the_reasoning() -> None:
    task = get_task("mafalda")
    cot = builtin_variant("chain-of-thought")
    output = "<think>maybe ad hominem? no</think>It attacks him. Answer: slippery slope"
    assert task.answer(cot, output) == "slippery slope"
    assert task.answer(builtin_variant("zero-shot"), output) == output
    assert strip_reasoning("<think>unfinished reasoning") == ""


def test_every_builtin_variant_fills() -> None:
    for variant in BUILTIN_VARIANTS:
        examples = [Example(9, "t", "u", "ad hominem")] * 3
        assert prompts(variant, examples)


def test_benchmarks_import_without_django(tmp_path) -> None:
    import subprocess

    code = (
        "import sys, evaluation.benchmarks, evaluation.backends;"
        "assert 'django' not in sys.modules and 'torch' not in sys.modules, sorted(sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_every_nth_text_of_the_gold_file_keeps_whole_texts(tmp_path) -> None:
    import json

    from evaluation.benchmarks.mafalda import prompts_from_gold_file

    gold = tmp_path / "gold.jsonl"
    records = [
        {
            "text": f"Text {n}. " + " ".join(f"S{n}-{i}." for i in range(n + 1)),
            "sentences_with_labels": json.dumps({f"S{n}-{i}.": [] for i in range(n + 1)}),
        }
        for n in range(5)
    ]
    gold.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    every_other = prompts_from_gold_file(gold, every_nth_text=2)
    assert len(every_other) == 1 + 3 + 5  # texts 0, 2 and 4, every sentence of each
    assert all("Text 1." not in p and "Text 3." not in p for p in every_other)
    assert prompts_from_gold_file(gold) == prompts_from_gold_file(gold, every_nth_text=1)
    assert len(prompts_from_gold_file(gold)) == 15
    with pytest.raises(ValueError, match="every_nth_text"):
        prompts_from_gold_file(gold, every_nth_text=0)
