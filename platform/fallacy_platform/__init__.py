"""Project-wide wiring: settings, URLs, the Celery app (not in the bounded parsing child,
``fallacy_platform.bounded``, which needs neither Django nor Celery and starts faster
without them)."""

import os

if os.environ.get("FALLACY_BOUNDED_CHILD") != "1":
    from .celery import app as celery_app

    __all__ = ["celery_app"]
