"""Celery tasks of the annotation app (thin: the work is in ``services``).

- ``annotations.run_import_job(job)``: queue ``default`` (the default queue; the name is
  not ``*.gpu_*``); imports a large uploaded file. Acks late; the service claims a job
  once, so a redelivered message does nothing. A worker that dies mid-import stops the
  job's heartbeat: the workers' sweep fails the job (``importing.liveness``; nothing was
  imported), and its admin uploads the file again.
"""

from __future__ import annotations

from celery import shared_task

from annotations import dispatch
from annotations.importing.jobs import run_import_job as run_job


@shared_task(name=dispatch.RUN_IMPORT_JOB, acks_late=True)
def run_import_job(job_id: int) -> str:
    return run_job(job_id=job_id).status
