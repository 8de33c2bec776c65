"""The one module that queues Celery tasks, with one contract for a broker that refuses.

Tasks are referenced by their objects. An app declares its tasks in one leaf module
(``evaluation.queued``, ``annotations.queued``) with ``declare``: the declaration gives the
task's name, options and arguments, and is what callers queue
(``send(gpu_generate.s(run.pk, index))``). The work behind a declaration is bound with
``performs`` by the app's ``tasks`` module, which Celery imports in every worker (and
``_publish`` imports when tasks run eagerly). So a service that queues a task imports its
declaration only, never the modules that do its work (which import the service). A task's
queue follows from its name (settings ``CELERY_TASK_ROUTES``: ``*.gpu_*`` goes to ``gpu``).

A broker that refuses a message (Redis is away) is handled here, once: ``send`` runs the
caller's ``undo`` (it removes or fails what waits for the work that will not run) and raises
``QueueUnavailable``, which the API answers with 503 and ``Retry-After``
(``fallacy_platform.errors``); a caller that answers otherwise (a job that records the
failure) catches it. A worker queueing the next stage of a job itself uses
``send_patiently``, which waits out a broker restart. With ``task_always_eager`` (tests
only) the task runs in this process.
"""

from __future__ import annotations

import functools
import inspect
import logging
import time
from collections.abc import Callable
from typing import Any, TypeVar

from celery import Task, shared_task
from celery.canvas import Signature
from django.db import transaction

from fallacy_platform.celery import BROKER_ERRORS, app

logger = logging.getLogger(__name__)

#: how long a worker queueing the next stage itself waits for the broker to come back
PATIENCE_SECONDS = 300.0
#: the reason ``undo`` is given and ``QueueUnavailable`` says (the broker's address and
#: message go to the operator's log only)
UNAVAILABLE = "the job queue is unavailable"

Message = Signature  # a declared task with its arguments: ``task.s(*args)``
Work = TypeVar("Work", bound=Callable[..., Any])

_work: dict[str, Callable[..., Any]] = {}  # task name -> the function that does its work


class QueueUnavailable(RuntimeError):
    """The job queue refused a task (its broker is unavailable)."""


# --- declaring tasks ------------------------------------------------------------------------


def declare(name: str, **options: Any) -> Callable[[Callable[..., Any]], Task]:
    """Declare the Celery task ``name`` (with Celery's task ``options``); the decorated
    function gives its arguments (checked when a message is published) and its docstring.
    Running it runs the work that ``performs`` bound to it."""

    def declaration(arguments: Callable[..., Any]) -> Task:
        @functools.wraps(arguments)
        def run(*args: Any, **kwargs: Any) -> Any:
            work = _work.get(name)
            if work is None:
                raise LookupError(f"no work is bound to the task {name} in this process")
            return work(*args, **kwargs)

        run.__signature__ = inspect.signature(arguments)  # type: ignore[attr-defined]
        return shared_task(name=name, **options)(run)

    return declaration


def performs(task: Task) -> Callable[[Work], Work]:
    """Bind the decorated function as the work of the declared ``task``."""

    def bind(work: Work) -> Work:
        _work[task.name] = work
        return work

    return bind


def bound(task: Task) -> bool:
    """Whether work is bound to ``task`` in this process."""
    return task.name in _work


# --- sending --------------------------------------------------------------------------------


def send(*messages: Message, undo: Callable[[str], object] | None = None) -> None:
    """Publish each message (a task's signature: ``task.s(*args)``) in order. When the
    broker refuses one, ``undo(reason)`` runs and ``QueueUnavailable(reason)`` is raised."""
    try:
        for message in messages:
            _publish(message)
    except BROKER_ERRORS as error:
        logger.warning("the job queue refused %s: %s", message.task, error)
        if undo is not None:
            undo(UNAVAILABLE)
        raise QueueUnavailable(UNAVAILABLE) from error


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
                    undo(UNAVAILABLE)
                raise
        time.sleep(wait)
        wait = min(wait * 2, 5.0)


def send_on_commit(*messages: Message, undo: Callable[[str], object] | None = None) -> None:
    """``send`` once the current transaction commits, so that a worker never looks for a
    row that is not there yet."""
    transaction.on_commit(lambda: send(*messages, undo=undo))


def _publish(message: Message) -> None:
    if app.conf.task_always_eager:
        app.loader.import_default_modules()  # binds the tasks' work, which then runs here
    message.apply_async(ignore_result=app.conf.task_ignore_result)
