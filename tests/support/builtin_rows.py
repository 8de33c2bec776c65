"""Rows that data migrations seed, made again where a transactional test's flush emptied
their table (so a test does not depend on which tests ran before it)."""

from __future__ import annotations

from evaluation.benchmarks.base import VariantSpec
from evaluation.benchmarks.judges import BUILTIN_VARIANTS
from evaluation.models import PromptVariant


def builtin_variant(task: str, spec: VariantSpec) -> PromptVariant:
    """The built-in variant ``spec`` of ``task``, as the data migration stores it."""
    variant, _ = PromptVariant.objects.get_or_create(
        task=task,
        name=spec.name,
        version=1,
        defaults={
            "kind": spec.kind,
            "template": spec.template,
            "parser": spec.parser,
            "decoding": dict(spec.settings),
            "builtin": True,
        },
    )
    return variant


def builtin_judge_variant(task: str, name: str | None = None) -> PromptVariant:
    """The built-in judge variant of ``task`` (its first, or the one called ``name``), as the
    data migration stores it."""
    spec = next(s for t, s in BUILTIN_VARIANTS if t == task and name in (None, s.name))
    return builtin_variant(task, spec)


def builtin_judge_variants() -> list[PromptVariant]:
    """Every built-in judge variant."""
    return [builtin_judge_variant(task, spec.name) for task, spec in BUILTIN_VARIANTS]
