"""The liveness rules of run shards and import jobs, on the database alone (the processes
that die are in ``tests/platform/test_job_recovery.py``): which redelivered task starts a shard,
what the sweep fails, what Cancel does to a dead worker's shard, and the 503 the API gives
while the job queue is away."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from fallacy_platform import dispatch
from fallacy_platform.dispatch import QueueUnavailable
from fallacy_platform.errors import api_exception_handler
from kombu.exceptions import OperationalError as KombuOperationalError

from annotations.importing.liveness import fail_stale_import_jobs
from annotations.models import ImportJob, ImportUpload, Project
from annotations.services.projects import create_project
from annotations.services.taxonomy import install_preset
from evaluation.models import ModelRun, PromptVariant, RunShard
from evaluation.queued import gpu_generate
from evaluation.runs.liveness import fail_stale_shards
from evaluation.runs.services import cancel_run, resume_run, start_shard

pytestmark = pytest.mark.django_db
STALE = 90.0


@pytest.fixture
def project() -> Project:
    return create_project(name="Liveness", taxonomy=install_preset(name="mafalda"))


def running_shard(project: Project, *, beat_seconds_ago: float, index: int = 0) -> RunShard:
    run = ModelRun.objects.create(
        project=project,
        name=f"run {index}",
        backend="random",
        prompt_variant=PromptVariant.objects.filter(task="mafalda").first(),
        status="running",
        total=4,
    )
    beat = timezone.now() - timedelta(seconds=beat_seconds_ago)
    return RunShard.objects.create(
        run=run, index=0, status="running", worker="elsewhere:1", started_at=beat, heartbeat_at=beat
    )


def test_a_redelivered_task_starts_only_a_queued_shard_or_one_whose_worker_died(project):
    live = running_shard(project, beat_seconds_ago=1)
    start = start_shard(run_id=live.run_id, index=0, worker="here:2")
    assert start is not None and not start.go  # its supervisor is alive: nothing happens
    live.refresh_from_db()
    assert live.worker == "elsewhere:1"

    dead = running_shard(project, beat_seconds_ago=STALE + 5, index=1)
    start = start_shard(run_id=dead.run_id, index=0, worker="here:2")
    assert start is not None and start.go  # taken over
    dead.refresh_from_db()
    assert dead.worker == "here:2" and dead.heartbeat_at > timezone.now() - timedelta(seconds=5)

    RunShard.objects.filter(pk=live.pk).update(status="failed")
    ModelRun.objects.filter(pk=live.run_id).update(status="failed")
    start = start_shard(run_id=live.run_id, index=0, worker="here:2")
    assert start is not None and not start.go
    assert RunShard.objects.get(pk=live.pk).status == "failed"  # Resume decides, not the broker

    assert start_shard(run_id=10**9, index=0, worker="here:2") is None  # a withdrawn run


def test_the_sweep_fails_stale_shards_resumable_and_leaves_live_ones(project, settings):
    settings.JOB_REQUEUE_LIMIT = 0  # never queued again: failed at once
    live = running_shard(project, beat_seconds_ago=1)
    dead = running_shard(project, beat_seconds_ago=STALE + 5, index=1)
    assert fail_stale_shards(stale_after=STALE) == [f"run {dead.run_id} shard 0: failed"]
    assert fail_stale_shards(stale_after=STALE) == []  # idempotent
    run = ModelRun.objects.get(pk=dead.run_id)
    assert run.status == "failed" and "the worker running it died" in run.error
    assert "elsewhere:1" in run.error
    assert ModelRun.objects.get(pk=live.run_id).status == "running"
    assert resume_run(run=run).status == "queued"


@pytest.fixture
def queued(monkeypatch: pytest.MonkeyPatch) -> list[tuple]:
    """The messages the sweep queues (the broker taking them)."""
    sent: list[tuple] = []
    monkeypatch.setattr(dispatch, "send_patiently", lambda *messages, **_: sent.extend(messages))
    return sent


def die(shard: RunShard) -> None:
    """The shard's worker stops writing heartbeats."""
    old = timezone.now() - timedelta(seconds=STALE + 5)
    RunShard.objects.filter(pk=shard.pk).update(heartbeat_at=old, started_at=old)


