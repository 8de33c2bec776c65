"""Liveness of Prolog generation jobs (see ``fallacy_platform.liveness``).

A ``running`` generation job is run by one worker (``evaluation.gpu_generate_fallacies``)
that claims it (``claim_generation_job``) and writes its ``heartbeat_at`` every
``JOB_HEARTBEAT_SECONDS``. When that worker dies, the workers' sweep finds the heartbeat
older than ``JOB_STALE_SECONDS`` and fails the job, saying so; launching the same job again
sends only the requests the dead one had no answer for (the rest come from the cache).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db.models import Q
from django.utils import timezone
from fallacy_platform.liveness import fail_each, stale_seconds

from evaluation.models import GenerationJob


def _dead(*, before: datetime) -> Q:
    """A running job with no heartbeat since ``before`` (rows from before heartbeats count
    from their start)."""
    return Q(status=GenerationJob.Status.RUNNING) & (
        Q(heartbeat_at__lt=before)
        | Q(heartbeat_at__isnull=True, started_at__lt=before)
        | Q(heartbeat_at__isnull=True, started_at__isnull=True)
    )


def claim_generation_job(*, job_id: int) -> bool:
    """Start a job in this worker: True when it is queued, or running for a worker that
    died (its task redelivered). A redelivered task of a live, finished or failed job
    does nothing (a failed job is launched again, not revived by the broker)."""
    now = timezone.now()
    claimable = Q(status=GenerationJob.Status.QUEUED) | _dead(
        before=now - timedelta(seconds=stale_seconds())
    )
    return bool(
        GenerationJob.objects.filter(claimable, pk=job_id).update(
            status=GenerationJob.Status.RUNNING, started_at=now, heartbeat_at=now, error=""
        )
    )


def beat_generation_job(*, job_id: int) -> None:
    GenerationJob.objects.filter(pk=job_id, status=GenerationJob.Status.RUNNING).update(
        heartbeat_at=timezone.now()
    )


def fail_stale_generation_jobs(*, stale_after: float) -> list[str]:
    """Fail every running generation job whose heartbeat is older than ``stale_after``
    seconds; returns what it did, one line each. Each job is failed by a conditional
    update, so a job that finishes meanwhile keeps its own end."""
    dead = _dead(before=timezone.now() - timedelta(seconds=stale_after))
    error = (
        f"the worker running it died (no heartbeat for over {stale_after:.0f} s); launch it"
        " again: the requests it already sent are answered from the cache"
    )
    return fail_each(
        GenerationJob.objects.all(),
        dead,
        line="generation job {pk}: failed",
        status=GenerationJob.Status.FAILED,
        error=error,
        finished_at=timezone.now(),
    )
