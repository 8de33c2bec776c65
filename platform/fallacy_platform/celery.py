"""The Celery app: queues ``default`` (CPU work) and ``gpu`` (model inference)."""

import os

from celery import Celery
from kombu import Queue

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fallacy_platform.settings")

app = Celery("fallacy_platform")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.task_queues = (Queue("default"), Queue("gpu"))
app.autodiscover_tasks()
