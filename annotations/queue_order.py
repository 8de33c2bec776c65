"""The order of an annotator's queue: project order, unless a rule registered by another app
says the project puts the documents where the suggesting runs disagree most first.

The annotation app imports no other app: the evaluation app registers its rule (the
project's suggestion settings) in its ``AppConfig.ready()``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Rule = Callable[[Any], bool]  # a project, or its id -> disagreement first?

_rules: list[Rule] = []


def register_disagreement_first(rule: Rule) -> None:
    if rule not in _rules:
        _rules.append(rule)


def disagreement_first(project: Any) -> bool:
    return any(rule(project) for rule in _rules)
