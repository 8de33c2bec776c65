"""Operational tasks: one per queue, so a deployment can check its workers end to end."""

import os
import socket

from celery import shared_task
from django.db import connection


def _worker_facts(queue: str) -> dict[str, str | bool]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    try:
        import torch

        cuda = bool(torch.cuda.is_available())
    except ImportError:
        cuda = False
    return {
        "queue": queue,
        "hostname": socket.gethostname(),
        "pid": str(os.getpid()),
        "database": connection.vendor,
        "cuda": cuda,
    }


@shared_task(name="fallacy_platform.ping", ignore_result=False)
def ping() -> dict[str, str | bool]:
    """Answers from a worker of the default queue after touching the database."""
    return _worker_facts("default")


@shared_task(name="fallacy_platform.gpu_ping", ignore_result=False)
def gpu_ping() -> dict[str, str | bool]:
    """Answers from a worker of the gpu queue (routed there by its name)."""
    return _worker_facts("gpu")
