"""Jobs recover by themselves from a dead worker or process, and workers from a broker
restart (real processes: Celery workers, runner processes, a scratch ``redis-server``).

- A worker killed with SIGKILL mid-run: its runner dies with it, the shard's heartbeat
  stops, the next worker's sweep queues the shard again and that worker finishes the run
  with no one pressing anything, sending again only the requests that were in flight in
  the dead runner. Past ``JOB_REQUEUE_LIMIT`` the sweep fails the run instead (resumable,
  naming the dead worker) within ``JOB_STALE_SECONDS``; Resume finishes it, the same way.
- Cancel of a run whose worker is dead takes effect at once.
- An import killed mid-import (its process gone) is failed by the sweep.
- Redis stopped and started mid-run: the worker reconnects and the run finishes; while
  Redis is down a launch answers 503 with ``Retry-After`` and leaves no run, and so does
  the token endpoint (its throttle counts live in Redis).

The liveness settings are shrunk to seconds (the defaults are 10 s / 90 s / 30 s).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.jobs import DatabaseTemplates, JobEnv, postgres_services, wait_for
from tests.support.openai_server import openai_server
from tests.support.processes import PYTHON, ROOT, celery_worker, embedded_env, stop
from tests.support.redis_server import scratch_redis

pytestmark = pytest.mark.slow

LIVENESS = {"JOB_HEARTBEAT_SECONDS": "0.5", "JOB_STALE_SECONDS": "3", "JOB_SWEEP_SECONDS": "0.5"}
DELAY = 0.8  # seconds the model server takes per request: the run outlasts the kill


def make_job(tmp_path: Path, templates: DatabaseTemplates, **extra: str) -> JobEnv:
    """The project "Jobs" in a copy of the template: the SQLite file under ``tmp_path``, or
    the PostgreSQL database that ``extra["DATABASE_URL"]`` names (``services``)."""
    mode = "postgres+redis" if "DATABASE_URL" in extra else "embedded"
    job = JobEnv(embedded_env(tmp_path / "data", **LIVENESS, **extra), mode)
    if mode == "embedded":
        templates.sqlite_copy("jobs", tmp_path / "data")
    return job


@pytest.fixture(params=["embedded", "postgres+redis"])
def services(request, database_templates: DatabaseTemplates) -> Iterator[dict[str, str]]:
    """No services (the embedded default), or a copy of the "jobs" template on the
    PostgreSQL server of ``DATABASE_URL`` and the Redis broker of ``CELERY_BROKER_URL``
    (skipped without them)."""
    if request.param == "embedded":
        yield {}
        return
    services = postgres_services()
    with database_templates.postgres_copy("jobs", prefix="fallacy_recovery") as url:
        yield {**services, "DATABASE_URL": url}


def launch(job: JobEnv, base_url: str) -> int:
    settings = {"base_url": base_url, "concurrency": 2, "max_retries": 0}
    result = job.manage(
        "evaluate", "--project", "Jobs", "--gold-version", "1", "--backend", "openai",
        "--model", "test-model", "--backend-settings", json.dumps(settings),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return job.one("SELECT MAX(id) FROM evaluation_modelrun")


def call(job: JobEnv, service: str, run_id: int) -> None:
    """Cancel or resume the run as its buttons do."""
    result = job.manage(
        "shell",
        "-c",
        f"from evaluation.models import ModelRun; from evaluation.runs.services import "
        f"{service}; {service}(run=ModelRun.objects.get(pk={run_id}))",
    )
    assert result.returncode == 0, result.stderr


def status_of(job: JobEnv, run_id: int) -> str:
    return job.one("SELECT status FROM evaluation_modelrun WHERE id = ?", run_id)


def outputs_of(job: JobEnv, run_id: int) -> set[str]:
    rows = job.query("SELECT prompt FROM evaluation_runoutput WHERE run_id = ?", run_id)
    return {prompt for (prompt,) in rows}


def kill_worker_mid_run(job: JobEnv, worker: subprocess.Popen, run_id: int) -> None:
    """SIGKILL the worker process alone (not its group): its runner must die with it."""
    wait_for(lambda: job.one("SELECT done FROM evaluation_modelrun WHERE id = ?", run_id) >= 2)
    runner = job.one("SELECT runner_pid FROM evaluation_runshard WHERE run_id = ?", run_id)
    os.kill(worker.pid, signal.SIGKILL)
    worker.wait()
    wait_for(lambda: not _alive(runner), timeout=10)


def explain_run(job: JobEnv, run_id: int, worker: subprocess.Popen) -> str:
    """The run's and its shards' rows, the database's clock and ``worker``'s log (it is
    stopped to read it): what a run that did not reach its state needs to be understood."""
    run = job.query("SELECT status, error FROM evaluation_modelrun WHERE id = ?", run_id)
    shards = job.query(
        "SELECT status, worker, started_at, heartbeat_at, runner_pid, error"
        " FROM evaluation_runshard WHERE run_id = ?",
        run_id,
    )
    now = job.one("SELECT CURRENT_TIMESTAMP")
    stop(worker)
    log = worker.stdout.read() if worker.stdout else ""
    return f"run {run}\nshards {shards}\ndatabase time {now}\nworker log:\n{log[-6000:]}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@dataclass
class Killed:
    """A run whose worker was killed mid-run: what was answered and what was in flight."""

    run_id: int
    total: int
    answered: set[str]
    in_flight: set[str]
    at: float  # time.monotonic() of the kill


def start_and_kill(job: JobEnv, server) -> Killed:
    with celery_worker(job.env) as worker:
        run_id = launch(job, server.base_url)
        kill_worker_mid_run(job, worker, run_id)
    killed_at = time.monotonic()
    total = job.one("SELECT total FROM evaluation_modelrun WHERE id = ?", run_id)
    answered = outputs_of(job, run_id)
    in_flight = {prompt for prompt in dict(server.counts) if prompt not in answered}
    assert 0 < len(answered) < total and len(in_flight) <= 2  # concurrency 2
    assert status_of(job, run_id) == "running"
    return Killed(run_id, total, answered, in_flight, killed_at)


def assert_each_request_answered_once(job: JobEnv, server, killed: Killed) -> None:
    """Every request has one output; only the requests in flight at the kill were sent
    twice, everything else once."""
    run_id = killed.run_id
    count = job.one("SELECT COUNT(*) FROM evaluation_runoutput WHERE run_id = ?", run_id)
    assert count == killed.total == len(outputs_of(job, run_id))  # none missing, none twice
    assert {p for p, n in server.counts.items() if n > 1} == killed.in_flight
    assert all(n <= 2 for n in server.counts.values())
    assert sum(server.counts.values()) == killed.total + len(killed.in_flight)


def test_a_killed_workers_shard_is_queued_again_and_the_run_finishes_by_itself(
    tmp_path, services, database_templates
):
    job = make_job(tmp_path, database_templates, **services)
    with openai_server(delay=DELAY, answer=lambda prompt: "no fallacy") as server:
        killed = start_and_kill(job, server)
        run_id = killed.run_id
        with celery_worker(job.env) as sweeper:  # its sweep queues the shard; it takes it
            wait_for(
                lambda: status_of(job, run_id) in ("done", "failed"),
                timeout=120,
                explain=lambda: explain_run(job, run_id, sweeper),
            )
        assert status_of(job, run_id) == "done"  # no person pressed anything
        shard = job.query(
            "SELECT status, requeues FROM evaluation_runshard WHERE run_id = ?", run_id
        )
        assert shard == [("done", 1)]
        assert_each_request_answered_once(job, server, killed)


def test_a_killed_worker_past_the_requeue_limit_fails_the_run_and_resume_repeats_only_in_flight(
    tmp_path, services, database_templates
):
    job = make_job(tmp_path, database_templates, JOB_REQUEUE_LIMIT="0", **services)
    with openai_server(delay=DELAY, answer=lambda prompt: "no fallacy") as server:
        killed = start_and_kill(job, server)
        run_id = killed.run_id
        with celery_worker(job.env) as sweeper:  # a worker starts again: its sweep finds it
            wait_for(
                lambda: status_of(job, run_id) == "failed",
                timeout=60,
                explain=lambda: explain_run(job, run_id, sweeper),
            )
            assert time.monotonic() - killed.at < 60
            error = job.one("SELECT error FROM evaluation_modelrun WHERE id = ?", run_id)
            assert "the worker running it died" in error and "Resume" in error
            assert outputs_of(job, run_id) == killed.answered  # kept

            call(job, "resume_run", run_id)
            wait_for(lambda: status_of(job, run_id) in ("done", "failed"), timeout=120)
        assert status_of(job, run_id) == "done"
        assert_each_request_answered_once(job, server, killed)


def test_cancel_of_a_run_whose_worker_died_takes_effect_at_once(tmp_path, database_templates):
    job = make_job(tmp_path, database_templates)
    with openai_server(delay=DELAY, answer=lambda prompt: "no fallacy") as server:
        with celery_worker(job.env) as worker:
            run_id = launch(job, server.base_url)
            kill_worker_mid_run(job, worker, run_id)
        time.sleep(2)  # a few missed heartbeats; no worker sweeps
        assert status_of(job, run_id) == "running"
        call(job, "cancel_run", run_id)
        assert status_of(job, run_id) == "cancelled"
        shard = job.one("SELECT status FROM evaluation_runshard WHERE run_id = ?", run_id)
        assert shard == "cancelled"
        call(job, "resume_run", run_id)  # and it resumes
        assert status_of(job, run_id) == "queued"


IMPORT_SCRIPT = """
from annotations.models import Project
from annotations.importing.jobs import create_import_job, run_import_job
job = create_import_job(
    project=Project.objects.get(name="Jobs"), file_name="big.txt",
    content=open(PATH, "rb").read(), format="text",
)
run_import_job(job_id=job.pk)
"""


def heartbeat_after_start(job: JobEnv) -> bool:
    started, beat = job.query("SELECT started_at, heartbeat_at FROM annotations_importjob")[0]
    return beat > started


def test_an_import_whose_process_died_is_failed_by_the_sweep(
    tmp_path, services, database_templates
):
    job = make_job(tmp_path, database_templates, **services)
    big = tmp_path / "big.txt"
    big.write_text(
        "\n\n".join(
            f"Text {i}: everyone says so, so it must be true. Really." for i in range(400_000)
        )
    )
    documents = job.one("SELECT COUNT(*) FROM annotations_document")
    script = tmp_path / "import.py"
    script.write_text(f"PATH = {str(big)!r}\n{IMPORT_SCRIPT}")
    importer = subprocess.Popen(
        [PYTHON, "manage.py", "shell", "-c", f"exec(open({str(script)!r}).read())"],
        cwd=ROOT,
        env=job.env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for(
            lambda: job.one("SELECT COUNT(*) FROM annotations_importjob WHERE status = 'running'"),
            timeout=60,
        )
        # the importing process writes heartbeats while it runs
        wait_for(lambda: heartbeat_after_start(job) or importer.poll() is not None, timeout=60)
        assert heartbeat_after_start(job)
        assert importer.poll() is None, "the import must be killed mid-way"
        importer.kill()
        importer.wait()
    finally:
        stop(importer)
    killed_at = time.monotonic()
    with celery_worker(job.env):
        wait_for(
            lambda: job.one("SELECT status FROM annotations_importjob") == "failed", timeout=60
        )
    assert time.monotonic() - killed_at < 60
    errors = job.one("SELECT errors FROM annotations_importjob")
    errors = json.loads(errors) if isinstance(errors, str) else errors  # SQLite: the text
    assert "the process importing it died" in errors[0]["message"]
    assert job.one("SELECT COUNT(*) FROM annotations_document") == documents  # all or nothing
    assert job.one("SELECT COUNT(*) FROM annotations_importupload") == 0  # bytes let go


# --- Redis restarts -------------------------------------------------------------------------


API_SCRIPT = """
import json
from django.contrib.auth.models import User
from django.test import Client
from annotations.models import GoldStandard, Project
from evaluation.models import PromptVariant
user = User.objects.filter(username="launcher").first() or User.objects.create_superuser(
    "launcher", password="pw-for-tests-123")
