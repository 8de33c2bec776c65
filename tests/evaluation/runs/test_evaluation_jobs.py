"""Whole evaluation jobs through a real Celery worker, a real runner process and a real
(tiny, random) transformers model: on the embedded default (SQLite, filesystem broker)
and on PostgreSQL + Redis (a scratch database; skipped when they are not configured).

Everything goes through the shell entry points a user has (``import_dataset``,
``evaluate``); the test reads the database directly to count outputs, cache rows and
the runner's pid.
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.jobs import TEXTS, DatabaseTemplates, JobEnv, postgres_services, wait_for
from tests.support.paths import ROOT
from tests.support.processes import celery_worker, embedded_env

pytestmark = pytest.mark.slow


@pytest.fixture(params=["embedded", "postgres+redis"])
def job_env(
    request, tmp_path: Path, tiny_model_dir: Path, database_templates: DatabaseTemplates
) -> Iterator[JobEnv]:
    """The project "Jobs" on the embedded default, or on a scratch PostgreSQL database and
    the Redis broker of ``CELERY_BROKER_URL`` (skipped without them)."""
    data = tmp_path / "data"
    env = embedded_env(data, HF_HUB_OFFLINE="1", EVALUATION_RUNNER_RESTARTS="2")
    if request.param == "embedded":
        database_templates.sqlite_copy("jobs", data)
        yield JobEnv(env, request.param)
        return
    env.update(postgres_services())
    with database_templates.postgres_copy("jobs") as url:
        env["DATABASE_URL"] = url
        yield JobEnv(env, request.param)


def evaluate_args(model: Path, *extra: str, settings: dict | None = None) -> list[str]:
    return [
        "evaluate",
        "--project",
        "Jobs",
        "--gold-version",
        "1",
        "--backend",
        "transformers",
        "--model",
        str(model),
        "--backend-settings",
        json.dumps(settings or {"batch_size": 4}),
        "--limit",
        "3",
        *extra,
    ]


def run_counts(job: JobEnv, run_id: int) -> dict[str, Any]:
    status, total, done, generated = job.query(
        "SELECT status, total, done, generated FROM evaluation_modelrun WHERE id = ?", run_id
    )[0]
    outputs = job.one("SELECT COUNT(*) FROM evaluation_runoutput WHERE run_id = ?", run_id)
    distinct = job.one(
        "SELECT COUNT(DISTINCT cache_key) FROM evaluation_runoutput WHERE run_id = ?", run_id
    )
    cached_rows = job.one(
        "SELECT COUNT(*) FROM evaluation_generationcache WHERE run_id = ?", run_id
    )
    return {
        "status": status,
        "total": total,
        "done": done,
        "generated": generated,
        "outputs": outputs,
        "distinct_keys": distinct,
        "cache_rows": cached_rows,
    }


def latest_run(job: JobEnv) -> int:
    return job.one("SELECT MAX(id) FROM evaluation_modelrun")


def test_a_whole_job_runs_scores_and_a_second_identical_run_sends_nothing(
    job_env: JobEnv, tiny_model_dir: Path
) -> None:
    decoding = ("--max-new-tokens", "8", "--seed", "7")
    with celery_worker(job_env.env):
        result = job_env.manage(
            *evaluate_args(tiny_model_dir, *decoding, "--wait", "--format", "json")
        )
        assert result.returncode == 0, result.stderr + result.stdout
        report = json.loads(result.stdout.strip().splitlines()[-1])
        assert set(report["levels"]) == {"0", "1", "2"}
        first = latest_run(job_env)
        assert_environment_recorded(job_env, first, tiny_model_dir)
        counts = run_counts(job_env, first)
        units = job_env.one("SELECT COUNT(*) FROM annotations_sentence")
        assert counts["status"] == "done"
        assert counts["total"] == counts["outputs"] == counts["done"] == units
        # every distinct request was generated exactly once, and cached
        assert counts["generated"] == counts["distinct_keys"] == counts["cache_rows"]
        profiles = job_env.query("SELECT profile FROM evaluation_runscore WHERE run_id = ?", first)
        assert sorted(p for (p,) in profiles) == ["mafalda-2024", "paper"]
        prompt = job_env.one(
            "SELECT prompt FROM evaluation_runoutput WHERE run_id = ? "
            "ORDER BY document_id, unit_index LIMIT 1",
            first,
        )
        assert TEXTS[0] in prompt and "hasty generalization" in prompt

        again = job_env.manage(
            *evaluate_args(tiny_model_dir, *decoding, "--wait", "--format", "json")
        )
        assert again.returncode == 0, again.stderr
        second = latest_run(job_env)
        assert second != first
        counts2 = run_counts(job_env, second)
        assert counts2["status"] == "done" and counts2["outputs"] == units
        assert counts2["generated"] == 0  # no request sent: every output came from the cache
        assert (
            job_env.one(
                "SELECT COUNT(*) FROM evaluation_runoutput WHERE run_id = ? AND NOT from_cache",
                second,
            )
            == 0
        )
        environment = json_column(job_env, "environment", second)
        assert environment["shard 0"]["model_loaded"] is False
        assert environment["shard 0"]["seed"] == 7  # recorded even when nothing is generated


def json_column(job: JobEnv, column: str, run_id: int) -> Any:
    value = job.one(f"SELECT {column} FROM evaluation_modelrun WHERE id = ?", run_id)
    return json.loads(value) if isinstance(value, str) else value  # SQLite gives the text


def expected_git_commit() -> str:
    """What the runner records: ``GIT_COMMIT`` when set, else ``git rev-parse HEAD`` of the
    checkout, else ``"unknown"`` (no git, or not a checkout: the documented absence)."""
    import subprocess

    if os.environ.get("GIT_COMMIT"):
        return os.environ["GIT_COMMIT"]
    root = ROOT
    try:
        return subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def assert_environment_recorded(job: JobEnv, run_id: int, model: Path) -> None:
    """A finished run records the git commit, the seed and every decoding parameter, the
    model and its weights fingerprint, and versions and device."""
    params = {"max_new_tokens": 8, "temperature": 0.0, "top_p": 1.0, "seed": 7}
    config = json_column(job, "config", run_id)
    assert config["params"] == params
    assert config["settings"] == {"batch_size": 4}
    environment = json_column(job, "environment", run_id)
    assert set(environment) == {"shard 0"}
    shard = environment["shard 0"]
    commit = expected_git_commit()
    assert shard["git_commit"] == commit
    assert commit == "unknown" or len(commit) == 40, commit
    assert shard["seed"] == 7 and shard["params"] == params
    assert shard["backend"] == "transformers" and shard["model"] == str(model)
    assert shard["fingerprint"].startswith("files:")
    assert shard["settings"] == {"batch_size": 4}
    assert shard["model_loaded"] is True
    assert shard["python"] and shard["platform"] and shard["hostname"]
    assert shard["packages"]["django"] != "-"
    assert shard["backend_packages"]["torch"] != "-"
    assert shard["device"]


def slow_settings() -> dict:
    return {"batch_size": 1}


def test_a_killed_runner_resumes_with_no_request_missing_or_duplicated(
    job_env: JobEnv, tiny_model_dir: Path
) -> None:
    with celery_worker(job_env.env):
        result = job_env.manage(
            *evaluate_args(tiny_model_dir, "--max-new-tokens", "120", settings=slow_settings())
        )
        assert result.returncode == 0, result.stderr
        run_id = latest_run(job_env)
        total = job_env.one("SELECT total FROM evaluation_modelrun WHERE id = ?", run_id)
        pid = wait_for(
            lambda: job_env.one(
                "SELECT s.runner_pid FROM evaluation_runshard s JOIN evaluation_modelrun r "
                "ON r.id = s.run_id WHERE r.id = ? AND r.done >= 2",
                run_id,
            )
        )
        done_before = job_env.one("SELECT done FROM evaluation_modelrun WHERE id = ?", run_id)
        assert 0 < done_before < total, "the runner must be killed mid-run"
        os.kill(pid, signal.SIGKILL)
        wait_for(
            lambda: (
                job_env.one("SELECT status FROM evaluation_modelrun WHERE id = ?", run_id)
                in ("done", "failed")
            ),
            timeout=900,  # model generation: minutes when the machine is busy
        )
        counts = run_counts(job_env, run_id)
        assert counts["status"] == "done", job_env.one(
            "SELECT error FROM evaluation_modelrun WHERE id = ?", run_id
        )
        assert counts["outputs"] == counts["total"] == total  # none missing (unique: none twice)
        # each request was generated exactly once across both runner processes
        assert counts["generated"] == counts["distinct_keys"] == counts["cache_rows"]
        assert job_env.one("SELECT attempts FROM evaluation_runshard WHERE run_id = ?", run_id) == 2


def test_cancel_stops_the_runner_and_resume_finishes(job_env: JobEnv, tiny_model_dir: Path) -> None:
    with celery_worker(job_env.env):
        # long outputs: the run must outlast starting the cancelling process, on a busy
        # machine and on a quiet one (where 400 tokens a request let it finish first)
        result = job_env.manage(
            *evaluate_args(tiny_model_dir, "--max-new-tokens", "1200", settings=slow_settings())
        )
        assert result.returncode == 0, result.stderr
        run_id = latest_run(job_env)
        pid = wait_for(
            lambda: job_env.one(
                "SELECT s.runner_pid FROM evaluation_runshard s JOIN evaluation_modelrun r "
                "ON r.id = s.run_id WHERE r.id = ? AND r.done >= 1",
                run_id,
            )
        )
        cancel = job_env.manage(
            "shell",
            "-c",
            "from evaluation.models import ModelRun; from evaluation.runs.services import "
            f"cancel_run; cancel_run(run=ModelRun.objects.get(pk={run_id}))",
        )
        assert cancel.returncode == 0, cancel.stderr
        wait_for(
            lambda: (
                job_env.one("SELECT status FROM evaluation_modelrun WHERE id = ?", run_id)
                == "cancelled"
            ),
            timeout=60,
        )
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)  # the runner is gone
        kept = run_counts(job_env, run_id)
        assert 0 < kept["outputs"] < kept["total"]
        time.sleep(1.0)
        assert run_counts(job_env, run_id)["outputs"] == kept["outputs"]  # nothing more written

        resume = job_env.manage(
            "shell",
            "-c",
            "from evaluation.models import ModelRun; from evaluation.runs.services import "
            f"resume_run; resume_run(run=ModelRun.objects.get(pk={run_id}))",
        )
        assert resume.returncode == 0, resume.stderr
        wait_for(
            lambda: (
                job_env.one("SELECT status FROM evaluation_modelrun WHERE id = ?", run_id)
                in ("done", "failed")
            ),
            timeout=900,  # model generation: minutes when the machine is busy
        )
        counts = run_counts(job_env, run_id)
        assert counts["status"] == "done"
        assert counts["outputs"] == counts["total"]
        assert counts["generated"] == counts["distinct_keys"] == counts["cache_rows"]
