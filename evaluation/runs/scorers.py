"""The run scorers, keyed by task kind: how a stored run is read into gold units and
predictions, scored through the scorer interface (``evaluation.scoring.scorer``) and stored.

A ``RunScorer`` reads a run's gold and outputs and scores them under one profile
(``score``, which writes nothing) or under every profile that applies, storing one
``RunScore`` per profile in one transaction (``store``). Every entry point that scores a
run asks ``run_scorer(run)``: ``runs.services.score_and_store`` (the scoring task, imports,
the leaderboard's imported runs), ``manage.py score`` on a stored run, the score API and the
results boards, so a run's figures are the same wherever they are asked for.

Kinds (``task_kind``): ``spans`` (MAFALDA's span task; ``runs.scored.SpanRunScorer``) and
``items`` (item tasks; ``items.scorer.ItemRunScorer``), both registered when the app loads
(``evaluation.apps``), so that runs imports nothing of items. A run that cannot be scored as
it stands (a span run without a gold version) raises ``RunNotScorable``.
"""

from __future__ import annotations

from typing import Protocol

from evaluation.benchmarks import is_item_task
from evaluation.models import ModelRun, RunScore
from evaluation.scoring.scorer import Scoring

SPANS = "spans"
ITEMS = "items"


class RunNotScorable(ValueError):
    """The run's own state keeps it from being scored (the message names it for users)."""


class RunScorer(Protocol):
    def profiles(self, run: ModelRun) -> list[str]:
        """The profiles the run is scored under, as ``RunScore.profile`` stores them."""
        ...

    def score(self, run: ModelRun, *, profile: str) -> Scoring:
        """The run scored under ``profile`` (its report as ``store`` stores it); no write."""
        ...

    def store(self, run: ModelRun) -> list[RunScore]:
        """Score the run under every profile of ``profiles`` and store the reports."""
        ...


_SCORERS: dict[str, RunScorer] = {}


def task_kind(task: str) -> str:
    """``items`` for an item task (answering or judging), else ``spans``."""
    return ITEMS if is_item_task(task) else SPANS


def register_run_scorer(kind: str, scorer: RunScorer) -> None:
    _SCORERS[kind] = scorer


def run_scorer(run: ModelRun) -> RunScorer:
    """The scorer of the run's task kind (``LookupError`` when none is registered)."""
    kind = task_kind(run.task)
    if kind not in _SCORERS:
        raise LookupError(f"no scorer registered for {kind} runs (task {run.task!r})")
    return _SCORERS[kind]
