"""The work behind the evaluation app's Celery tasks (thin: the work is in ``runs.supervisor``
and the services of each domain). Celery imports this module in every worker; the tasks are
declared, with their queues and options, in ``evaluation.queued``, which is what callers
queue through ``fallacy_platform.dispatch``."""

from __future__ import annotations

import os
import socket

from fallacy_platform.dispatch import performs

from evaluation import queued
from evaluation.agreement.jobs import compute
from evaluation.results import warm_run_boards
from evaluation.runs.services import complete_scoring
from evaluation.runs.supervisor import supervise_shard
from evaluation.synthesis.generation import run_job


@performs(queued.gpu_generate)
def gpu_generate(run_id: int, shard: int) -> str:
    return supervise_shard(
        run_id=run_id,
        shard=shard,
        worker=f"{socket.gethostname()}:{os.getpid()}",
        node=celery_node(),
    )


def celery_node() -> str:
    """The Celery worker running this task, as ``name:pid`` of its main process (the pool's
    child processes share it; two workers given one name on a host still differ)."""
    from billiard.process import current_process
    from celery import current_task

    name = getattr(getattr(current_task, "request", None), "hostname", None)
    main = os.getppid() if getattr(current_process(), "_parent_pid", None) else os.getpid()
    return f"{name or socket.gethostname()}:{main}"


@performs(queued.score_run)
def score_run(run_id: int) -> str:
    return complete_scoring(run_id=run_id).status


@performs(queued.compute_agreement)
def compute_agreement(result_id: int) -> str:
    return compute(result_id)


@performs(queued.gpu_generate_fallacies)
def gpu_generate_fallacies(job_id: int) -> str:
    return run_job(job_id).status


@performs(queued.warm_results)
def warm_results(run_id: int) -> None:
    warm_run_boards(run_id)
