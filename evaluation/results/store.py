"""Read a board from its stored row, or compute and store it (one row per board and query).

``board_json`` takes the board's fingerprint first, then returns the stored body when the
row carries that fingerprint; otherwise it computes the board, stores it under the
fingerprint taken *before* computing (an input changed meanwhile leaves a row that the
next read recomputes, never a stale one that looks current) and returns it. Concurrent
computations of one board end in one row (an upsert on the board's key: the last write
wins); an error of the computation (a query the board cannot answer) stores nothing. A
store deletes the scope's rows of other fingerprints (every query of a scope shares its
inputs), so a scope keeps only the queries asked since its inputs last changed.

Bodies are stored as the JSON text the API sends (DRF's renderer: the same numbers and
key order as a fresh answer), so a warm read sends the text as it is.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.utils import timezone
from rest_framework.renderers import JSONRenderer

from evaluation.models import StoredBoard


@dataclass(frozen=True)
class Board:
    """What identifies a stored board: its kind, scope, project (and gold version) and
    canonical query."""

    kind: str
    scope: int
    project: int
    gold_standard: int | None
    query: dict[str, Any]

    @property
    def query_text(self) -> str:
        return json.dumps(self.query, sort_keys=True)

    @property
    def query_key(self) -> str:
        return hashlib.sha256(self.query_text.encode()).hexdigest()


def render(body: dict[str, Any]) -> str:
    """The JSON text of a board as the API renders it."""
    return JSONRenderer().render(body).decode()


def stored_body(board: Board, fingerprint: str) -> str | None:
    """The stored body of ``board`` when it was computed from inputs with ``fingerprint``."""
    row = (
        StoredBoard.objects.filter(kind=board.kind, scope=board.scope, query=board.query_key)
        .values_list("fingerprint", "body")
        .first()
    )
    return row[1] if row is not None and row[0] == fingerprint else None


def store(board: Board, fingerprint: str, body: str, seconds: float) -> None:
    """Insert or replace the board's row (one statement: concurrent writers do not clash),
    and delete the scope's rows computed from other inputs (stale for every query)."""
    StoredBoard.objects.filter(kind=board.kind, scope=board.scope).exclude(
        fingerprint=fingerprint
    ).delete()
    row = StoredBoard(
        kind=board.kind,
        scope=board.scope,
        query=board.query_key,
        query_text=board.query_text,
        project_id=board.project,
        gold_standard_id=board.gold_standard,
        fingerprint=fingerprint,
        body=body,
        seconds=seconds,
        computed_at=timezone.now(),
    )
    StoredBoard.objects.bulk_create(
        [row],
        update_conflicts=True,
        unique_fields=["kind", "scope", "query"],
        update_fields=["query_text", "fingerprint", "body", "seconds", "computed_at"],
    )


def board_json(
    board: Board, fingerprint: Callable[[], str], compute: Callable[[], dict[str, Any]]
) -> str:
    """The board's JSON text: stored when its inputs are unchanged, else computed and
    stored (see the module docstring)."""
    current = fingerprint()
    found = stored_body(board, current)
    if found is not None:
        return found
    started = time.perf_counter()
    body = render(compute())
    store(board, current, body, time.perf_counter() - started)
    return body
