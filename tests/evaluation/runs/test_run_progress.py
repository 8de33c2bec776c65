"""A running run's phase and ETA as the run page reads them (``GET /runs/<id>/``): the
runner says it loads the model, then the ETA is the requests left times the measured
seconds per request; a later run of the same model counts the load in its ETA.

The runner works in process on a real tiny transformers model (``run_shard``, as the runner
process does); the backend is the ``transformers`` one, watched: it reads the run through
the API while the model loads and after each batch. The plain arithmetic is tested on its
own first (``evaluation.runs.progress``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, ClassVar

import pytest

from evaluation.backends import BACKENDS, GenerationRequest, GenerationResult, ModelSpec
from evaluation.backends.transformers_backend import TransformersBackend
from evaluation.models import ModelRun
from evaluation.runs import progress
from evaluation.runs.launch import launch_runs
from evaluation.runs.runner import run_shard
from evaluation.runs.services import start_shard
from tests.support.runs import RUNS, World, build_world, client_for

NOW = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def loading(since: datetime) -> dict[str, Any]:
    return {"shard 0": {"phase": "loading", "loading_since": since.isoformat()}}


def test_estimate_is_requests_left_times_measured_seconds() -> None:
    generating = {"shard 0": {"phase": "generating", "load_seconds": 30.0}}
    found = progress.estimate(
        environment=generating,
        remaining=6,
        generated=4,
        generation_seconds=10.0,
        running_shards=1,
        now=NOW,
    )
    assert found == progress.Progress("generating", 15.0)
    # two shards share what is left; an earlier run's figure never replaces a measured one
    assert progress.estimate(
        environment=generating,
        remaining=6,
        generated=4,
        generation_seconds=10.0,
        running_shards=2,
        now=NOW,
        earlier_per_request=100.0,
    ) == progress.Progress("generating", 7.5)
    # nothing measured and nothing earlier: unknown
    assert progress.estimate(
        environment={}, remaining=6, generated=0, generation_seconds=0.0, running_shards=1, now=NOW
    ) == progress.Progress(None, None)


def test_estimate_before_the_load_counts_the_rest_of_the_earlier_start_up_and_load() -> None:
    args = {"remaining": 6, "generated": 0, "generation_seconds": 0.0, "running_shards": 1}
    earlier = {"earlier_per_request": 2.0, "earlier_ready": 40.0}
    # queued: the whole start-up and load to come, the requests after them
    queued = progress.estimate(environment={}, now=NOW, **earlier, **args)
    assert queued == progress.Progress(None, 40.0 + 12.0)
    # a worker started it 5 s ago, its runner has recorded nothing yet
    started = NOW - timedelta(seconds=5)
    starting = progress.estimate(environment={}, now=NOW, started_at=started, **earlier, **args)
    assert starting == progress.Progress(None, 35.0 + 12.0)
    # the runner loads the model (since 2 s): the same count, from the same start
    two_seconds_in = loading(NOW - timedelta(seconds=2))
    found = progress.estimate(
        environment=two_seconds_in, now=NOW, started_at=started, **earlier, **args
    )
    assert found == progress.Progress("loading", 35.0 + 12.0)
    # slower than last time: the load part is 0, the requests are all left
    late = NOW - timedelta(seconds=90)
    assert progress.estimate(
        environment=loading(late), now=NOW, started_at=late, **earlier, **args
    ) == progress.Progress("loading", 12.0)
    # no earlier load known: ETA unknown
    assert progress.estimate(
        environment=loading(NOW), now=NOW, earlier_per_request=2.0, **args
    ) == progress.Progress("loading", None)
    assert progress.phase_of({"shard 0": {"phase": "generating"}, **loading(NOW)}) == "loading"
    assert progress.load_seconds_of({"shard 0": {"load_seconds": 3.5}, "other": 1}) == 3.5
    record = {
        "shard 0": {"start_seconds": 2.0, "load_seconds": 3.5},
        "shard 1": {"load_seconds": 1},
    }
    assert progress.ready_seconds_of(record) == 5.5


def test_a_last_partial_batch_counts_as_a_whole_one() -> None:
    args = {"generated": 4, "generation_seconds": 10.0, "now": NOW, "last_batch_at": NOW}
    # 6 left in batches of 4: two batches, 8 requests' time at 2.5 s
    assert progress.estimate(
        environment={}, remaining=6, running_shards=1, batch_size=4, **args
    ) == progress.Progress(None, 20.0)
    # two shards: 3 each, one batch each
    assert progress.estimate(
        environment={}, remaining=6, running_shards=2, batch_size=4, **args
    ) == progress.Progress(None, 10.0)
    # the preview's figure is the queued run's
    assert progress.before_launch(requests=6, per_request=2.5, ready=5.0, batch_size=4) == 25.0
    assert progress.before_launch(requests=6, per_request=2.5, ready=None) == 15.0
    assert progress.before_launch(requests=6, per_request=None, ready=5.0) is None


def test_estimate_counts_down_between_batches() -> None:
    args = {"remaining": 6, "running_shards": 1, "now": NOW}
    loaded_at = NOW - timedelta(seconds=3)
    generating = {
        "shard 0": {
            "phase": "generating",
            "loading_since": (loaded_at - timedelta(seconds=30)).isoformat(),
            "load_seconds": 30.0,
        }
    }
    # loaded 3 s ago, no batch yet: an earlier run's 2 s a request, less the 3 s since
    assert progress.estimate(
        environment=generating, generated=0, generation_seconds=0.0, earlier_per_request=2.0, **args
    ) == progress.Progress("generating", 9.0)
    # measured: 2.5 s a request, the last batch 4 s ago
    assert progress.estimate(
        environment=generating,
        generated=4,
        generation_seconds=10.0,
        last_batch_at=NOW - timedelta(seconds=4),
        **args,
    ) == progress.Progress("generating", 11.0)
    # longer than the estimate: 0 (finishing), never below
    assert progress.estimate(
        environment=generating,
        generated=4,
        generation_seconds=10.0,
        last_batch_at=NOW - timedelta(seconds=60),
        **args,
    ) == progress.Progress("generating", 0.0)


# --- through the API, with the runner --------------------------------------------------------


class WatchedBackend(TransformersBackend):
    """The ``transformers`` backend; reads the run through the API while the model loads
    and after each batch (the runner has recorded it by then)."""

    read: ClassVar[Any] = None
    seen: ClassVar[list[tuple[str, dict[str, Any]]]] = []

    def load(self) -> None:
        self.seen.append(("loading", self.read()))
        super().load()

    def generate(self, requests: Sequence[GenerationRequest]) -> Iterator[list[GenerationResult]]:
        for batch in super().generate(requests):
            yield batch
            self.seen.append(("batch", self.read()))


@pytest.fixture
def world(tmp_path: Path) -> World:
    return build_world(tmp_path)


def run_watched(world: World, model: Path, seed: int) -> list[tuple[str, dict[str, Any]]]:
    [run] = launch_runs(
        project=world.project,
        gold_standard=world.gold,
        models=[ModelSpec("watched", str(model), {"batch_size": 1})],
        variants=[world.zero_shot],
        params={"max_new_tokens": 4, "seed": seed},
        enqueue=False,
    )
    client = client_for(world.admin)
    WatchedBackend.read = staticmethod(lambda: client.get(f"{RUNS}{run.pk}/").json())
    WatchedBackend.seen = []
    assert start_shard(run_id=run.pk, index=0).go
    assert run_shard(run.pk, 0, log=lambda line: None).generated == 3
    return WatchedBackend.seen


@pytest.mark.django_db
def test_the_run_says_it_loads_the_model_then_counts_down_from_measured_time(
    world: World, tiny_model_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(BACKENDS, "watched", f"{__name__}:WatchedBackend")
    seen = run_watched(world, tiny_model_dir, seed=1)
    (when, during_load), *batches = seen
    assert when == "loading" and during_load["status"] == "running"
    assert during_load["phase"] == "loading" and during_load["done"] == 0
    assert during_load["eta_seconds"] is None  # the first run of this model: no load known
    assert [when for when, _ in batches] == ["batch"] * 3
    for _, run in batches:
        assert run["phase"] == "generating"
        per_request = run["generation_seconds"] / run["generated"]
        left = run["total"] - run["done"]
        # counted from the batch's end: the time since then (the read is right after it) is off
        assert left * per_request - 1 <= run["eta_seconds"] <= left * per_request
    assert batches[-1][1]["eta_seconds"] == 0
    first = ModelRun.objects.get(pk=during_load["id"])
    load = first.environment["shard 0"]["load_seconds"]
    assert load > 0 and first.environment["shard 0"]["phase"] == "generating"

    # the next run of this model knows the load and the seconds per request beforehand
    (_, next_load), *_ = run_watched(world, tiny_model_dir, seed=2)
    assert next_load["phase"] == "loading"
    per_request = first.generation_seconds / first.generated
    assert 0 < next_load["eta_seconds"] <= load + next_load["total"] * per_request
    assert next_load["eta_seconds"] >= next_load["total"] * per_request
