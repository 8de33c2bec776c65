"""The evaluation app's Celery tasks as the code that queues them sees them: each task's
name, options and arguments (``fallacy_platform.dispatch.declare``). Callers queue them
through ``fallacy_platform.dispatch`` (``dispatch.send(score_run.s(run.pk))``);
``evaluation.tasks`` binds the work behind each, so this module imports no service.

- ``gpu_generate(run, shard)``: queue ``gpu`` (by its name); supervises the shard's runner
  process. Acks late with prefetch 1 (settings). A worker that dies mid-job is found by the
  shard's heartbeat (``runs.liveness``): the shard is queued again (a bounded number of
  times, then the run fails, resumable). The message, redelivered after the broker's
  visibility timeout, then does nothing.
- ``score_run(run)``: queue ``default``; scores the stored outputs, writing the run's
  heartbeat: a worker that dies while scoring leaves the run failed by the sweep (Resume
  queues the scoring again); a redelivered task of a run not scoring does nothing.
- ``gpu_generate_fallacies(job)``: queue ``gpu`` (by its name); one Prolog-checked
  generation job (``synthesis.generation.run_job``; swipl in its own process), with a
  heartbeat: a worker that dies leaves the job failed by the sweep (launch it again).
- ``compute_agreement(result)``: queue ``default``; every agreement figure of a project for
  one inputs hash (``agreement.jobs.compute``).
- ``warm_results(run)``: queue ``default``; stores the default result boards that show a
  run just scored (``results.warm_run_boards``; best-effort, never fails).
"""

from __future__ import annotations

from django.conf import settings
from fallacy_platform.dispatch import declare

RUN_TIME_LIMIT = settings.EVALUATION_RUN_TIME_LIMIT


@declare(
    "evaluation.gpu_generate",
    acks_late=True,
    reject_on_worker_lost=True,
    time_limit=RUN_TIME_LIMIT + 600,
    soft_time_limit=RUN_TIME_LIMIT + 300,
)
def gpu_generate(run_id: int, shard: int) -> str:
    """Supervise one shard's runner; the shard's final status."""


@declare("evaluation.score_run", acks_late=True)
def score_run(run_id: int) -> str:
    """Score a run's stored outputs; the run's status."""


@declare("evaluation.compute_agreement", acks_late=True)
def compute_agreement(result_id: int) -> str:
    """Compute a project's agreement figures into the result row."""


@declare("evaluation.gpu_generate_fallacies", acks_late=True)
def gpu_generate_fallacies(job_id: int) -> str:
    """Run one generation job; the job's status."""


@declare("evaluation.warm_results")
def warm_results(run_id: int) -> None:
    """Store the default result boards that show the run."""
