"""What the adjudication and gold tests (tests/annotations/services/test_gold_*.py and
test_adjudication_queue.py) share: the ``World`` with two annotators' submitted spans on its
first document, a client logged in as a user, the document's adjudication URL, and a helper
running a target in a thread with its own database connection."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from django.contrib.auth.models import User
from django.utils import timezone
from rest_framework.test import APIClient

from annotations.models import Annotation, Span
from tests.support.factories import BOUNDS, World, make_world

S0, S1, S2 = BOUNDS[0], BOUNDS[1], BOUNDS[2]


def adjudication_world() -> World:
    """ann1 marks the first and third sentences, ann2 the first two; both submitted."""
    world = make_world()
    Span.objects.create(annotation=world.a1, start=S0[0], end=S0[1], labels=["ad hominem"])
    Span.objects.create(annotation=world.a2, start=S0[0], end=S1[1], labels=["slippery slope"])
    Span.objects.create(annotation=world.a1, start=S2[0], end=S2[1], labels=["slippery slope"])
    Annotation.objects.filter(pk__in=[world.a1.pk, world.a2.pk]).update(
        status="submitted", submitted_at=timezone.now()
    )
    return world


def client(user: User) -> APIClient:
    c = APIClient()
    c.force_authenticate(user)
    return c


def url(world: World) -> str:
    """The adjudication endpoint of the world's first document."""
    return f"/api/documents/{world.d1.pk}/adjudication/"


def in_thread(target: Callable[..., Any], *args: Any) -> threading.Thread:
    """Starts ``target(*args)`` in a thread that closes its database connection when done."""

    def run() -> None:
        from django.db import connection as thread_connection

        try:
            target(*args)
        finally:
            thread_connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread
