"""The browser's session and its user, each read with one hand-written query.

Every request of the browser reads its session row, then its user. Django's database session
store and ``ModelBackend`` build and compile an ORM query for each: about 0.5 ms of Python
per request, an eighth of a document-list page (cProfile under ``bench/read_api.py``'s
requests; the two statements themselves take 0.3 ms). The rules are theirs, unchanged:

- ``SessionStore`` (``SESSION_ENGINE``): Django's ``sessions.backends.db`` (same table and
  encoding; an unknown or expired key is no session); only the load is SQL written out.
- ``UserBackend`` (``AUTHENTICATION_BACKENDS``): ``ModelBackend`` (same passwords,
  permissions and inactive-user rule); only ``get_user`` is SQL written out. Sessions
  created before it named ``ModelBackend``; they load as this backend's (the same users
  by the same rules), so nobody is logged out by the change.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from django.contrib.auth import BACKEND_SESSION_KEY, get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.sessions.backends import db
from django.contrib.sessions.models import Session
from django.core.exceptions import ValidationError
from django.db import connection
from django.utils import timezone

from fallacy_platform.rows import all_columns, instance

LEGACY_BACKEND = "django.contrib.auth.backends.ModelBackend"
BACKEND = f"{__name__}.UserBackend"


@cache
def _sql(vendor: str) -> dict[str, Any]:
    q = connection.ops.quote_name
    user_model = get_user_model()
    columns, fields = all_columns(user_model, "u")
    return {
        "session": (
            f"SELECT session_data FROM {q(Session._meta.db_table)}"
            " WHERE session_key = %s AND expire_date > %s"
        ),
        "user": (
            f"SELECT {columns} FROM {q(user_model._meta.db_table)} u"
            f" WHERE u.{q(user_model._meta.pk.column)} = %s"
        ),
        "user_fields": fields,  # in the statement's order
    }


class SessionStore(db.SessionStore):
    def _get_session_from_db(self) -> Session | None:
        now = connection.ops.adapt_datetimefield_value(timezone.now())
        with connection.cursor() as cursor:
            cursor.execute(_sql(connection.vendor)["session"], [self.session_key, now])
            row = cursor.fetchone()
        if row is None:
            self._session_key = None
            return None
        return Session(session_key=self.session_key, session_data=row[0])

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
