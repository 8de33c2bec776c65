"""Queueing the annotation app's Celery tasks, by name (``annotations.tasks`` declares them;
this module does not import it, so the services that queue work do not import the tasks
that call them).

A publish that fails (the broker away) is handled here, once: it is logged and handed to the
caller's ``on_failure``, which records it where the user sees it (an import job fails with it).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from celery import current_app

logger = logging.getLogger(__name__)

RUN_IMPORT_JOB = "annotations.run_import_job"  # queue ``default``
TASKS = (RUN_IMPORT_JOB,)


def enqueue(task: str, *, args: Sequence[Any], on_failure: Callable[[Exception], object]) -> bool:
    """Queue the task named ``task`` with ``args``; True when the broker took it. A failure is
    logged and passed to ``on_failure``, and False is returned."""
    try:
        current_app.signature(task, args=list(args)).apply_async()
    except Exception as error:  # noqa: BLE001 - whatever publishing raised: not queued
        logger.exception("could not queue %s%r", task, tuple(args))
        on_failure(error)
        return False
    return True


def run_import_job(job_id: int, *, on_failure: Callable[[Exception], object]) -> bool:
    return enqueue(RUN_IMPORT_JOB, args=[job_id], on_failure=on_failure)
