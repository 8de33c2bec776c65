"""The Celery app: queues ``default`` (CPU work) and ``gpu`` (model inference).

Every worker sweeps for jobs whose process died (``fallacy_platform.liveness``) when it is
ready and then periodically. Its consumer survives a lost Redis connection (``Consumer``).
"""

import logging
import os

from celery import Celery
from celery.signals import worker_ready
from celery.worker.consumer import Consumer as CeleryConsumer
from kombu import Exchange, Queue
from kombu.exceptions import OperationalError as KombuOperationalError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fallacy_platform.settings")

logger = logging.getLogger(__name__)

#: what publishing a task raises while the broker (or the Redis result backend) is away
BROKER_ERRORS: tuple[type[BaseException], ...] = (
    KombuOperationalError,
    RedisConnectionError,
    RedisTimeoutError,
    ConnectionError,
)

app = Celery("fallacy_platform")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.task_queues = tuple(
    Queue(name, Exchange(name, type="direct"), routing_key=name) for name in ("default", "gpu")
)
app.autodiscover_tasks()


class Consumer(CeleryConsumer):
    """Celery's consumer, reconnecting after a lost Redis connection instead of exiting.

    On a lost connection Celery 5.7 first collects the connection (kombu then forgets the
    transport's client) and closes it again; the Redis channel's second close, restoring
    the unacknowledged messages, then raises ``AttributeError`` (no client), which ended
    the worker ("Unrecoverable error"), as did the late acknowledgement of a task that
    was running then. The connection is gone either way: reconnect, and give the old
    transport its client back so that those tasks acknowledge once the broker is back.
    The running tasks keep running (``worker_cancel_long_running_tasks_on_connection_loss``
    is off); a job whose worker dies is found by its heartbeat, not by redelivery.
    """

    def on_connection_error_after_connected(self, exc: Exception) -> None:
        transport = getattr(self.connection, "_transport", None)
        client = getattr(transport, "client", None)
        try:
            super().on_connection_error_after_connected(exc)
        except AttributeError:
            logger.warning("broker connection lost (%r); reconnecting", exc)
            self.connection = None
        finally:
            if transport is not None and client is not None:
                transport.client = client


@worker_ready.connect
def start_job_sweeper(sender=None, **kwargs) -> None:
    from fallacy_platform.liveness import start_sweeper

    start_sweeper()
