"""The Celery app: queues ``default`` (CPU work) and ``gpu`` (model inference)."""

import os

from celery import Celery
from kombu import Exchange, Queue

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fallacy_platform.settings")

app = Celery("fallacy_platform")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.task_queues = tuple(
    Queue(name, Exchange(name, type="direct"), routing_key=name) for name in ("default", "gpu")
)
app.autodiscover_tasks()
