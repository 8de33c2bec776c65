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


def test_estimate_while_loading_counts_the_rest_of_the_load() -> None:
    args = {"remaining": 6, "generated": 0, "generation_seconds": 0.0, "running_shards": 1}
    ten_seconds_in = loading(NOW - timedelta(seconds=10))
    found = progress.estimate(
        environment=ten_seconds_in, now=NOW, earlier_per_request=2.0, earlier_load=40.0, **args
    )
    assert found == progress.Progress("loading", 30.0 + 12.0)
    late = loading(NOW - timedelta(seconds=90))  # slower than last time: the load part is 0
    assert progress.estimate(
        environment=late, now=NOW, earlier_per_request=2.0, earlier_load=40.0, **args
    ) == progress.Progress("loading", 12.0)
    # no earlier load known: loading, ETA unknown
    assert progress.estimate(
        environment=ten_seconds_in, now=NOW, earlier_per_request=2.0, **args
    ) == progress.Progress("loading", None)
    assert progress.phase_of({"shard 0": {"phase": "generating"}, **loading(NOW)}) == "loading"
    assert progress.load_seconds_of({"shard 0": {"load_seconds": 3.5}, "other": 1}) == 3.5


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
        assert run["eta_seconds"] == pytest.approx(left * per_request)
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
