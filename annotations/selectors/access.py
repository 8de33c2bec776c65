"""Who may see what: the one definition of visibility of the annotation side.

Rules (per project, by the user's Membership role):
- admin, reviewer (``STAFF_ROLES``): every document, every annotation and every gold
  standard of the project, drafts included (what they may do with them: ``policy``);
- annotator: the documents assigned to them (every document of the project when
  ``Rules.annotators_see_unassigned_documents``), their own annotations on any document of
  the project (and others' submitted ones on the documents they see when
  ``Rules.annotators_see_others_submitted``), no gold standards (annotators do not see the
  reference before review);
- non-members and anonymous users: nothing;
- accounts (``users_known_to``): a user sees the usernames of the members of the projects
  they review or administer; a superuser every account; naming an account in a project
  (``users_named_in``) finds only those, themself and the project's former members, and
  answers any other account as a missing one; e-mail addresses only to the user themself
  and superusers (``sees_email_of``);
- a superuser (``Rules.superusers_see_everything``) sees every project, document,
  annotation and gold standard, and counts as admin where they hold no membership; where
  they hold one, the project's pages that depend on the role show what that role shows (a
  document's annotation list: ``listed_annotations``; the document list; the gold page).

Every read states its visibility through this module: the querysets (``projects_for``,
``documents_for``, ``annotations_for``, ``gold_standards_for``), the per-row decisions of the
hand-written SQL reads (``sees_document``, ``lists_every_annotation``) and the SQL fragments
they embed (``*_sql``: a condition and its parameters). The rules are read at call time from
``RULES`` (a frozen value: statements cached per rule set), so one change here changes
every read. The API answers 404 for anything outside them, so existence does not leak.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import connection
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
SUBMITTED = Annotation.Status.SUBMITTED


@dataclass(frozen=True)
class Rules:
    """The switches of the rules above (their defaults are the platform's rules)."""

    superusers_see_everything: bool = True
    annotators_see_unassigned_documents: bool = False
    annotators_see_others_submitted: bool = False


RULES = Rules()


def rules() -> Rules:
    """The rules in force (read at call time)."""
    return RULES


# --- who the user is ---------------------------------------------------------------------


def anonymous(user: User | None) -> bool:
    return user is None or not user.is_authenticated


def sees_everything(user: User | None) -> bool:
    """A superuser, while superusers see everything."""
    return (
        not anonymous(user)
        and bool(getattr(user, "is_superuser", False))
        and rules().superusers_see_everything
    )


def effective_role(user: User | None, membership_role: str | None) -> str | None:
    """The role the user acts with in a project where their membership has
    ``membership_role`` (None: none): a superuser without membership counts as admin."""
    if anonymous(user):
        return None
    if membership_role is None and sees_everything(user):
        return Membership.Role.ADMIN
    return membership_role


def is_staff_role(role: str | None) -> bool:
    return role in STAFF_ROLES


def sees_document(user: User | None, role: str | None, *, assigned: bool) -> bool:
    """Whether the user, acting with ``role`` in its project, sees a document (assigned to
    them or not)."""
    if sees_everything(user) or is_staff_role(role):
        return True
    return role is not None and (assigned or rules().annotators_see_unassigned_documents)


def lists_every_annotation(role: str | None) -> bool:
    """Whether a document's annotation list shows everyone's annotations to ``role``
    (staff), rather than the user's own (and others' submitted ones, by the rules)."""
    return is_staff_role(role)


# --- querysets ---------------------------------------------------------------------------


def _member_project_ids(user: User, roles: tuple[str, ...] | None = None) -> QuerySet:
    memberships = Membership.objects.filter(user=user)
    if roles is not None:
        memberships = memberships.filter(role__in=roles)
    return memberships.values("project_id")


def projects_for(user: User | None) -> QuerySet[Project]:
    """Projects the user is a member of (all projects for a superuser)."""
    if anonymous(user):
        return Project.objects.none()
    if sees_everything(user):
        return Project.objects.all()
    return Project.objects.filter(pk__in=_member_project_ids(user))


def staff_projects_for(user: User | None) -> QuerySet[Project]:
    """Projects the user reviews or administers (all projects for a superuser)."""
    if anonymous(user):
        return Project.objects.none()
    if sees_everything(user):
        return Project.objects.all()
    return Project.objects.filter(pk__in=_member_project_ids(user, STAFF_ROLES))


def users_known_to(user: User | None) -> QuerySet:
    """Active accounts whose usernames the user already sees: the members of the projects
    they review or administer (those projects' member lists); every account for a
    superuser. Nothing else: a project admin may not list the instance's users."""
    users = get_user_model().objects.filter(is_active=True)
    if anonymous(user):
        return users.none()
    if sees_everything(user):
        return users
    seen = Membership.objects.filter(project_id__in=_member_project_ids(user, STAFF_ROLES))
    return users.filter(pk__in=seen.values("user_id"))


def users_named_in(user: User | None, project: Project | int) -> QuerySet:
    """Accounts the user may name by id, username or e-mail when acting in ``project``
    (adding a member, choosing an annotator, exporting one's annotations): themself, the
    accounts ``users_known_to`` them, and, where they review or administer the project,
    whoever has an assignment or an annotation in it (a former member). Any other account
    is answered as a missing one, so that existence does not leak."""
    model = get_user_model()
    if anonymous(user):
        return model.objects.none()
    if sees_everything(user):
        return model.objects.all()
    project_id = project if isinstance(project, int) else project.pk
    named = Q(pk=user.pk) | Q(pk__in=users_known_to(user).values("pk"))
    if is_staff_of(user, project_id):
        named |= Q(
            pk__in=Assignment.objects.filter(document__project_id=project_id).values("annotator_id")
        ) | Q(
            pk__in=Annotation.objects.filter(document__project_id=project_id).values("annotator_id")
        )
    return model.objects.filter(named)


def sees_email_of(user: User | None, other: Any) -> bool:
    """Whether the user may read ``other``'s e-mail address: their own, or a superuser's."""
    return not anonymous(user) and (
        getattr(user, "pk", None) == getattr(other, "pk", None)
        or bool(getattr(user, "is_superuser", False))
    )


def role_in(user: User | None, project: Project | int) -> str | None:
    """The user's role in the project; a superuser without membership counts as admin."""
    if anonymous(user):
        return None
    project_id = project if isinstance(project, int) else project.pk
    role = (
        Membership.objects.filter(user=user, project_id=project_id)
        .values_list("role", flat=True)
        .first()
    )
    return effective_role(user, role)


def roles_by_project(user: User | None) -> dict[int, str]:
    """{project_id: role} for all the user's memberships (one query)."""
    if anonymous(user):
        return {}
    return dict(Membership.objects.filter(user=user).values_list("project_id", "role"))


def is_staff_of(user: User | None, project: Project | int) -> bool:
    """Admin or reviewer of the project (or superuser)."""
    return is_staff_role(role_in(user, project))


def has_role_anywhere(user: User | None, roles: tuple[str, ...]) -> bool:
    """Whether the user holds one of ``roles`` in some project (a superuser: always)."""
    if anonymous(user):
        return False
    return sees_everything(user) or Membership.objects.filter(user=user, role__in=roles).exists()


def annotator_documents(user: User, prefix: str = "") -> Q:
    """The documents (``prefix``: the path to them) an annotator member sees."""
    member = Q(**{f"{prefix}project_id__in": _member_project_ids(user)})
    if rules().annotators_see_unassigned_documents:
        return member
    path = prefix.removesuffix("__") or None
    assigned = Assignment.objects.filter(document=OuterRef(path or "pk"), annotator=user)
    return member & Exists(assigned)


def documents_for(user: User | None, project: Project | int | None = None) -> QuerySet[Document]:
    """Documents the user may see: all of their staff projects, the annotators' ones
    elsewhere (by the rules: the assigned ones)."""
    if anonymous(user):
        return Document.objects.none()
    if sees_everything(user):
        qs = Document.objects.all()
    else:
        qs = Document.objects.filter(
            Q(project_id__in=_member_project_ids(user, STAFF_ROLES)) | annotator_documents(user)
        )
    if project is not None:
        qs = qs.filter(project_id=project if isinstance(project, int) else project.pk)
    return qs


def annotations_for(user: User | None) -> QuerySet[Annotation]:
    """Reviewers/admins: all annotations of their projects; annotators: their own (and, by
    the rules, others' submitted ones on the documents they see)."""
    if anonymous(user):
        return Annotation.objects.none()
    if sees_everything(user):
        return Annotation.objects.all()
    visible = Q(document__project_id__in=_member_project_ids(user, STAFF_ROLES)) | Q(
        annotator=user, document__project_id__in=_member_project_ids(user)
    )
    if rules().annotators_see_others_submitted:
        visible |= Q(status=SUBMITTED) & annotator_documents(user, "document__")
    return Annotation.objects.filter(visible)


def listed_annotations(user: User | None, document: Document) -> QuerySet[Annotation]:
    """The annotations a document's annotation list shows the user (who sees the
    document): everyone's for staff; otherwise the visible ones their role lists."""
    annotations = annotations_for(user).filter(document=document)
    if lists_every_annotation(role_in(user, document.project_id)):
        return annotations
    others = Q(status=SUBMITTED) if rules().annotators_see_others_submitted else Q(pk__in=[])
    return annotations.filter(Q(annotator=user) | others)


def gold_standards_for(user: User | None) -> QuerySet[GoldStandard]:
    """Gold standards (draft and published) of the projects the user reviews or
    administers."""
    if anonymous(user):
        return GoldStandard.objects.none()
    if sees_everything(user):
        return GoldStandard.objects.all()
    return GoldStandard.objects.filter(project_id__in=_member_project_ids(user, STAFF_ROLES))


# --- SQL fragments -----------------------------------------------------------------------
# Each gives (condition, params) to embed in a hand-written statement; the caller caches its
# statement per ``rules()`` and per the flags that shape the fragment, never per user.


def _table(model: Any) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def project_visible_sql(user: User, membership: str) -> tuple[str, list[Any]]:
    """``projects_for`` on a row joined to the user's membership (alias ``membership``,
    null when none)."""
    return f"({membership}.id IS NOT NULL OR %s)", [sees_everything(user)]


def assigned_sql(user: User, document: str) -> tuple[str, list[Any]]:
    """Whether document ``document`` (an alias) is assigned to the user."""
    return (
        f"EXISTS (SELECT 1 FROM {_table(Assignment)} s_"
        f" WHERE s_.document_id = {document}.id AND s_.annotator_id = %s)",
        [user.pk],
    )


def annotator_documents_sql(user: User, document: str) -> tuple[str, list[Any]]:
    """Which documents of a project an annotator member sees (``annotator_documents``)."""
    if rules().annotators_see_unassigned_documents:
        return "1 = 1", []
    return assigned_sql(user, document)


def annotator_documents_join_sql(user: User, document: str) -> tuple[str, list[Any]]:
    """``annotator_documents`` as a join on document ``document`` (an alias) of a project
    the user is an annotator member of: the assigned ones (one row each: a document is
    assigned to an annotator once), or no join when annotators see every document."""
    if rules().annotators_see_unassigned_documents:
        return "", []
    return (
        f" JOIN {_table(Assignment)} s_ ON s_.document_id = {document}.id AND s_.annotator_id = %s",
        [user.pk],
    )


def annotation_visible_sql(user: User, annotation: str, document: str) -> tuple[str, list[Any]]:
    """``annotations_for`` on annotation ``annotation`` of document ``document`` (aliases)."""
    if sees_everything(user):
        return "1 = 1", []
    others, params = "", []
    if rules().annotators_see_others_submitted:
        seen, params = annotator_documents_sql(user, document)
        others = f" OR ({annotation}.status = %s AND {seen})"
        params = [SUBMITTED.value, *params]
    return (
        f"EXISTS (SELECT 1 FROM {_table(Membership)} m_ WHERE m_.project_id = {document}"
        f".project_id AND m_.user_id = %s AND (m_.role IN (%s, %s)"
        f" OR {annotation}.annotator_id = %s{others}))",
        [user.pk, *(role.value for role in STAFF_ROLES), user.pk, *params],
    )


def listed_annotations_sql(user: User, role: str | None, annotation: str) -> tuple[str, list[Any]]:
    """``listed_annotations`` on annotation ``annotation`` of a document the user sees and
    acts in with ``role``."""
    if lists_every_annotation(role):
        return "1 = 1", []
    if rules().annotators_see_others_submitted:
        return (
            f"({annotation}.annotator_id = %s OR {annotation}.status = %s)",
            [user.pk, SUBMITTED.value],
        )
    return f"{annotation}.annotator_id = %s", [user.pk]