project = Project.objects.get(name="Jobs")
client = Client(HTTP_HOST="127.0.0.1")
client.force_login(user)
launch = client.post("/api/evaluation/runs/", json.dumps({
    "project": project.pk,
    "gold_standard": GoldStandard.objects.get(project=project).pk,
    "models": [{"backend": "random", "model": "", "settings": {}}],
    "prompt_variants": [PromptVariant.objects.filter(task="mafalda", name="zero-shot").first().pk],
}), content_type="application/json")
token = Client(HTTP_HOST="127.0.0.1").post(
    "/api/auth/token/", {"username": "launcher", "password": "wrong"})
answers = [[r.status_code, r.headers.get("Retry-After")] for r in (launch, token)]
print("RESULT", json.dumps(answers))
"""


def api_during(job: JobEnv) -> list[list]:
    result = job.manage("shell", "-c", API_SCRIPT, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    line = next(line for line in result.stdout.splitlines() if line.startswith("RESULT "))
    return json.loads(line.removeprefix("RESULT "))


# threads: the worker ``manage.py serve`` starts; prefork: Celery's default, the workers of
# docker-compose.yml
@pytest.mark.parametrize("pool", ["threads", "prefork"])
def test_a_redis_restart_mid_run_leaves_the_worker_running_and_the_run_finishes(
    tmp_path, database_templates, pool
):
    with scratch_redis(tmp_path / "redis") as redis_server:
        url = f"redis://127.0.0.1:{redis_server['port']}/0"
        job = make_job(
            tmp_path, database_templates, CELERY_BROKER_URL=url, CACHE_URL=f"{url[:-1]}1"
        )
        runs_before = job.one("SELECT COUNT(*) FROM evaluation_modelrun")
        with openai_server(delay=0.3, answer=lambda prompt: "no fallacy") as server:
            with celery_worker(job.env, pool=pool) as worker:
                assert api_during(job)[0][0] == 201  # the API launches while Redis is up
                wait_for(lambda: job.one("SELECT COUNT(*) FROM evaluation_modelrun "
                                         "WHERE status = 'done'") == 1, timeout=120)  # fmt: skip
                run_id = launch(job, server.base_url)
                wait_for(
                    lambda: (
                        job.one("SELECT done FROM evaluation_modelrun WHERE id = ?", run_id) >= 2
                    )
                )
                redis_server["stop"]()
                launched, token = api_during(job)
                assert launched[0] == 503 and int(launched[1]) > 0
                assert token[0] == 503 and int(token[1]) > 0
                # no run left behind by the refused launch
                assert job.one("SELECT COUNT(*) FROM evaluation_modelrun") == runs_before + 2
                redis_server["start"]()
                wait_for(lambda: status_of(job, run_id) in ("done", "failed"), timeout=120)
                assert worker.poll() is None, "the worker died with the broker connection"
            output = worker.stdout.read()
        assert status_of(job, run_id) == "done", output[-3000:]
        assert "Connection to broker lost" in output, output[-3000:]  # it did see the outage
        assert "Unrecoverable error" not in output, output[-3000:]
        total = job.one("SELECT total FROM evaluation_modelrun WHERE id = ?", run_id)
        assert len(outputs_of(job, run_id)) == total


PATIENT_SCRIPT = """
import time
from fallacy_platform import dispatch

