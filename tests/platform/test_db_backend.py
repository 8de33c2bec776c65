"""The PostgreSQL backend's health check (``fallacy_platform.postgresql``): a kept
connection whose socket is quiet is reused without a round trip; one the server closed is
replaced before the request uses it (so a restarted server costs no failed request)."""

from __future__ import annotations

import time

import pytest
from django.conf import settings
from django.db import connection, connections

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(settings.DATABASE_VENDOR != "postgresql", reason="PostgreSQL backend"),
]


def new_request(wrapper) -> None:
    """What Django does between two requests on a kept connection."""
    wrapper.health_check_done = False
    wrapper.close_if_health_check_failed()


def test_quiet_connections_are_kept_without_a_round_trip_and_closed_ones_replaced() -> None:
    wrapper = connections.create_connection("default")
    wrapper.health_check_enabled = True
    try:
        wrapper.ensure_connection()
        kept = wrapper.connection
        pid = kept.info.backend_pid

        def no_select(*args, **kwargs):
            raise AssertionError("a quiet connection was checked with a round trip")

        wrapper.is_usable = no_select
        new_request(wrapper)
        assert wrapper.connection is kept and wrapper.health_check_done
        del wrapper.is_usable

        with connection.cursor() as cursor:  # the server ends that session
            cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
        deadline = time.monotonic() + 10
        while wrapper._quiet() and time.monotonic() < deadline:
            time.sleep(0.05)
        new_request(wrapper)
        assert wrapper.connection is None  # closed before any query failed
        with wrapper.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            assert cursor.fetchone()[0] != pid
    finally:
        wrapper.close()
