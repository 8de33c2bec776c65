"""The annotation app's Celery tasks as the code that queues them sees them: each task's
name, options and arguments (``fallacy_platform.dispatch.declare``). Callers queue them
through ``fallacy_platform.dispatch``; ``annotations.tasks`` binds the work behind each, so
this module imports no service.

- ``run_import_job(job)``: queue ``default`` (the name is not ``*.gpu_*``); imports a large
  uploaded file. Acks late; the service claims a job once, so a redelivered message does
  nothing. A worker that dies mid-import stops the job's heartbeat: the workers' sweep
  fails the job (``importing.liveness``; nothing was imported), and its admin uploads the
  file again.
"""

from __future__ import annotations

from fallacy_platform.dispatch import declare


@declare("annotations.run_import_job", acks_late=True)
def run_import_job(job_id: int) -> str:
    """Run one import job; the job's status."""
