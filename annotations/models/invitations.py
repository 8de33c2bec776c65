"""Invitations: a project admin's single-use link that makes its holder a member.

Only the SHA-256 of the token is stored; the token itself is shown once, when the
invitation is created (and sent by e-mail when the operator configured sending). An
invitation is pending until it is accepted, revoked or past ``expires_at``.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q

from annotations.models.projects import Membership, Project


class Invitation(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="invitations")
    role = models.CharField(max_length=16, choices=Membership.Role.choices)
    email = models.CharField(
        max_length=254, blank=True, default="", help_text="Where the link was sent (optional)."
    )
    token_hash = models.CharField(max_length=64, unique=True, help_text="SHA-256 of the token.")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="invitations_sent",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    accepted_at = models.DateTimeField(null=True, blank=True)
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="invitations_accepted",
    )
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(role__in=["admin", "reviewer", "annotator"]),
                name="invitation_role_valid",
            )
        ]

    def __str__(self) -> str:
        return f"invitation {self.pk} to {self.project_id} as {self.role}"
