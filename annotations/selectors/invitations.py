"""Reads of invitations: a project's pending ones, and the one a token names."""

from __future__ import annotations

import hashlib

from django.db.models import QuerySet
from django.utils import timezone

from annotations.models import Invitation, Project


def token_hash(token: str) -> str:
    """The stored form of a token (SHA-256, hex)."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def pending_invitations(project: Project) -> QuerySet[Invitation]:
    """The project's invitations not accepted, revoked or expired, newest first."""
    return Invitation.objects.filter(
        project=project,
        accepted_at__isnull=True,
        revoked_at__isnull=True,
        expires_at__gt=timezone.now(),
    ).select_related("created_by")


def invitation_state(invitation: Invitation) -> str:
    """pending, accepted, revoked or expired."""
    if invitation.accepted_at is not None:
        return "accepted"
    if invitation.revoked_at is not None:
        return "revoked"
    if invitation.expires_at <= timezone.now():
        return "expired"
    return "pending"


def invitation_for_token(token: str) -> Invitation | None:
    """The invitation of ``token`` (any state), with its project; None when there is none."""
    return Invitation.objects.select_related("project").filter(token_hash=token_hash(token)).first()
