"""Benchmark tasks, one file each, registered by name (plain Python, no Django).

- ``base``: the contract: ``TaskDocument`` / ``TaskLabel`` / ``Example`` / ``VariantSpec``
  in, ``UnitPrompt`` out; ``check_template`` (unknown placeholders are errors);
  ``strip_reasoning`` (chain-of-thought answers).
- ``mafalda``: the MAFALDA per-sentence protocol and its built-in prompt variants.

The package is not called ``tasks`` so that it never clashes with Celery's task modules.
"""

from __future__ import annotations

from evaluation.benchmarks.base import (
    VARIANT_KINDS,
    Example,
    TaskDocument,
    TaskError,
    TaskLabel,
    UnitPrompt,
    VariantSpec,
)
from evaluation.benchmarks.mafalda import MafaldaTask

TASKS = {MafaldaTask.name: MafaldaTask}


def get_task(name: str) -> MafaldaTask:
    if name not in TASKS:
        raise TaskError(f"unknown task {name!r}; available: {', '.join(sorted(TASKS))}")
    return TASKS[name]()


__all__ = [
    "TASKS",
    "VARIANT_KINDS",
    "Example",
    "TaskDocument",
    "TaskError",
    "TaskLabel",
    "UnitPrompt",
    "VariantSpec",
    "get_task",
]
