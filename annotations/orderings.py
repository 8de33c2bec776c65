"""Orders that another app decides, registered in its ``AppConfig.ready()`` (the annotation
app imports no other app; the evaluation app registers both):

- the annotators' queue: project order, unless a rule says the project puts the documents
  where the suggesting runs disagree most first (``disagreement_first``);
- the adjudication queue: highest disagreement first (``adjudication_order``: the state of
  the agreement figures and each compared document's disagreement, 0 to 1); without a
  provider, project order;
- where the annotators' queue order is stored (``queue_settings``: a model with a ``project``
  key and an ``ordering`` column, one row per project), which the project page reads in
  its one query; without one, no project has an order stored.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Rule = Callable[[Any], bool]  # a project, or its id -> disagreement first?
# a project -> (its agreement figures: "done", "computing" or "failed"; document id -> key)
AdjudicationOrder = Callable[[Any], tuple[str, dict[int, float | None]]]

_rules: list[Rule] = []
_adjudication: list[AdjudicationOrder] = []


def register_disagreement_first(rule: Rule) -> None:
    if rule not in _rules:
        _rules.append(rule)


def disagreement_first(project: Any) -> bool:
    return any(rule(project) for rule in _rules)


def register_adjudication_order(order: AdjudicationOrder) -> None:
    _adjudication[:] = [order]


def adjudication_order(project: Any) -> tuple[str, dict[int, float | None]]:
    """The agreement figures' state and the documents' disagreement (highest first; a
    document without one comes after those with one)."""
    if not _adjudication:
        return "done", {}
    return _adjudication[0](project)


_queue_settings: list[type[Any]] = []


def register_queue_settings(model: type[Any]) -> None:
    _queue_settings[:] = [model]


def queue_settings() -> type[Any] | None:
    """The model that stores each project's queue order, if an app registered one."""
    return _queue_settings[0] if _queue_settings else None
