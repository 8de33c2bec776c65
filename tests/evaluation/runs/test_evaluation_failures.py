"""A model server that starts failing: the run fails naming the server's HTTP status (its
message goes to the operator's log), keeps what it produced, and a resume finishes it
without asking any request twice. Also: one run split into two shards, processed by two
workers at the same time.

The model is an OpenAI-compatible server started by the test (``tests/support/openai_server.py``);
runs go through the real runner processes, supervised inline or by real Celery workers.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.jobs import DatabaseTemplates, JobEnv, wait_for
from tests.support.openai_server import openai_server
from tests.support.processes import celery_worker, embedded_env

pytestmark = pytest.mark.slow


@pytest.fixture
def job(tmp_path: Path, database_templates: DatabaseTemplates) -> JobEnv:
    database_templates.sqlite_copy("jobs", tmp_path / "data")
    return JobEnv(embedded_env(tmp_path / "data"), "embedded")


def evaluate(job: JobEnv, base_url: str, *extra: str):
    settings = {"base_url": base_url, "concurrency": 1, "max_retries": 1, "backoff": 0.01}
    return job.manage(
        "evaluate",
        "--project",
        "Jobs",
        "--gold-version",
        "1",
        "--backend",
        "openai",
        "--model",
        "test-model",
        "--backend-settings",
        json.dumps(settings),
        *extra,
    )


def stored_prompts(job: JobEnv, run_id: int) -> list[str]:
    return [
        prompt
        for (prompt,) in job.query(
            "SELECT prompt FROM evaluation_runoutput WHERE run_id = ?", run_id
        )
    ]


def resume_and_wait(job: JobEnv, run_id: int) -> None:
    """Resume the run as the Resume button does, and let a worker finish it."""
    resumed = job.manage(
        "shell",
        "-c",
        "from evaluation.models import ModelRun; from evaluation.runs.services import "
        f"resume_run; resume_run(run=ModelRun.objects.get(pk={run_id}))",
    )
    assert resumed.returncode == 0, resumed.stderr
    with celery_worker(job.env):
        wait_for(
            lambda: (
                job.one("SELECT status FROM evaluation_modelrun WHERE id = ?", run_id)
                in ("done", "failed")
            ),
            timeout=180,
        )


def test_a_failing_server_fails_the_run_which_keeps_its_outputs_and_resumes(job: JobEnv) -> None:
    with openai_server(delay=0.3, answer=lambda prompt: "hasty generalization") as server:
        stop = threading.Event()

        def break_after_three() -> None:
            while not stop.is_set():
                if sum(server.counts.values()) >= 3:
                    server.fail_next(status=500, times=10_000, message="the GPU caught fire")
                    return
                time.sleep(0.01)

        breaker = threading.Thread(target=break_after_three, daemon=True)
        breaker.start()
        failed = evaluate(job, server.base_url, "--inline")
        stop.set()
        assert failed.returncode != 0
        run_id = job.one("SELECT MAX(id) FROM evaluation_modelrun")
        status, error, total = job.query(
            "SELECT status, error, total FROM evaluation_modelrun WHERE id = ?", run_id
        )[0]
        assert status == "failed"
        # the run's users read the class of failure; the operator's log, the server's answer
        assert "the model server answered HTTP 500" in error
        assert "the GPU caught fire" not in error and "Traceback" not in error
        assert "the GPU caught fire" in failed.stderr
        kept = job.one("SELECT COUNT(*) FROM evaluation_runoutput WHERE run_id = ?", run_id)
        assert 0 < kept < total  # what was produced before the failure is kept

        with server._lock:  # the server recovers
            server._faults.clear()
        answered_before = dict(server.counts)
        kept_prompts = stored_prompts(job, run_id)
        resume_and_wait(job, run_id)
        assert job.one("SELECT status FROM evaluation_modelrun WHERE id = ?", run_id) == "done"
        assert (
            job.one("SELECT COUNT(*) FROM evaluation_runoutput WHERE run_id = ?", run_id) == total
        )
        # the resumed runner asked only for what had no output yet
        for prompt in kept_prompts:
            assert server.counts[prompt] == answered_before[prompt]


def test_two_workers_process_the_two_shards_of_a_run_at_once(job: JobEnv) -> None:
    with openai_server(delay=0.2, answer=lambda prompt: "no fallacy") as server:
        with celery_worker(job.env), celery_worker(job.env):
            result = evaluate(job, server.base_url, "--shards", "2", "--wait", "--format", "json")
            assert result.returncode == 0, result.stderr
        run_id = job.one("SELECT MAX(id) FROM evaluation_modelrun")
        total, done = job.query("SELECT total, done FROM evaluation_modelrun WHERE id = ?", run_id)[
            0
        ]
        assert (
            done
            == total
            == job.one("SELECT COUNT(*) FROM evaluation_runoutput WHERE run_id = ?", run_id)
        )
        shards = job.query(
            "SELECT status, worker, started_at, finished_at FROM evaluation_runshard "
            'WHERE run_id = ? ORDER BY "index"',
            run_id,
        )
        assert [s[0] for s in shards] == ["done", "done"]
        assert shards[0][1] != shards[1][1]  # two different worker processes
        # they overlapped in time
        assert max(s[2] for s in shards) < min(s[3] for s in shards)
        # every prompt was asked once: the shards split the requests
        assert all(count == 1 for count in server.counts.values())
        assert sum(server.counts.values()) == total


def test_a_run_past_its_time_limit_is_killed_keeps_its_outputs_and_resumes(
    job: JobEnv,
) -> None:
    """``EVALUATION_RUN_TIME_LIMIT``: the supervisor kills a runner that is still going at
    the limit; the run fails naming the limit, keeps its outputs, and a resume finishes it
    without asking again what was answered."""
    limit = 15  # seconds: the runner starts in a few, then the server stops answering
    job.env["EVALUATION_RUN_TIME_LIMIT"] = str(limit)
    with openai_server(delay=0.3, answer=lambda prompt: "hasty generalization") as server:
        stop = threading.Event()

        def hang_after_three() -> None:
            while not stop.is_set():
                if sum(server.counts.values()) >= 3:
                    server.delay = 600  # the next requests hang past the limit
                    return
                time.sleep(0.01)

        threading.Thread(target=hang_after_three, daemon=True).start()
        started = time.monotonic()
        ended: dict[str, Any] = {}

        def run_inline() -> None:
            ended["result"] = evaluate(job, server.base_url, "--inline")
            ended["seconds"] = time.monotonic() - started

        inline = threading.Thread(target=run_inline, daemon=True)
        inline.start()
        pid = wait_for(  # the runner's pid, recorded while it runs (cleared at the end)
            lambda: job.one("SELECT MAX(runner_pid) FROM evaluation_runshard"), timeout=limit
        )
        inline.join(timeout=limit + 60)
        killed, took = ended["result"], ended["seconds"]
        stop.set()
        assert killed.returncode != 0, killed.stdout
        assert limit <= took < limit + 30  # ended by the limit, not by the server
        run_id = job.one("SELECT MAX(id) FROM evaluation_modelrun")
        status, error, total = job.query(
            "SELECT status, error, total FROM evaluation_modelrun WHERE id = ?", run_id
        )[0]
        assert status == "failed"
        assert f"time limit of {limit} s exceeded" in error
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)  # the runner was killed with its process group
        kept = job.one("SELECT COUNT(*) FROM evaluation_runoutput WHERE run_id = ?", run_id)
        assert 0 < kept < total  # what was produced before the limit is kept
        kept_prompts = stored_prompts(job, run_id)
        answered_before = dict(server.counts)

        server.delay = 0.05  # the server answers again; the limit is unchanged
        resume_and_wait(job, run_id)
        status, error = job.query(
            "SELECT status, error FROM evaluation_modelrun WHERE id = ?", run_id
        )[0]
        assert status == "done", error
        assert (
            job.one("SELECT COUNT(*) FROM evaluation_runoutput WHERE run_id = ?", run_id) == total
        )
        for prompt in kept_prompts:  # the resumed runner asked only what had no output
            assert server.counts[prompt] == answered_before[prompt]
