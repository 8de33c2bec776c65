"""A runner goes on with its run's queued shards once its own is done, the model loaded
once: one worker runs every shard of a run cut in five with one model load; two workers
share one, each loading the model once; a worker whose pool has three processes still
loads it once; each request is answered exactly once (real Celery workers, runner
processes and an OpenAI-compatible server with a delay)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.support.jobs import DatabaseTemplates, JobEnv, wait_for
from tests.support.openai_server import openai_server
from tests.support.processes import celery_worker, embedded_env

pytestmark = pytest.mark.slow

SHARDS = 5


def make_job(tmp_path: Path, templates: DatabaseTemplates) -> JobEnv:
    job = JobEnv(embedded_env(tmp_path / "data"), "embedded")
    templates.sqlite_copy("jobs", tmp_path / "data")
    return job


def launch(job: JobEnv, base_url: str) -> int:
    settings = {"base_url": base_url, "concurrency": 1, "max_retries": 0}
    result = job.manage(
        "evaluate", "--project", "Jobs", "--gold-version", "1", "--backend", "openai",
        "--model", "test-model", "--backend-settings", json.dumps(settings),
        "--shards", str(SHARDS),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return job.one("SELECT MAX(id) FROM evaluation_modelrun")


def finished(job: JobEnv, run_id: int) -> str:
    return wait_for(
        lambda: job.one(
            "SELECT status FROM evaluation_modelrun WHERE id = ? AND status IN ('done', 'failed')",
            run_id,
        ),
        timeout=180,
    )


def model_loads(job: JobEnv, run_id: int) -> int:
    """The runners that loaded the model (each records it under the shard it loaded for)."""
    environment = json.loads(
        job.one("SELECT environment FROM evaluation_modelrun WHERE id = ?", run_id)
    )
    return sum(
        1
        for key, value in environment.items()
        if key.startswith("shard ") and value.get("model_loaded")
    )


def assert_every_request_once(job: JobEnv, run_id: int, server) -> None:
    total = job.one("SELECT total FROM evaluation_modelrun WHERE id = ?", run_id)
    outputs = job.one("SELECT COUNT(*) FROM evaluation_runoutput WHERE run_id = ?", run_id)
    assert outputs == total == sum(server.counts.values()) > SHARDS
    assert set(server.counts.values()) == {1}


def test_one_worker_runs_every_shard_with_one_model_load(tmp_path, database_templates) -> None:
    job = make_job(tmp_path, database_templates)
    with openai_server(delay=0.1, answer=lambda prompt: "no fallacy") as server:
        run_id = launch(job, server.base_url)
        with celery_worker(job.env):
            assert finished(job, run_id) == "done"
        shards = job.query(
            "SELECT status, worker FROM evaluation_runshard WHERE run_id = ?", run_id
        )
        assert [status for status, _ in shards] == ["done"] * SHARDS
        assert len({worker for _, worker in shards}) == 1
        starts = job.one("SELECT SUM(attempts) FROM evaluation_runshard WHERE run_id = ?", run_id)
        assert starts == 1 == model_loads(job, run_id)  # one runner took all five
        assert_every_request_once(job, run_id, server)


def test_two_workers_share_a_run_each_loading_the_model_once(tmp_path, database_templates) -> None:
    job = make_job(tmp_path, database_templates)
    with openai_server(delay=1.0, answer=lambda prompt: "no fallacy") as server:
        run_id = launch(job, server.base_url)  # queued before any worker is there
        with celery_worker(job.env), celery_worker(job.env):
            began = time.monotonic()
            assert finished(job, run_id) == "done"
            took = time.monotonic() - began
        shards = job.query(
            "SELECT status, worker FROM evaluation_runshard WHERE run_id = ?", run_id
        )
        assert [status for status, _ in shards] == ["done"] * SHARDS
        workers = {worker for _, worker in shards}
        starts = job.one("SELECT SUM(attempts) FROM evaluation_runshard WHERE run_id = ?", run_id)
        # one runner (one model load) per worker that took part, never one per shard
        assert starts == len(workers) == model_loads(job, run_id) <= 2, (workers, took)
        assert_every_request_once(job, run_id, server)


def test_a_worker_s_pool_processes_leave_the_run_to_the_runner_it_has(
    tmp_path, database_templates
) -> None:
    job = make_job(tmp_path, database_templates)
    with openai_server(delay=0.2, answer=lambda prompt: "no fallacy") as server:
        run_id = launch(job, server.base_url)
        with celery_worker(job.env, pool="prefork", concurrency=3):
            assert finished(job, run_id) == "done"
        shards = job.query(
            "SELECT status, worker, node FROM evaluation_runshard WHERE run_id = ?", run_id
        )
        assert [status for status, _, _ in shards] == ["done"] * SHARDS
        assert len({node for _, _, node in shards}) == 1  # one Celery worker
        starts = job.one("SELECT SUM(attempts) FROM evaluation_runshard WHERE run_id = ?", run_id)
        # three pool processes took the five tasks; one runner (one model load) did the work
        assert starts == 1 == model_loads(job, run_id)
        assert_every_request_once(job, run_id, server)
