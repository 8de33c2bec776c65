"""Work held by a placeholder account moves to the person once they accept their invitation.

A Label Studio import that invites an annotator (``importing.label_studio_annotators``) keeps
their annotations on an inactive placeholder account, remembered with the invitation in a
``LabelStudioAnnotator`` row. ``hand_over`` (called when the invitation is accepted, inside
that transaction) moves the placeholder's annotations and assignments in the project to the
accepting account, except on documents that account already annotated (those stay with the
placeholder), and points the row at the accepting account.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser

from annotations.models import (
    Annotation,
    Assignment,
    Invitation,
    LabelStudioAnnotator,
    Membership,
)


def hand_over(*, invitation: Invitation, user: AbstractBaseUser) -> int:
    """Move the work of the invitation's placeholders to ``user``; returns how many
    annotations moved."""
    moved = 0
    rows = LabelStudioAnnotator.objects.select_for_update().filter(invitation=invitation)
    for row in rows.select_related("user"):
        placeholder = row.user
        if placeholder.pk != user.pk and not placeholder.is_active:
            moved += _move(row.project_id, placeholder, user)
        row.user = user
        row.invitation = None
        row.save(update_fields=["user", "invitation"])
    return moved


def _move(project_id: int, placeholder: AbstractBaseUser, user: AbstractBaseUser) -> int:
    taken = Annotation.objects.filter(annotator=user, document__project_id=project_id)
    taken_documents = taken.values("document_id")
    moved = (
        Annotation.objects.filter(annotator=placeholder, document__project_id=project_id)
        .exclude(document_id__in=taken_documents)
        .update(annotator=user)
    )
    assigned = Assignment.objects.filter(annotator=user, document__project_id=project_id)
    Assignment.objects.filter(annotator=placeholder, document__project_id=project_id).exclude(
        document_id__in=assigned.values("document_id")
    ).update(annotator=user)
    left = Annotation.objects.filter(annotator=placeholder, document__project_id=project_id)
    if not left.exists():
        Assignment.objects.filter(annotator=placeholder, document__project_id=project_id).delete()
        Membership.objects.filter(project_id=project_id, user=placeholder).delete()
    return moved
