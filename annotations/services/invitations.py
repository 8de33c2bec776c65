"""Writes on invitations: create one (its token returned once, its hash stored), revoke it,
accept it with the holder's account or a new one.

Every function is one transaction. Accepting locks the invitation row, so a link accepted
twice at once makes one member: the second finds it used (``InvitationGone``). A token that
matches no invitation is ``InvitationNotFound``; one accepted, revoked or past its
``expires_at`` is ``InvitationGone``. Neither names the project. Errors on the data are
``django.core.exceptions.ValidationError`` with a ``{field: [message]}`` dict.
"""

from __future__ import annotations

import logging
import secrets
import smtplib
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.core.validators import validate_email
from django.db import transaction
from django.utils import timezone

from annotations.models import Invitation, Membership, Project
from annotations.selectors.invitations import token_hash
from annotations.services.placeholders import hand_over
from annotations.services.projects import create_user

TOKEN_BYTES = 32
logger = logging.getLogger("fallacy.invitations")


class InvitationNotFound(Exception):
    """No invitation has this token."""


class InvitationGone(Exception):
    """The invitation was accepted or revoked, or has expired."""


def max_age() -> timedelta:
    """How long a new invitation stays valid (``INVITATION_MAX_AGE_DAYS``)."""
    return timedelta(days=settings.INVITATION_MAX_AGE_DAYS)


def _clean_email(email: str) -> str:
    email = email.strip()
    if email:
        try:
            validate_email(email)
        except ValidationError as error:
            raise ValidationError({"email": [f"'{email}' is not an e-mail address"]}) from error
    return email


@transaction.atomic
def create_invitation(
    *, project: Project, role: str, created_by: AbstractBaseUser | None, email: str = ""
) -> tuple[Invitation, str]:
    """A pending invitation to ``project`` with ``role``, and its token (kept nowhere)."""
    if role not in Membership.Role.values:
        roles = ", ".join(Membership.Role.values)
        raise ValidationError({"role": [f"unknown role '{role}'; expected one of {roles}"]})
    token = secrets.token_urlsafe(TOKEN_BYTES)
    invitation = Invitation.objects.create(
        project=project,
        role=role,
        email=_clean_email(email),
        token_hash=token_hash(token),
        created_by=created_by,
        expires_at=timezone.now() + max_age(),
    )
    return invitation, token


@transaction.atomic
def revoke_invitation(*, invitation: Invitation) -> Invitation:
    """Revoke a pending invitation (its link then answers 410); one already accepted or
    revoked stays as it is."""
    invitation = Invitation.objects.select_for_update().get(pk=invitation.pk)
    if invitation.accepted_at is None and invitation.revoked_at is None:
        invitation.revoked_at = timezone.now()
        invitation.save(update_fields=["revoked_at"])
    return invitation


def _claim(token: str) -> Invitation:
    """The pending invitation of ``token``, locked (inside the caller's transaction)."""
    invitation = (
        Invitation.objects.select_for_update()
        .select_related("project")
        .filter(token_hash=token_hash(token))
        .first()
    )
    if invitation is None:
        raise InvitationNotFound()
    if (
        invitation.accepted_at is not None
        or invitation.revoked_at is not None
        or invitation.expires_at <= timezone.now()
    ):
        raise InvitationGone()
    return invitation


def _join(invitation: Invitation, user: AbstractBaseUser) -> Membership:
    """Make ``user`` a member with the invitation's role (a member keeps their role), take
    over the work an import left with a placeholder for them, and mark the invitation used."""
    membership, _ = Membership.objects.get_or_create(
        project=invitation.project, user=user, defaults={"role": invitation.role}
    )
    hand_over(invitation=invitation, user=user)
    invitation.accepted_at = timezone.now()
    invitation.accepted_by = user
    invitation.save(update_fields=["accepted_at", "accepted_by"])
    return membership


@transaction.atomic
def accept_invitation(*, token: str, user: AbstractBaseUser) -> Membership:
    """The holder of ``token``, signed in as ``user``, joins the project."""
    return _join(_claim(token), user)


@transaction.atomic
def accept_with_new_account(
    *, token: str, username: str, password: str
) -> tuple[AbstractBaseUser, Membership]:
    """A new account (``services.projects.create_user``'s checks) that joins the project.
    Its e-mail is the invitation's, unless another account already has that address (then
    none: the reply must not tell who has an account)."""
    invitation = _claim(token)
    email = invitation.email
    if email and get_user_model().objects.filter(email__iexact=email).exists():
        email = ""
    user = create_user(username=username, password=password, email=email)
    return user, _join(invitation, user)


def send_invitation(*, invitation: Invitation, link: str) -> bool:
    """E-mail the link to the invitation's address through Django's mail backend; False when
    the operator configured no sending (``INVITATION_EMAILS``), there is no address, or
    sending failed (logged)."""
    if not settings.INVITATION_EMAILS or not invitation.email:
        return False
    inviter = invitation.created_by.get_username() if invitation.created_by else "An admin"
    body = (
        f"{inviter} invites you to the project '{invitation.project.name}' as "
        f"{invitation.role}.\n\nOpen this link to choose your username and password, or to "
        f"join with your account:\n\n{link}\n\nThe link works once and expires on "
        f"{invitation.expires_at:%Y-%m-%d %H:%M} UTC."
    )
    try:
        send_mail(
            f"Invitation to {invitation.project.name}",
            body,
            None,
            [invitation.email],
            fail_silently=False,
        )
    except (OSError, smtplib.SMTPException):
        logger.exception("could not e-mail invitation %s", invitation.pk)
        return False
    return True
