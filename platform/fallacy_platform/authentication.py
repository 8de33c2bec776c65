"""DRF token authentication in one hand-written query.

Same rules as ``rest_framework.authentication.TokenAuthentication`` (whose answers and header
it keeps): the token's user, refused when the token is unknown or the user inactive. Every
token-authenticated request runs it; building and compiling DRF's ORM query took about a
fifth of a span write's CPU (bench/annotate_api.py, tests/test_write_query_counts.py).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.utils.translation import gettext_lazy as _
from rest_framework import authentication, exceptions
from rest_framework.authtoken.models import Token


class TokenAuthentication(authentication.TokenAuthentication):
    def authenticate_credentials(self, key: str) -> tuple[Any, Token]:
        user_model = get_user_model()
        sql = (
            f"SELECT u.* FROM {user_model._meta.db_table} u "
            f"JOIN {Token._meta.db_table} t ON t.user_id = u.{user_model._meta.pk.column} "
            "WHERE t.key = %s"
        )
        users = list(user_model.objects.raw(sql, [key]))
        if not users:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        user = users[0]
        if not user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        token = Token.from_db(None, ["key", "user_id"], [key, user.pk])  # created: deferred
        token.user = user
        return user, token
