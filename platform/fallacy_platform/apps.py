"""The project package as a Django app (its management commands, static files), and one
API-wide rule: integers are 64-bit."""

from __future__ import annotations

from typing import Any

from django.apps import AppConfig

MAX_INTEGER = 2**63 - 1


def bound_integer_fields() -> None:
    """Every DRF ``IntegerField`` without its own bounds refuses values beyond 64 bits (a 400
    naming the field) instead of handing them to the database: PostgreSQL matched nothing
    and SQLite raised OverflowError. The schema then documents the bounds too."""
    from rest_framework import serializers

    field = serializers.IntegerField
    if getattr(field.__init__, "bounded", False):
        return
    original = field.__init__

    def __init__(self: Any, **kwargs: Any) -> None:
        kwargs.setdefault("max_value", MAX_INTEGER)
        kwargs.setdefault("min_value", -MAX_INTEGER - 1)
        original(self, **kwargs)

    __init__.bounded = True  # type: ignore[attr-defined]
    field.__init__ = __init__


class FallacyPlatformConfig(AppConfig):
    name = "fallacy_platform"

    def ready(self) -> None:
        bound_integer_fields()
