"""Authentication endpoints: session login for the browser (CSRF-protected), tokens for scripts.

The browser first calls ``GET /api/auth/csrf/`` to get the ``csrftoken`` cookie, then sends
it back as the ``X-CSRFToken`` header on every unsafe request (login included).
"""

from __future__ import annotations

from django.contrib.auth import authenticate, login, logout
from django.utils.decorators import method_decorator
from django.views.decorators.csrf import ensure_csrf_cookie
from drf_spectacular.utils import OpenApiResponse, extend_schema
from fallacy_platform.throttling import LOGIN_THROTTLES, record_failed_login
from rest_framework import status
from rest_framework.authentication import SessionAuthentication
from rest_framework.authtoken.models import Token
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotations.api.serializers import (
    CredentialsSerializer,
    EmptySerializer,
    MeSerializer,
    TokenSerializer,
    UserBriefSerializer,
)
from annotations.selectors.access import effective_role, projects_for, roles_by_project
from annotations.selectors.policy import may_create_projects


def _authenticate(request: Request, view: APIView) -> object:
    data = CredentialsSerializer(data=request.data)
    data.is_valid(raise_exception=True)  # malformed: a 400, not a guess to count
    user = authenticate(
        request._request,
        username=data.validated_data["username"],
        password=data.validated_data["password"],
    )
    if user is None:
        record_failed_login(request, view)
        raise ValidationError(
            {"non_field_errors": ["unknown username or wrong password (or inactive account)"]}
        )
    return user


class CsrfView(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list = []

    @extend_schema(
        tags=["auth"], summary="Set the csrftoken cookie", responses={200: EmptySerializer}
    )
    @method_decorator(ensure_csrf_cookie)
    def get(self, request: Request) -> Response:
        return Response({})


class LoginView(APIView):
    """Session login. CSRF is enforced here too (login CSRF), so get the cookie first.

    Failed attempts are limited per address and per username (``fallacy_platform.throttling``):
    past the limit every attempt is a 429 with ``Retry-After``.
    """

    permission_classes = [AllowAny]
    authentication_classes: list = []
    throttle_classes = LOGIN_THROTTLES

    @extend_schema(
        tags=["auth"],
        summary="Log in (session)",
        request=CredentialsSerializer,
        responses={200: UserBriefSerializer, 400: OpenApiResponse(description="bad credentials")},
    )
    def post(self, request: Request) -> Response:
        SessionAuthentication().enforce_csrf(request)  # 403 without the csrftoken
        user = _authenticate(request, self)
        login(request._request, user)
        return Response({"id": user.pk, "username": user.get_username()})


class LogoutView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(tags=["auth"], summary="Log out", request=None, responses={204: None})
    def post(self, request: Request) -> Response:
        logout(request._request)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MeView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(tags=["auth"], summary="The current user", responses={200: MeSerializer})
    def get(self, request: Request) -> Response:
        user = request.user
        roles = roles_by_project(user)
        projects = [
            {
                "id": p.pk,
                "name": p.name,
                "role": effective_role(user, roles.get(p.pk)),
                "archived": p.archived_at is not None,
            }
            for p in projects_for(user).order_by("name")
        ]
        return Response(
            {
                "id": user.pk,
                "username": user.get_username(),
                "is_staff": user.is_staff,
                "is_superuser": user.is_superuser,
                "can_create_projects": may_create_projects(user),
                "projects": projects,
            }
        )


class TokenView(APIView):
    """A DRF auth token for scripts: send it as ``Authorization: Token <token>``.

    Throttled like the login (failed attempts per address and per username)."""

    permission_classes = [AllowAny]
    authentication_classes: list = []
    throttle_classes = LOGIN_THROTTLES

    @extend_schema(
        tags=["auth"],
        summary="Get an API token",
        request=CredentialsSerializer,
        responses={200: TokenSerializer, 400: OpenApiResponse(description="bad credentials")},
    )
    def post(self, request: Request) -> Response:
        user = _authenticate(request, self)
        token, _ = Token.objects.get_or_create(user=user)
        return Response({"token": token.key})