def test_a_dead_workers_shard_is_queued_again_then_failed_past_the_limit(
    project, settings, queued, django_capture_on_commit_callbacks
):
    settings.JOB_REQUEUE_LIMIT = 2
    dead = running_shard(project, beat_seconds_ago=STALE + 5)
    for attempt in (1, 2):
        with django_capture_on_commit_callbacks(execute=True):
            assert fail_stale_shards(stale_after=STALE) == [f"run {dead.run_id} shard 0: queued"]
        assert queued[-1] == gpu_generate.s(dead.run_id, 0) and len(queued) == attempt
        shard = RunShard.objects.get(pk=dead.pk)
        assert (shard.status, shard.requeues, shard.error) == ("queued", attempt, "")
        assert ModelRun.objects.get(pk=dead.run_id).status == "running"  # no person needed
        start = start_shard(run_id=dead.run_id, index=0, worker=f"next:{attempt}")
        assert start is not None and start.go  # another worker takes it
        die(dead)
    with django_capture_on_commit_callbacks(execute=True):
        assert fail_stale_shards(stale_after=STALE) == [f"run {dead.run_id} shard 0: failed"]
    assert len(queued) == 2
    run = ModelRun.objects.get(pk=dead.run_id)
    assert run.status == "failed" and "queued again 2 times" in run.error
    assert "next:2" in run.error and "Resume" in run.error
    assert resume_run(run=run).status == "queued"
    assert RunShard.objects.get(pk=dead.pk).requeues == 0  # Resume starts the count again


def test_a_shard_the_broker_will_not_take_again_fails_resumable(
    project, settings, monkeypatch, django_capture_on_commit_callbacks
):
    settings.JOB_REQUEUE_LIMIT = 2

    def refusing(*messages, undo, **_) -> None:
        undo("the job queue is unavailable")
        raise QueueUnavailable("the job queue is unavailable")

    monkeypatch.setattr(dispatch, "send_patiently", refusing)
    dead = running_shard(project, beat_seconds_ago=STALE + 5)
    with django_capture_on_commit_callbacks(execute=True):
        fail_stale_shards(stale_after=STALE)
    run = ModelRun.objects.get(pk=dead.run_id)
    assert run.status == "failed" and "could not be queued again" in run.error
    assert RunShard.objects.get(pk=dead.pk).status == "failed"


def test_a_stale_shard_of_a_cancelled_run_is_cancelled(project):
    dead = running_shard(project, beat_seconds_ago=STALE + 5)
    ModelRun.objects.filter(pk=dead.run_id).update(cancel_requested=True)
    fail_stale_shards(stale_after=STALE)
    assert ModelRun.objects.get(pk=dead.run_id).status == "cancelled"


def test_cancel_takes_effect_at_once_on_a_shard_whose_heartbeats_stopped(project, settings):
    settings.JOB_HEARTBEAT_SECONDS = 10
    live = running_shard(project, beat_seconds_ago=1)
    assert cancel_run(run=live.run).status == "running"  # its supervisor stops the runner
    gone = running_shard(project, beat_seconds_ago=31, index=1)  # three beats missed
    assert cancel_run(run=gone.run).status == "cancelled"
    assert RunShard.objects.get(pk=gone.pk).status == "cancelled"


def test_the_sweep_fails_an_import_whose_process_died(project):
    old = timezone.now() - timedelta(seconds=STALE + 5)
    dead = ImportJob.objects.create(
        project=project, format="text", file_name="a.txt", status="running",
        started_at=old, heartbeat_at=old,
    )  # fmt: skip
    live = ImportJob.objects.create(
        project=project, format="text", file_name="b.txt", status="running",
        started_at=old, heartbeat_at=timezone.now(),
    )  # fmt: skip
    for job in (dead, live):
        ImportUpload.objects.create(job=job, content=b"x")
    assert dead.content == b"x"
    assert fail_stale_import_jobs(stale_after=STALE) == [f"import job {dead.pk}: failed"]
    dead.refresh_from_db()
    assert dead.status == "failed" and dead.content == b""
    assert "the process importing it died" in dead.errors[0]["message"]
    assert ImportJob.objects.get(pk=live.pk).status == "running"


@pytest.mark.parametrize(
    "error",
    [KombuOperationalError("Error 111 connecting"), QueueUnavailable("down"), ConnectionError()],
)
def test_an_unreachable_job_queue_or_cache_is_a_503_with_retry_after(error):
    response = api_exception_handler(error, {})
    assert response.status_code == 503 and int(response.headers["Retry-After"]) > 0
