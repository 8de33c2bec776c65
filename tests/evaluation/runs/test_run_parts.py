"""A run is cut into parts that workers take as they free up, on the database alone (the
worker processes are in ``test_shard_pulling.py``): how many parts a launch makes, which
requests each holds, that a Celery worker's pool processes leave a run's parts to the
runner that worker already has on it, and that a failed runner does not leave a runner to
start for every part still queued."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from evaluation.backends import get_backend
from evaluation.models import ModelRun, RunOutput, RunShard
from evaluation.runs.launch import MAX_SHARDS, LaunchError, part_count
from evaluation.runs.runner import run_shard, shard_range
from evaluation.runs.services import claim_next_shard, finish_worker_shards, start_shard
from tests.support.runs import World, build_world, launched

pytestmark = pytest.mark.django_db
NODE, OTHER_NODE = "celery@gpu-1:100", "celery@gpu-2:200"


@pytest.fixture
def world(tmp_path: Path) -> World:
    return build_world(tmp_path)


def statuses(run: ModelRun) -> list[str]:
    return list(run.run_shards.order_by("index").values_list("status", flat=True))


def test_a_launch_that_names_no_shards_cuts_the_run_into_parts_of_the_backend_s_size(
    world: World, settings
) -> None:
    assert launched(world).total == 3  # three sentences
    assert launched(world).shards == 1  # within one part of the random backend's size
    settings.RUN_CHUNK_REQUESTS = 2
    run = launched(world)
    assert run.shards == 2 == run.run_shards.count()
    settings.RUN_CHUNK_REQUESTS = 1
    assert launched(world).shards == 3
    assert launched(world, shards=2).shards == 2  # a number the launch names wins
    with pytest.raises(LaunchError) as refused:
        launched(world, shards=MAX_SHARDS + 1)
    assert refused.value.as_dict() == {"shards": [f"must be between 1 and {MAX_SHARDS}"]}


def test_part_count_follows_the_backend_and_stops_at_the_cap(settings) -> None:
    size = get_backend("openai").chunk_requests
    assert 16 <= size <= 128  # a few dozen requests
    assert part_count(1, "openai") == 1
    assert part_count(size, "openai") == 1
    assert part_count(size + 1, "openai") == 2
    assert part_count(2000, "openai") == min(MAX_SHARDS, -(-2000 // size))
    assert part_count(10**7, "openai") == MAX_SHARDS
    # a local model batches a whole part: fewer, larger parts (FLUB's 834 items in 4)
    assert part_count(834, "transformers") == 4 and part_count(834, "vllm") == 1
    settings.RUN_CHUNK_REQUESTS = 10
    assert part_count(2000, "openai") == MAX_SHARDS
    assert part_count(95, "openai") == 10


@pytest.mark.parametrize("total,shards", [(3, 1), (3, 3), (10, 3), (2000, 31), (5, 8)])
def test_parts_are_consecutive_ranges_that_cover_every_request_once(total, shards) -> None:
    parts = [shard_range(total, shard, shards) for shard in range(shards)]
    assert [i for part in parts for i in part] == list(range(total))
    sizes = {len(part) for part in parts}
    assert max(sizes) - min(sizes) <= 1


def test_every_part_of_a_run_answers_its_own_requests(world: World, settings) -> None:
    settings.RUN_CHUNK_REQUESTS = 1
    run = launched(world)
    for shard in range(run.shards):
        assert start_shard(run_id=run.pk, index=shard, worker="", node="").go
        assert run_shard(run.pk, shard, log=lambda line: None).generated == 1
        finish_worker_shards(run_id=run.pk, index=shard, worker="", status=RunShard.Status.DONE)
    rows = RunOutput.objects.filter(run=run).order_by("document_id", "unit_index")
    assert rows.count() == 3 and ModelRun.objects.get(pk=run.pk).status == "scoring"


def test_a_worker_s_pool_processes_leave_the_run_s_parts_to_its_runner(
    world: World, settings
) -> None:
    settings.RUN_CHUNK_REQUESTS = 1
    run = launched(world)
    assert start_shard(run_id=run.pk, index=0, worker="gpu-1:101", node=NODE).go
    left = start_shard(run_id=run.pk, index=1, worker="gpu-1:102", node=NODE)
    assert left is not None and not left.go  # the runner on this worker takes it next
    assert statuses(run) == ["running", "queued", "queued"]
    other = start_shard(run_id=run.pk, index=1, worker="gpu-2:201", node=OTHER_NODE)
    assert other is not None and other.go  # another worker starts its own runner
    assert claim_next_shard(run_id=run.pk, worker="gpu-1:101") == 2
    assert list(run.run_shards.order_by("index").values_list("node", flat=True)) == [
        NODE,
        OTHER_NODE,
        NODE,
    ]


def test_a_worker_whose_runner_went_silent_does_not_hold_the_parts(world: World, settings) -> None:
    settings.RUN_CHUNK_REQUESTS = 1
    run = launched(world)
    assert start_shard(run_id=run.pk, index=0, worker="gpu-1:101", node=NODE).go
    silent = timezone.now() - timedelta(seconds=settings.JOB_STALE_SECONDS + 5)
    run.run_shards.filter(index=0).update(heartbeat_at=silent)
    assert start_shard(run_id=run.pk, index=1, worker="gpu-1:102", node=NODE).go


def test_a_part_left_queued_after_the_runner_stopped_pulling_is_taken_by_its_supervisor(
    world: World, settings
) -> None:
    settings.RUN_CHUNK_REQUESTS = 1
    run = launched(world)
    assert start_shard(run_id=run.pk, index=0, worker="gpu-1:101", node=NODE).go
    finish_worker_shards(run_id=run.pk, index=0, worker="gpu-1:101", status="done")
    # the supervisor asks again once its runner is done: the next part is its own
    assert claim_next_shard(run_id=run.pk, worker="gpu-1:101", node=NODE) == 1
    shard = run.run_shards.get(index=1)
    assert (shard.status, shard.worker, shard.node) == ("running", "gpu-1:101", NODE)


def test_a_failed_runner_cancels_the_parts_still_queued_and_the_run_fails_resumable(
    world: World, settings
) -> None:
    settings.RUN_CHUNK_REQUESTS = 1
    run = launched(world)
    assert start_shard(run_id=run.pk, index=0, worker="gpu-1:101", node=NODE).go
    assert start_shard(run_id=run.pk, index=1, worker="gpu-2:201", node=OTHER_NODE).go
    finish_worker_shards(
        run_id=run.pk, index=0, worker="gpu-1:101", status="failed", error="could not connect"
    )
    assert statuses(run) == ["failed", "running", "cancelled"]
    assert ModelRun.objects.get(pk=run.pk).status == "running"  # the other runner goes on
    assert claim_next_shard(run_id=run.pk, worker="gpu-2:201") is None
    finish_worker_shards(run_id=run.pk, index=1, worker="gpu-2:201", status="done")
    run.refresh_from_db()
    assert run.status == "failed" and run.error == "shard 0: could not connect"
