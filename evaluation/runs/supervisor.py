"""Supervises the runner process of one shard (called by the ``gpu_generate`` task); the
runner goes on with the run's queued shards once its own is done (``runner.run_shard``), so
the supervisor beats and ends every shard its runner holds.

The runner is a separate process in its own session (CUDA and vLLM do not survive
Celery's forked pool children), tied to this one (it gets SIGKILL if the supervisor
dies, so a redelivered task never finds an orphan still generating). The supervisor:
- kills the runner's process group on cancel (checked every second) or when the run's
  time limit (``EVALUATION_RUN_TIME_LIMIT`` seconds) is exceeded;
- restarts a runner that died from a signal it did not send (up to
  ``EVALUATION_RUNNER_RESTARTS`` times): the new runner resumes from what was written;
- otherwise records the shard's end: done, or failed with the class of failure the runner
  wrote (``runner.failure_path``: could not connect, HTTP status, timed out, not valid, not
  loaded; never a server's answer, a traceback or a path), keeping every output produced so
  far; the end of the runner's log goes to the operator's log (``logger.error``);
- writes the shard's heartbeat every ``JOB_HEARTBEAT_SECONDS`` (``runs.liveness``);
  when the shard is no longer running (a sweep failed it, its heartbeats having been lost
  with the database, or a cancel found it gone), it kills the runner and leaves the shard
  as it is. A database that is away for a moment is waited for, the runner going on.
"""

from __future__ import annotations

import ctypes
import logging
import os
import signal
import subprocess
import time
from pathlib import Path

from django.conf import settings
from django.db import DatabaseError, connection
from fallacy_platform.liveness import heartbeat_seconds

from evaluation.models import ModelRun, RunShard
from evaluation.runs.liveness import beat_worker_shards
from evaluation.runs.runner import failure_path, runner_command
from evaluation.runs.services import (
    claim_next_shard,
    finish_worker_shards,
    record_runner,
    start_shard,
)

logger = logging.getLogger(__name__)

POLL_SECONDS = 0.25
CANCEL_CHECK_SECONDS = 1.0
ERROR_LINES = 80  # of the runner's log, in the operator's log


def _die_with_parent() -> None:  # pragma: no cover - runs in the child before exec
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def log_path(run_id: int, shard: int) -> Path:
    folder = Path(settings.DATA_DIR) / "runs"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"run-{run_id}-shard-{shard}.log"


def _kill(process: subprocess.Popen) -> None:
    for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 30)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def _tail(path: Path) -> str:
    try:
        lines = path.read_text(errors="replace").splitlines()
    except OSError:
        return ""
    return "\n".join(lines[-ERROR_LINES:])


def _error_message(run_id: int, shard: int, path: Path, returncode: int) -> str:
    """The shard's error as the run's users read it; the details go to the operator's log."""
    how = f"killed by signal {-returncode}" if returncode < 0 else f"exit status {returncode}"
    logger.error(
        "run %s shard %s: the runner failed (%s); end of its log %s:\n%s",
        run_id,
        shard,
        how,
        path,
        _tail(path),
    )
    try:
        failure = failure_path(run_id, shard).read_text(encoding="utf-8").strip()
    except OSError:
        failure = ""
    return failure or f"the runner stopped ({how}; the operator's log has the details)"


def supervise_shard(*, run_id: int, shard: int, worker: str = "", node: str = "") -> str:
    """Run the shard to its end, then, while its runner succeeded, any shard of the run
    still queued (one the Celery worker ``node`` left to its runner, or one queued again
    after its runner had stopped pulling); returns the last runner's final status."""
    start = start_shard(run_id=run_id, index=shard, worker=worker, node=node)
    if start is None:
        return "missing"  # the run was deleted (or its launch withdrawn)
    if not start.go:
        return start.shard.status
    deadline = time.monotonic() + float(settings.EVALUATION_RUN_TIME_LIMIT)
    status = _supervise_runner(run_id, shard, worker, deadline)
    while worker and status == RunShard.Status.DONE:
        following = claim_next_shard(run_id=run_id, worker=worker, node=node)
        if following is None:
            break
        status = _supervise_runner(run_id, following, worker, deadline)
    return status


def _supervise_runner(run_id: int, shard: int, worker: str, deadline: float) -> str:
    """Start a runner for ``shard`` and watch it to its end (restarting it after a signal
    nobody here sent); records the end of every shard it holds."""
    restarts = settings.EVALUATION_RUNNER_RESTARTS
    path = log_path(run_id, shard)
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    attempts = 0
    failure_path(run_id, shard).unlink(missing_ok=True)
    while True:
        attempts += 1
        with path.open("a") as log:
            log.write(f"--- attempt {attempts}\n")
            log.flush()
            process = subprocess.Popen(
                runner_command(run_id, shard, worker=worker),
                cwd=settings.BASE_DIR,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=_die_with_parent,
            )
        record_runner(run_id=run_id, index=shard, pid=process.pid, attempts=attempts)
        outcome = _watch(process, run_id, shard, worker, deadline)
        if outcome == "lost":
            _kill(process)
            return "lost"
        if outcome != "exited":
            _kill(process)
        code = process.returncode
        if outcome == "exited" and code < 0 and attempts <= restarts:
            continue  # died from a signal nobody here sent: resume
        limit = float(settings.EVALUATION_RUN_TIME_LIMIT)
        status, error = _ending(outcome, code, run_id, shard, path, limit)
        finish_worker_shards(run_id=run_id, index=shard, worker=worker, status=status, error=error)
        return status


def _ending(
    outcome: str, code: int | None, run_id: int, shard: int, path: Path, limit: float
) -> tuple[str, str]:
    """The status and error the runner's shards end with."""
    if outcome == "cancelled":
        return RunShard.Status.CANCELLED, ""
    if outcome == "timeout":
        return (
            RunShard.Status.FAILED,
            f"time limit of {limit:.0f} s exceeded (outputs so far are kept)",
        )
    if code == 0:
        return RunShard.Status.DONE, ""
    return RunShard.Status.FAILED, _error_message(run_id, shard, path, code or 0)


def _watch(process: subprocess.Popen, run_id: int, shard: int, worker: str, deadline: float) -> str:
    next_check = next_beat = 0.0
    while True:
        try:
            process.wait(timeout=POLL_SECONDS)
            return "exited"
        except subprocess.TimeoutExpired:
            pass
        now = time.monotonic()
        if now >= deadline:
            return "timeout"
        if now < next_check:
            continue
        next_check = now + CANCEL_CHECK_SECONDS
        try:
            if now >= next_beat:
                next_beat = now + heartbeat_seconds()
                if not beat_worker_shards(run_id=run_id, index=shard, worker=worker):
                    return "lost"
            if ModelRun.objects.filter(pk=run_id, cancel_requested=True).exists():
                return "cancelled"
        except DatabaseError as error:  # away for a moment: the runner goes on
            logger.warning("run %s shard %s: database unavailable: %s", run_id, shard, error)
            connection.close()
