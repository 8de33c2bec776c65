"""A queued or running run's phase and ETA, from what its runners record (plain Python).

Each runner records in the run's ``environment`` under ``"shard I"``: ``phase`` (``loading``
while it loads the model, with ``loading_since``, an ISO time, and ``start_seconds``, the
runner's start-up since its shard started; ``generating`` once loaded, with ``load_seconds``
too). The run's phase is ``loading`` while any shard loads, else ``generating`` once a shard
has loaded, else none (queued, the runner starting, or served from the cache).

The ETA is measured, not extrapolated from the run's age: the work left is the requests
left times the seconds a request takes (the run's ``generation_seconds / generated``, the
batches' own wall time; before its first batch, the same figure of an earlier run of the
same model), divided among the running shards. Before the model is loaded (queued, starting,
loading) the earlier run's start-up and load (``ready_seconds_of``) are added, less the time
since the run started; once generating, the time since the last batch ended (or since the
model was loaded) is taken off the work left. So the estimate counts down between batches
and at a phase's end goes on from where it was. Unknown figures give no ETA.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
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


def _time(value: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(str(value)) if value else None
    except ValueError:
        return None


def generating_since(environment: Mapping[str, Any]) -> datetime | None:
    """When the last shard to load its model had it loaded (``loading_since`` plus
    ``load_seconds``), if a generating shard recorded both."""
    times = []
    for record in shard_records(environment):
        since, load = _time(record.get("loading_since")), record.get("load_seconds")
        if record.get("phase") == GENERATING and since and isinstance(load, int | float):
            times.append(since + timedelta(seconds=float(load)))
    return max(times) if times else None


def _seconds_since(moment: datetime | None, now: datetime) -> float:
    return max((now - moment).total_seconds(), 0.0) if moment is not None else 0.0


def estimate(
    *,
    environment: Mapping[str, Any],
    remaining: int,
    generated: int,
    generation_seconds: float,
    running_shards: int,
    now: datetime,
    started_at: datetime | None = None,
    last_batch_at: datetime | None = None,
    earlier_per_request: float | None = None,
    earlier_ready: float | None = None,
    batch_size: int | None = None,
) -> Progress:
    """The phase and ETA of a queued or running run (see the module docstring):
    ``started_at`` is when a worker started it (None: queued), ``last_batch_at`` when its
    last generated batch was recorded, ``batch_size`` the requests a batch sends (its
    settings'; a shard's last, partial batch takes about as long as a whole one)."""
    phase = phase_of(environment)
    measured = generated > 0 and generation_seconds > 0
    per_request = generation_seconds / generated if measured else earlier_per_request
    if per_request is None:
        return Progress(phase, None)
    per_shard = max(remaining, 0) / max(running_shards, 1)
    if batch_size is not None and batch_size > 1:
        per_shard = math.ceil(per_shard / batch_size) * batch_size
    work = per_shard * per_request
    if measured or phase == GENERATING:
        since = last_batch_at if measured else generating_since(environment)
        return Progress(phase, max(work - _seconds_since(since or now, now), 0.0))
    if earlier_ready is None:
        return Progress(phase, None)
    return Progress(phase, work + max(earlier_ready - _seconds_since(started_at, now), 0.0))


def ready_seconds_of(environment: Mapping[str, Any]) -> float | None:
    """The longest time a runner took from its shard's start to its model loaded (its
    ``start_seconds`` plus its ``load_seconds``), if any recorded a load."""
    times = [
        float(record.get("start_seconds") or 0.0) + float(record["load_seconds"])
        for record in shard_records(environment)
        if isinstance(record.get("load_seconds"), int | float)
    ]
    return max(times) if times else None


def load_seconds_of(environment: Mapping[str, Any]) -> float | None:
    """The longest model load its runners recorded, if any."""
    loads = [
        float(record["load_seconds"])
        for record in shard_records(environment)
        if isinstance(record.get("load_seconds"), int | float)
    ]
    return max(loads) if loads else None


def before_launch(
    *,
    requests: int,
    per_request: float | None,
    ready: float | None,
    batch_size: int | None = None,
) -> float | None:
    """The time a run of ``requests`` should take on this machine, from an earlier run of
    the same model: its seconds per request and its start-up and model load
    (``ready_seconds_of``; 0 when it recorded none, a baseline or a cached model): the ETA
    ``estimate`` gives the run while it is queued. None without an earlier run."""
    return estimate(
        environment={},
        remaining=requests,
        generated=0,
        generation_seconds=0.0,
        running_shards=1,
        now=datetime.now(UTC),
        earlier_per_request=per_request,
        earlier_ready=ready or 0.0,
        batch_size=batch_size,
    ).eta_seconds
