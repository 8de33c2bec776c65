"""SQLite's write-ahead log back to (almost) nothing after a large write.

A transaction's pages all go to the ``-wal`` file before a checkpoint copies them into the
database; the file is reused from its start afterwards but not made smaller, so one large
import leaves it at the import's size. ``journal_size_limit`` (settings) cuts it back at
the first write after a checkpoint that emptied it; ``checkpoint_wal`` does it now: a
TRUNCATE checkpoint, which waits for readers of older pages at most ``wait_ms`` (the next
write's checkpoint then does it). Nothing on PostgreSQL or inside a transaction.
"""

from __future__ import annotations

from django.db import connections


def checkpoint_wal(*, using: str = "default", wait_ms: int = 2_000) -> bool:
    """Copy the log into the database and truncate it. True when it is now empty; False on
    PostgreSQL, inside a transaction, or when readers kept it (busy)."""
    connection = connections[using]
    if connection.vendor != "sqlite" or connection.in_atomic_block:
        return False
    # back to the busy timeout of the settings afterwards (Python's sqlite3 default: 5 s)
    busy_ms = int(float(connection.settings_dict["OPTIONS"].get("timeout", 5)) * 1000)
    with connection.cursor() as cursor:
        cursor.execute(f"PRAGMA busy_timeout = {int(wait_ms)}")
        try:
            cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            busy, _, _ = cursor.fetchone()
        finally:
            cursor.execute(f"PRAGMA busy_timeout = {busy_ms}")
    return busy == 0
