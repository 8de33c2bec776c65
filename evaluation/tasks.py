"""Celery tasks of evaluation jobs (thin: the work is in ``runs.supervisor`` and the
services of each domain). They are queued by name through ``evaluation.dispatch`` only.

- ``evaluation.gpu_generate(run, shard)``: queue ``gpu`` (by its name); supervises the
  shard's runner process. Acks late with prefetch 1 (settings). A worker that dies mid-job
  is found by the shard's heartbeat (``runs.liveness``): the shard is queued again (a
  bounded number of times, then the run fails, resumable). The message, redelivered after
  the broker's visibility timeout, then does nothing.
- ``evaluation.score_run(run)``: queue ``default``; scores the stored outputs, writing the
  run's heartbeat: a worker that dies while scoring leaves the run failed by the sweep
  (Resume queues the scoring again); a redelivered task of a run not scoring does nothing.
- ``evaluation.gpu_generate_fallacies(job)``: queue ``gpu`` (by its name); one Prolog-checked
  generation job (``synthesis.services.run_job``; swipl in its own process), with
  a heartbeat: a worker that dies leaves the job failed by the sweep (launch it again).
- ``evaluation.compute_agreement(result)``: queue ``default``; every agreement figure of a
  project for one inputs hash (``agreement.jobs.compute``).
- ``evaluation.warm_results(run)``: queue ``default``; stores the default result boards
  that show a run just scored (``results.warm_run_boards``; best-effort, never fails).
"""

from __future__ import annotations

import os
import socket

from celery import shared_task
from django.conf import settings

from evaluation import dispatch
from evaluation.agreement.jobs import compute
from evaluation.results import warm_run_boards
from evaluation.runs.services import complete_scoring
from evaluation.runs.supervisor import supervise_shard
from evaluation.synthesis.services import run_job

RUN_TIME_LIMIT = settings.EVALUATION_RUN_TIME_LIMIT


@shared_task(
    name=dispatch.GPU_GENERATE,
    acks_late=True,
    reject_on_worker_lost=True,
    time_limit=RUN_TIME_LIMIT + 600,
    soft_time_limit=RUN_TIME_LIMIT + 300,
)
def gpu_generate(run_id: int, shard: int) -> str:
    return supervise_shard(
        run_id=run_id, shard=shard, worker=f"{socket.gethostname()}:{os.getpid()}"
    )


@shared_task(name=dispatch.SCORE_RUN, acks_late=True)
def score_run(run_id: int) -> str:
    return complete_scoring(run_id=run_id).status


@shared_task(name=dispatch.COMPUTE_AGREEMENT, acks_late=True)
def compute_agreement(result_id: int) -> str:
    return compute(result_id)


@shared_task(name=dispatch.GPU_GENERATE_FALLACIES, acks_late=True)
def gpu_generate_fallacies(job_id: int) -> str:
    return run_job(job_id).status


@shared_task(name=dispatch.WARM_RESULTS)
def warm_results(run_id: int) -> None:
    warm_run_boards(run_id)
