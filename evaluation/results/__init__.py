"""Stored results: the Results tab of an item project and a gold version's leaderboard,
served from a stored copy while their inputs are unchanged.

Computing a board (``items.leaderboard.item_leaderboard``, ``runs.leaderboard.leaderboard``:
paired tests, annotators scored, label bias…) takes seconds on a large project; a stored
board (``StoredBoard``) is keyed by its kind, scope (project or gold version) and query
(profile, subset, compared pair) and carries the fingerprint of its inputs
(``fingerprint``: a few aggregate queries). A read takes the fingerprint and sends the
stored body when it matches, else computes, stores and sends the new one (``store``).
The body does not depend on who asks: the views check that the user may see the project,
then every reviewer or admin reads the same board.

- ``item_results_json(project=, profile=, subset=, pair=)`` and
  ``gold_results_json(gold_standard=, profile=, pair=)``: the board's JSON text (errors of
  the query raised as the boards raise them: ``QueryError``, ``CompareError``…);
  ``board_of(text)`` the body as a dict (for the CSV and LaTeX exports);
- ``warm_run_boards(run_id)``: computes the default boards a run is shown on (its item
  project's results; its gold version's leaderboard under each stored profile), queued by
  the scoring task once a run is scored (``queued.warm_results``). Best-effort: a
  failure is logged, never raised.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Sequence
from typing import Any

from django.db import transaction
from fallacy_platform import dispatch

from annotations.models import GoldStandard, Project
from evaluation import queued
from evaluation.benchmarks import is_item_task
from evaluation.items.leaderboard import item_leaderboard
from evaluation.models import ModelRun, RunScore, StoredBoard
from evaluation.results.fingerprint import gold_inputs, item_inputs
from evaluation.results.store import Board, board_json
from evaluation.runs.leaderboard import SPAN_PROFILE, leaderboard

__all__ = [
    "board_of",
    "gold_results_json",
    "item_results_json",
    "warm_after_commit",
    "warm_run_boards",
]

logger = logging.getLogger(__name__)


def board_of(text: str) -> dict[str, Any]:
    return json.loads(text)


def item_results_json(
    *,
    project: Project,
    profile: str | None = None,
    subset: str | None = None,
    pair: tuple[str, str] | None = None,
) -> str:
    """The JSON text of ``item_leaderboard`` for this query, stored or computed."""
    query = {"profile": profile, "subset": subset, "compare": list(pair) if pair else None}
    board = Board(StoredBoard.Kind.ITEMS, project.pk, project.pk, None, query)
    return board_json(
        board,
        lambda: item_inputs(project),
        lambda: item_leaderboard(project=project, profile=profile, subset=subset, pair=pair),
    )


def gold_results_json(
    *,
    gold_standard: GoldStandard,
    profile: str = SPAN_PROFILE,
    pair: Sequence[str] | None = None,
) -> str:
    """The JSON text of ``leaderboard`` for this query, stored or computed."""
    gold = gold_standard
    query = {"profile": profile, "compare": list(pair) if pair else None}
    board = Board(StoredBoard.Kind.GOLD, gold.pk, gold.project_id, gold.pk, query)
    return board_json(
        board,
        lambda: gold_inputs(gold),
        lambda: leaderboard(gold_standard=gold, profile=profile, pair=pair),
    )


def _warm(run: ModelRun) -> None:
    if is_item_task(run.task) and run.project.kind == "items":
        item_results_json(project=run.project)
    gold = run.gold_standard
    if gold is None:
        return
    stored = set(RunScore.objects.filter(gold_standard=gold).values_list("profile", flat=True))
    for profile in [SPAN_PROFILE, *sorted(stored - {SPAN_PROFILE})]:
        # twice: the first computation may score imported runs, which moves the fingerprint
        for _ in range(2):
            gold_results_json(gold_standard=gold, profile=profile)


def warm_run_boards(run_id: int) -> None:
    """Compute (and store) the default boards that show this run; never raises."""
    run = (
        ModelRun.objects.select_related("project__taxonomy", "gold_standard__project__taxonomy")
        .filter(pk=run_id)
        .first()
    )
    if run is None:
        return
    # within a caller's transaction, a savepoint: a database error leaves it usable
    inside = transaction.get_connection().in_atomic_block
    try:
        with transaction.atomic() if inside else contextlib.nullcontext():
            _warm(run)
    except Exception:
        logger.exception("run %s: warming its result boards failed", run_id)


def warm_after_commit(run_id: int) -> None:
    """Queue ``warm_run_boards`` once the current transaction commits (best-effort: a
    refusing queue is logged)."""

    def queue() -> None:
        try:
            dispatch.send(queued.warm_results.s(run_id))
        except Exception:
            logger.warning("run %s: the result boards could not be warmed", run_id)

    transaction.on_commit(queue)
