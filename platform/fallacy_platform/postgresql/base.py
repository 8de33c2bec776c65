"""Django's PostgreSQL backend, with a health check that costs no round trip when it can.

With ``CONN_HEALTH_CHECKS`` (settings.py: a restarted server must cost no failed request),
Django sends ``SELECT 1`` on a kept connection before the first query of every request: one
round trip of a span write's seven, a tenth of its time under load (py-spy on a gunicorn
worker under ``bench/annotate_api.py``'s 8 clients). A server that closed the connection,
or was restarted, has sent an error or the end of the stream, so the idle connection's
socket is readable: here a socket with nothing to read and an idle session is taken as
healthy without asking the server, and anything else gets Django's ``SELECT 1`` as before.
The check after a failed request (``close_if_unusable_or_obsolete``) is Django's, unchanged.
"""

from __future__ import annotations

import select

from django.db.backends.postgresql import base
from psycopg import pq


class DatabaseWrapper(base.DatabaseWrapper):
    def close_if_health_check_failed(self) -> None:
        if (
            self.connection is not None
            and self.health_check_enabled
            and not self.health_check_done
            and not self.pool
            and self._quiet()
        ):
            self.health_check_done = True
            return
        super().close_if_health_check_failed()

    def _quiet(self) -> bool:
        """Nothing arrived on the idle connection since its last use."""
        connection = self.connection
        if connection.closed or connection.broken:
            return False
        if connection.info.transaction_status != pq.TransactionStatus.IDLE:
            return False
        try:
            poller = select.poll()
            poller.register(connection.fileno(), select.POLLIN | select.POLLPRI)
            return not poller.poll(0)
        except (OSError, ValueError):
            return False
