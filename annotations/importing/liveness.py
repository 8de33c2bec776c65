"""Liveness of import jobs (see ``fallacy_platform.liveness``).

A ``running`` import job is imported by one process (a Celery worker, or the web process
for a small file) that writes the job's ``heartbeat_at`` every ``JOB_HEARTBEAT_SECONDS``.
When that process dies, the workers' sweep finds the heartbeat older than
``JOB_STALE_SECONDS`` and fails the job: an import is all or nothing, so nothing of it was
imported, and its admin uploads the file again.
"""

from __future__ import annotations

from datetime import timedelta

from django.db.models import Q
from django.utils import timezone
from fallacy_platform.liveness import fail_each

from annotations.importing.validation import error_entry
from annotations.models import ImportJob, ImportUpload


def beat_import_job(*, job_id: int) -> None:
    ImportJob.objects.filter(pk=job_id, status=ImportJob.Status.RUNNING).update(
        heartbeat_at=timezone.now()
    )


def fail_stale_import_jobs(*, stale_after: float) -> list[str]:
    """Fail every running import job whose heartbeat is older than ``stale_after``
    seconds; returns what it did, one line each. Each job is failed by a conditional
    update, so a job that finishes meanwhile keeps its own end."""
    cutoff = timezone.now() - timedelta(seconds=stale_after)
    stale = Q(heartbeat_at__lt=cutoff) | Q(heartbeat_at__isnull=True, started_at__lt=cutoff)
    message = (
        f"the process importing it died (no heartbeat for over {stale_after:.0f} s); "
        "nothing was imported: upload the file again"
    )
    failed = fail_each(
        ImportJob.objects.all(),
        stale & Q(status=ImportJob.Status.RUNNING),
        line="import job {pk}: failed",
        status=ImportJob.Status.FAILED,
        errors=[error_entry(None, None, message)],
        finished_at=timezone.now(),
    )
    ImportUpload.objects.filter(job__status=ImportJob.Status.FAILED).delete()
    return failed
