"""The one module of the evaluation app that enqueues Celery tasks.

Tasks are sent by their names (below; ``evaluation.tasks`` registers them under the same
names), so the services that queue work never import the tasks, which import them. The
queue follows from the name (settings: ``*.gpu_*`` goes to the ``gpu`` queue).

A broker that refuses a message (Redis is away) is handled here, once: ``send`` runs the
caller's ``undo`` (it removes what waits for the work that will not run: the runs just
launched are deleted, a resumed run failed again) and raises ``QueueUnavailable``, which
the API answers with 503 and ``Retry-After`` (``fallacy_platform.errors``). A worker
queueing the next stage of a job itself uses ``send_patiently``, which waits out a broker
restart. With ``task_always_eager`` (tests only) the task runs in this process.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

from django.db import transaction
from fallacy_platform.celery import BROKER_ERRORS, app

logger = logging.getLogger(__name__)

GPU_GENERATE = "evaluation.gpu_generate"  # (run, shard): supervise the shard's runner
SCORE_RUN = "evaluation.score_run"  # (run): score its stored outputs
GPU_GENERATE_FALLACIES = "evaluation.gpu_generate_fallacies"  # (job): one generation job
COMPUTE_AGREEMENT = "evaluation.compute_agreement"  # (result): a project's agreement figures
WARM_RESULTS = "evaluation.warm_results"  # (run): store the default boards showing it

#: how long a worker queueing the next stage itself waits for the broker to come back
PATIENCE_SECONDS = 300.0

Message = tuple[str, Sequence[Any]]  # (task name, positional arguments)


class QueueUnavailable(RuntimeError):
    """The job queue refused a task (its broker is unavailable)."""


def send(*messages: Message, undo: Callable[[str], object] | None = None) -> None:
    """Publish each message in order. When the broker refuses one, ``undo(reason)`` runs
    and ``QueueUnavailable(reason)`` is raised."""
    try:
        for name, args in messages:
            _publish(name, args)
    except BROKER_ERRORS as error:
        # the reason is stored where a run's users read it: the broker's address and
        # message go to the operator's log only
        logger.warning("the job queue refused %s: %s", name, error)
        reason = "the job queue is unavailable"
        if undo is not None:
            undo(reason)
        raise QueueUnavailable(reason) from error


def send_patiently(
    *messages: Message,
    undo: Callable[[str], object] | None = None,
    patience: float = PATIENCE_SECONDS,
) -> None:
    """``send``, trying again (every 1, 2, 4, then 5 s) while the broker refuses, for up to
    ``patience`` seconds; then ``undo(reason)`` runs and ``QueueUnavailable`` is raised.

    kombu's own publish retries give up after its connect timeout (2 s) when the process
    has no broker connection yet (a pool process's first message), so the waiting is
    done here. A message may be sent twice when the broker fails between two of them: the
    tasks sent this way do nothing the second time (``claim_scoring``)."""
    deadline, wait = time.monotonic() + patience, 1.0
    while True:
        try:
            send(*messages)
            return
        except QueueUnavailable:
            if time.monotonic() + wait > deadline:
                if undo is not None:
                    undo("the job queue is unavailable")
                raise
        time.sleep(wait)
        wait = min(wait * 2, 5.0)


def send_on_commit(*messages: Message, undo: Callable[[str], object] | None = None) -> None:
    """``send`` once the current transaction commits, so that a worker never looks for a
    row that is not there yet."""
    transaction.on_commit(lambda: send(*messages, undo=undo))


def _publish(name: str, args: Sequence[Any]) -> None:
    if app.conf.task_always_eager:
        app.loader.import_default_modules()  # registers the tasks, which then run here
    app.signature(name, args=tuple(args)).apply_async(ignore_result=app.conf.task_ignore_result)
