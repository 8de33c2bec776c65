"""DRF token authentication in one hand-written query.

Same rules as ``rest_framework.authentication.TokenAuthentication`` (whose answers and header
it keeps): the token's user, refused when the token is unknown or the user inactive. Every
token-authenticated request runs it.

- Replaces: DRF's ``authenticate_credentials`` (``Token.objects.select_related("user")
  .get(key=key)``), whose ORM query took longer to build and compile than to run.
- Pays: ``bench/fenced.py --only authentication``: DRF's takes 3.1 times as long (490
  against 160 us a call; a 2-core machine at load 2, median of 7 alternating rounds; 2.0
  times at load 15).
- Same answers:
  ``tests/platform/test_sessions.py::test_token_authentication_answers_as_drf_s`` (the same
  user and token, the same refusals as DRF's class) and
  ``test_users_read_by_hand_equal_the_orm_s``.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection
from django.utils.translation import gettext_lazy as _
from rest_framework import authentication, exceptions
from rest_framework.authtoken.models import Token

from fallacy_platform.rows import all_columns, instance


@cache
def _sql(vendor: str) -> tuple[str, list[str]]:
    """The statement and the user's fields in its column order."""
    q = connection.ops.quote_name
    user_model = get_user_model()
    columns, fields = all_columns(user_model, "u")
    sql = (
        f"SELECT {columns} FROM {q(user_model._meta.db_table)} u JOIN {q(Token._meta.db_table)} t"
        f" ON t.user_id = u.{q(user_model._meta.pk.column)} WHERE t.key = %s"
    )
    return sql, fields


class TokenAuthentication(authentication.TokenAuthentication):
    def authenticate_credentials(self, key: str) -> tuple[Any, Token]:
        sql, fields = _sql(connection.vendor)
        with connection.cursor() as cursor:
            cursor.execute(sql, [key])
            row = cursor.fetchone()
        if row is None:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        user = instance(get_user_model(), dict(zip(fields, row, strict=True)))
        if not user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        token = Token.from_db(None, ["key", "user_id"], [key, user.pk])  # created: deferred
        token.user = user
        return user, token
