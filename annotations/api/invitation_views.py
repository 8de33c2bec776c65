"""Invitations over REST: a project admin creates, lists and revokes them; whoever holds the
link opens it and joins (with their account when signed in, else with a new one).

The holder's endpoints need no account. A token that matches nothing is a 404, one accepted,
revoked or expired a 410; neither says which project it was for. Failed attempts (a bad
token, a taken username) count against the login throttles (per address and username), so
neither tokens nor usernames can be guessed at speed.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import login
from django.core.exceptions import ValidationError as DjangoValidationError
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from fallacy_platform.api.lookups import member_project
from fallacy_platform.api.mixins import ServiceErrorsMixin
from fallacy_platform.throttling import LOGIN_THROTTLES, record_failed_login
from rest_framework import status
from rest_framework.authentication import SessionAuthentication
from rest_framework.exceptions import APIException, NotFound, ValidationError
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotations.api.invitation_serializers import (
    AcceptedSerializer,
    AcceptSerializer,
    InvitationCreateSerializer,
    InvitationSerializer,
    InvitationViewSerializer,
    NewInvitationSerializer,
)
from annotations.models import Membership
from annotations.selectors.invitations import (
    invitation_for_token,
    invitation_state,
    pending_invitations,
)
from annotations.selectors.policy import may_manage_members
from annotations.services import invitations

MANAGERS = "only the project's admins invite"
UNKNOWN = "no invitation has this link; check that it was copied whole"
GONE = "this invitation was used, revoked or has expired; ask the project's admin for a new one"


class InvitationGoneError(APIException):
    status_code = status.HTTP_410_GONE
    default_detail = GONE
    default_code = "gone"


def _link(request: Request, token: str) -> str:
    return request.build_absolute_uri(f"/invite/{token}/")


class ProjectInvitationsView(ServiceErrorsMixin, APIView):
    @extend_schema(
        tags=["members"],
        summary="The project's pending invitations (project admins)",
        responses={200: InvitationSerializer(many=True)},
    )
    def get(self, request: Request, pk: int) -> Response:
        project = member_project(request, pk, may_manage_members, MANAGERS)
        return Response(InvitationSerializer(pending_invitations(project), many=True).data)

    @extend_schema(
        tags=["members"],
        summary="Invite someone with a role (project admins)",
        description="201 with the single-use link (shown only here) and whether it was "
        "e-mailed (only when the operator configured e-mail and an address is given). The "
        "link expires after INVITATION_MAX_AGE_DAYS.",
        request=InvitationCreateSerializer,
        responses={201: NewInvitationSerializer, 400: OpenApiResponse()},
    )
    def post(self, request: Request, pk: int) -> Response:
        project = member_project(request, pk, may_manage_members, MANAGERS)
        data = InvitationCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        invitation, token = invitations.create_invitation(
            project=project, created_by=request.user, **data.validated_data
        )
        link = _link(request, token)
        sent = invitations.send_invitation(invitation=invitation, link=link)
        body = dict(InvitationSerializer(invitation).data, link=link, sent=sent)
        return Response(body, status=status.HTTP_201_CREATED)


class ProjectInvitationView(ServiceErrorsMixin, APIView):
    @extend_schema(
        tags=["members"],
        summary="Revoke a pending invitation (project admins)",
        description="Its link then answers 410.",
        responses={204: None},
    )
    def delete(self, request: Request, pk: int, invitation_id: int) -> Response:
        project = member_project(request, pk, may_manage_members, MANAGERS)
        invitation = get_object_or_404(pending_invitations(project), pk=invitation_id)
        invitations.revoke_invitation(invitation=invitation)
        return Response(status=status.HTTP_204_NO_CONTENT)


def _refuse(request: Request, view: APIView, error: Exception) -> None:
    """Count a failed attempt, then raise the answer to it."""
    record_failed_login(request, view)
    if isinstance(error, invitations.InvitationGone):
        raise InvitationGoneError() from error
    raise NotFound(UNKNOWN) from error


class InvitationView(APIView):
    permission_classes = [AllowAny]
    throttle_classes = LOGIN_THROTTLES

    @extend_schema(
        tags=["auth"],
        summary="What an invitation link offers (no account needed)",
        responses={
            200: InvitationViewSerializer,
            404: OpenApiResponse(description="no such invitation"),
            410: OpenApiResponse(description="used, revoked or expired"),
        },
    )
    def get(self, request: Request, token: str) -> Response:
        invitation = invitation_for_token(token)
        if invitation is None:
            _refuse(request, self, invitations.InvitationNotFound())
        state = invitation_state(invitation)
        if state != "pending":
            _refuse(request, self, invitations.InvitationGone())
        user = request.user
        signed_in = user.is_authenticated
        member = (
            signed_in and Membership.objects.filter(project=invitation.project, user=user).exists()
        )
        return Response(
            {
                "project": invitation.project.name,
                "role": invitation.role,
                "expires_at": invitation.expires_at,
                "signed_in_as": user.get_username() if signed_in else None,
                "member": member,
            }
        )


class AcceptInvitationView(APIView):
    """Signed in: join with that account (a member keeps their role). Otherwise: a new
    account with the username and password given, signed in (session) and joined."""

    permission_classes = [AllowAny]
    throttle_classes = LOGIN_THROTTLES

    @extend_schema(
        tags=["auth"],
        summary="Accept an invitation: join the project (no account needed)",
        request=AcceptSerializer,
        responses={
            200: AcceptedSerializer,
            400: OpenApiResponse(description="username or password refused"),
            404: OpenApiResponse(description="no such invitation"),
            410: OpenApiResponse(description="used, revoked or expired"),
        },
    )
    def post(self, request: Request, token: str) -> Response:
        user = request.user
        if not user.is_authenticated:
            SessionAuthentication().enforce_csrf(request)  # 403 without the csrftoken
        data = AcceptSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            if user.is_authenticated:
                membership = invitations.accept_invitation(token=token, user=user)
            else:
                user, membership = self._new_account(request, token, data.validated_data)
        except (invitations.InvitationNotFound, invitations.InvitationGone) as error:
            _refuse(request, self, error)
        return Response(
            {
                "project": membership.project_id,
                "role": membership.role,
                "username": user.get_username(),
            }
        )

    def _new_account(self, request: Request, token: str, fields: dict[str, Any]) -> tuple:
        missing = {
            name: ["This field is required."]
            for name in ("username", "password")
            if not fields.get(name)
        }
        if missing:
            raise ValidationError(missing)
        try:
            user, membership = invitations.accept_with_new_account(token=token, **fields)
        except DjangoValidationError as error:
            if "username" in error.message_dict:
                record_failed_login(request, self)  # a taken username is a guess too
            raise ValidationError(error.message_dict) from error
        login(request._request, user)
        return user, membership
