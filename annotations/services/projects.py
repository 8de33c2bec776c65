"""Writes on projects and their memberships."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from annotations.models import Membership, Project, Taxonomy


@transaction.atomic
def create_project(
    *, name: str, taxonomy: Taxonomy, guidelines: str = "", description: str = ""
) -> Project:
    return Project.objects.create(
        name=name, taxonomy=taxonomy, guidelines=guidelines, description=description
    )


@transaction.atomic
def add_member(*, project: Project, user: AbstractBaseUser, role: str) -> Membership:
    """Make ``user`` a member with ``role`` (``Membership.Role``); changes an existing role."""
    if role not in Membership.Role.values:
        raise ValueError(f"unknown role {role!r}; expected one of {Membership.Role.values}")
    membership, _ = Membership.objects.update_or_create(
        project=project, user=user, defaults={"role": role}
    )
    return membership
