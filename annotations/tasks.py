"""The work behind the annotation app's Celery tasks (thin: the work is in ``importing``).
Celery imports this module in every worker; the tasks are declared in
``annotations.queued``, which is what callers queue through ``fallacy_platform.dispatch``."""

from __future__ import annotations

from fallacy_platform.dispatch import performs

from annotations import queued
from annotations.importing.jobs import run_import_job as run_job


@performs(queued.run_import_job)
def run_import_job(job_id: int) -> str:
    return run_job(job_id=job_id).status
