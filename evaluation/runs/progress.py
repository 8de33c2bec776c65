"""A running run's phase and ETA, from what its runners record (plain Python, no Django).

Each runner records in the run's ``environment`` under ``"shard I"``: ``phase`` (``loading``
while it loads the model, with ``loading_since``, an ISO time; ``generating`` once loaded,
with ``load_seconds``). The run's phase is ``loading`` while any shard loads, else
``generating`` once a shard has loaded, else none (starting, or served from the cache).

The ETA is measured, not extrapolated from the run's age: the requests left times the
seconds a request takes (the run's ``generation_seconds / generated``, the batches' own
wall time; before its first batch, the same figure of an earlier run of the same model),
divided among the running shards, plus, while loading, the rest of the load (an earlier
load of the same model minus the time spent loading so far). Unknown figures give no ETA.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

LOADING = "loading"
GENERATING = "generating"


@dataclass(frozen=True)
class Progress:
    phase: str | None
    eta_seconds: float | None


def shard_records(environment: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The runners' records (``"shard I"`` entries) of a run's environment."""
    return [
        value
        for key, value in environment.items()
        if key.startswith("shard ") and isinstance(value, Mapping)
    ]


def phase_of(environment: Mapping[str, Any]) -> str | None:
    phases = {record.get("phase") for record in shard_records(environment)}
    if LOADING in phases:
        return LOADING
    return GENERATING if GENERATING in phases else None


def loading_for(environment: Mapping[str, Any], now: datetime) -> float:
    """Seconds the longest-loading shard has been loading (0 when none loads)."""
    seconds = 0.0
    for record in shard_records(environment):
        if record.get("phase") != LOADING or not record.get("loading_since"):
            continue
        try:
            since = datetime.fromisoformat(str(record["loading_since"]))
        except ValueError:
            continue
        seconds = max(seconds, (now - since).total_seconds())
    return seconds


def estimate(
    *,
    environment: Mapping[str, Any],
    remaining: int,
    generated: int,
    generation_seconds: float,
    running_shards: int,
    now: datetime,
    earlier_per_request: float | None = None,
    earlier_load: float | None = None,
) -> Progress:
    """The phase and ETA of a running run (see the module docstring)."""
    phase = phase_of(environment)
    if generated > 0 and generation_seconds > 0:
        per_request: float | None = generation_seconds / generated
    else:
        per_request = earlier_per_request
    if per_request is None:
        return Progress(phase, None)
    eta = max(remaining, 0) * per_request / max(running_shards, 1)
    if phase == LOADING:
        if earlier_load is None:
            return Progress(phase, None)
        eta += max(earlier_load - loading_for(environment, now), 0.0)
    return Progress(phase, eta)


def load_seconds_of(environment: Mapping[str, Any]) -> float | None:
    """The longest model load its runners recorded, if any."""
    loads = [
        float(record["load_seconds"])
        for record in shard_records(environment)
        if isinstance(record.get("load_seconds"), int | float)
    ]
    return max(loads) if loads else None


def before_launch(*, requests: int, per_request: float | None, load: float | None) -> float | None:
    """The time a run of ``requests`` should take on this machine, from an earlier run of
    the same model: its seconds per request and its model load (0 when it recorded none,
    a baseline or a cached model). None without an earlier run (nothing measured yet)."""
    if per_request is None:
        return None
    return max(requests, 0) * per_request + (load or 0.0)