from evaluation import queued
print("SENDING", flush=True)
start = time.monotonic()
dispatch.send_patiently(queued.score_run.s(0), patience=60)
print("WAITED", round(time.monotonic() - start, 1))
"""


def test_a_worker_queueing_the_next_stage_waits_for_redis_to_come_back(tmp_path) -> None:
    """A pool process whose first message meets a stopped Redis (kombu gives up after its
    2 s connect timeout) queues it once Redis is back, 6 s later."""
    import redis

    with scratch_redis(tmp_path / "redis") as redis_server:
        url = f"redis://127.0.0.1:{redis_server['port']}/0"
        env = embedded_env(tmp_path / "data", CELERY_BROKER_URL=url, CACHE_URL=f"{url[:-1]}1")
        redis_server["stop"]()
        sender = subprocess.Popen(
            [PYTHON, "manage.py", "shell", "-c", PATIENT_SCRIPT],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        wait_for(lambda: sender.stdout.readline().startswith("SENDING"), timeout=120)
        time.sleep(6)
        redis_server["start"]()
        out, err = sender.communicate(timeout=90)
        assert sender.returncode == 0, err[-3000:]
        waited = float(next(line for line in out.splitlines() if line.startswith("WAITED"))[7:])
        assert waited >= 5, out
        assert redis.Redis(port=redis_server["port"]).llen("default") == 1
