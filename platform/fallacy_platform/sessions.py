"""The browser's session (Django's ``cached_db`` store) and its user (one hand-written query).

- ``SessionStore`` (``SESSION_ENGINE``): Django's ``sessions.backends.cached_db`` on the
  configured cache (``CACHES``): a session is read from the cache, and from the database
  (then cached until it expires) when the cache does not hold it. Sessions saved naming
  ``ModelBackend`` load as ``UserBackend``'s (the same users by the same rules), so nobody
  who logged in through ``ModelBackend`` is logged out. A cache that cannot be reached (a
  restarting Redis) is skipped: sessions are then read from and written to the database only.
  So is a cache the web processes do not all share (``SESSION_CACHE_SHARED`` false: each
  host's own files), where a logout on one host would leave the session cached on another.
- ``UserBackend`` (``AUTHENTICATION_BACKENDS``): ``ModelBackend`` (same passwords,
  permissions and inactive-user rule); only ``get_user``, read on every browser request, is
  SQL written out. Measured with the session's read (cProfile under ``bench/read_api.py``'s
  requests): the ORM's two queries, session and user, cost about 0.5 ms of Python a request,
  an eighth of a document-list page, against 0.3 ms for the two statements themselves.
"""

from __future__ import annotations

import logging
from functools import cache
from typing import Any

from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.sessions.backends import cached_db
from django.core.exceptions import ValidationError
from django.db import connection

from fallacy_platform.rows import all_columns, instance

logger = logging.getLogger(__name__)
LEGACY_BACKEND = "django.contrib.auth.backends.ModelBackend"
BACKEND = f"{__name__}.UserBackend"


@cache
def _sql(vendor: str) -> dict[str, Any]:
    q = connection.ops.quote_name
    user_model = get_user_model()
    columns, fields = all_columns(user_model, "u")
    return {
        "user": (
            f"SELECT {columns} FROM {q(user_model._meta.db_table)} u"
            f" WHERE u.{q(user_model._meta.pk.column)} = %s"
        ),
        "user_fields": fields,  # in the statement's order
    }


class _TolerantCache:
    """The session cache, where a failing call is logged and counts as a miss."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._inner, name)
        if not callable(method):
            return method

        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return method(*args, **kwargs)
            except Exception as error:  # noqa: BLE001 - the database still holds the session
                logger.warning("session cache %s failed: %s", name, error)
                return None

        return call

    def __contains__(self, key: str) -> bool:
        return bool(self.has_key(key))


class _NoCache:
    """A cache that holds nothing: every session is read from the database."""

    def get(self, key: str, default: Any = None) -> Any:
        return default

    def set(self, *args: Any, **kwargs: Any) -> None:
        return None

    def delete(self, *args: Any, **kwargs: Any) -> None:
        return None

    async def aget(self, key: str, default: Any = None) -> Any:
        return default

    async def aset(self, *args: Any, **kwargs: Any) -> None:
        return None

    async def adelete(self, *args: Any, **kwargs: Any) -> None:
        return None

    def __contains__(self, key: str) -> bool:
        return False


class SessionStore(cached_db.SessionStore):
    def __init__(self, session_key: str | None = None) -> None:
        super().__init__(session_key)
        shared = settings.SESSION_CACHE_SHARED
        self._cache = _TolerantCache(self._cache) if shared else _NoCache()

    def load(self) -> dict[str, Any]:
        data = super().load()
        if data.get(BACKEND_SESSION_KEY) == LEGACY_BACKEND:
            data[BACKEND_SESSION_KEY] = BACKEND  # read so, not saved: nothing is written
        return data


class UserBackend(ModelBackend):
    def get_user(self, user_id: Any) -> Any:
        user_model = get_user_model()
        try:
            pk = user_model._meta.pk.to_python(user_id)
        except ValidationError:
            return None
        sql = _sql(connection.vendor)
        with connection.cursor() as cursor:
            cursor.execute(sql["user"], [pk])
            row = cursor.fetchone()
        if row is None:
            return None
        user = instance(user_model, dict(zip(sql["user_fields"], row, strict=True)))
        return user if self.user_can_authenticate(user) else None
