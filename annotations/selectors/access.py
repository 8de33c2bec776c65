"""Role isolation at the data level: every queryset holds only what the user's role may see.

Rules (per project, by the user's Membership role):
- admin, reviewer: every document, every annotation and every gold standard of the project
  (they publish gold versions and export them: ``may_export_gold``);
- annotator: only the documents assigned to them, only their own annotations, no gold
  standards (annotators do not see the reference before review);
- non-members: nothing. A superuser sees everything and counts as admin everywhere.

The API answers 404 for anything outside these querysets, so existence does not leak.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Exists, OuterRef, Q, QuerySet

from annotations.models import (
    Annotation,
    Assignment,
    Document,
    GoldStandard,
    Membership,
    Project,
)

User = AbstractBaseUser | AnonymousUser
STAFF_ROLES = (Membership.Role.ADMIN, Membership.Role.REVIEWER)


def _anonymous(user: User | None) -> bool:
    return user is None or not user.is_authenticated


def _superuser(user: User) -> bool:
    return bool(getattr(user, "is_superuser", False))


def _member_project_ids(user: User, roles: tuple[str, ...] | None = None) -> QuerySet:
    memberships = Membership.objects.filter(user=user)
    if roles is not None:
        memberships = memberships.filter(role__in=roles)
    return memberships.values("project_id")


def projects_for(user: User | None) -> QuerySet[Project]:
    """Projects the user is a member of (all projects for a superuser)."""
    if _anonymous(user):
        return Project.objects.none()
    if _superuser(user):
        return Project.objects.all()
    return Project.objects.filter(pk__in=_member_project_ids(user))


def role_in(user: User | None, project: Project | int) -> str | None:
    """The user's role in the project; a superuser without membership counts as admin."""
    if _anonymous(user):
        return None
    project_id = project if isinstance(project, int) else project.pk
    role = (
        Membership.objects.filter(user=user, project_id=project_id)
        .values_list("role", flat=True)
        .first()
    )
    if role is None and _superuser(user):
        return Membership.Role.ADMIN
    return role


def roles_by_project(user: User | None) -> dict[int, str]:
    """{project_id: role} for all the user's memberships (one query)."""
    if _anonymous(user):
        return {}
    return dict(Membership.objects.filter(user=user).values_list("project_id", "role"))


def is_staff_of(user: User | None, project: Project | int) -> bool:
    """Admin or reviewer of the project (or superuser)."""
    return role_in(user, project) in STAFF_ROLES


def may_export_gold(user: User | None, project: Project | int) -> bool:
    """Who exports a project's published gold standards (every path: the gold version's
    export, the dataset export, item exports with their gold): its reviewers and admins
    (and superusers), who also see, adjudicate and publish it; never its annotators."""
    return is_staff_of(user, project)


def documents_for(user: User | None, project: Project | int | None = None) -> QuerySet[Document]:
    """Documents the user may see: all of their staff projects, the assigned ones elsewhere."""
    if _anonymous(user):
        return Document.objects.none()
    if _superuser(user):
        qs = Document.objects.all()
    else:
        assigned = Exists(Assignment.objects.filter(document=OuterRef("pk"), annotator=user))
        qs = Document.objects.filter(
            Q(project_id__in=_member_project_ids(user, STAFF_ROLES))
            | (Q(project_id__in=_member_project_ids(user, (Membership.Role.ANNOTATOR,))) & assigned)
        )
    if project is not None:
        qs = qs.filter(project_id=project if isinstance(project, int) else project.pk)
    return qs


def annotations_for(user: User | None) -> QuerySet[Annotation]:
    """Annotators: their own annotations; reviewers/admins: all annotations of their projects."""
    if _anonymous(user):
        return Annotation.objects.none()
    if _superuser(user):
        return Annotation.objects.all()
    return Annotation.objects.filter(
        Q(document__project_id__in=_member_project_ids(user, STAFF_ROLES))
        | Q(annotator=user, document__project_id__in=_member_project_ids(user))
    )


def gold_standards_for(user: User | None) -> QuerySet[GoldStandard]:
    """Gold standards of the projects the user reviews or administers."""
    if _anonymous(user):
        return GoldStandard.objects.none()
    if _superuser(user):
        return GoldStandard.objects.all()
    return GoldStandard.objects.filter(project_id__in=_member_project_ids(user, STAFF_ROLES))
