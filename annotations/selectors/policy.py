"""Who may do what: the one definition of the actions' rules, beside ``access`` (who sees
what). Every view and service asks a ``may_<verb>`` here instead of comparing roles.

A project's actions (``ACTIONS``: action -> the roles that may do it), for the role the user
acts with in the project (``access.role_in``: a superuser without membership acts as its
admin; a superuser who is a member acts with their membership's role):

- ``annotate``: every member (their own annotations and responses, suggestions' decisions);
- ``review``: reviewers and admins: adjudicate, publish gold versions, reopen an annotator's
  submitted annotation or response, see an item's answer key (``see_answer_key``);
- ``export_gold``: reviewers and admins (every path that exports a published gold standard);
- ``export_annotations``: reviewers and admins export any annotator's annotations (they
  read every annotation of the project); every member exports their own;
- ``read_members``: reviewers and admins;
- ``change_project``, ``import``, ``manage_members``, ``assign``: admins;
- ``launch``: admins: model runs, judges, generation jobs and their releases, suggestions,
  a run's cancel, resume and rescore;
- ``configure``: admins: the project's own prompt variants and rule files, assistance.

Actions outside a project: creating projects (superusers and Django staff users), managing
taxonomies (those, and the admin of any project), creating accounts and editing the global
(built-in) prompt variants and rule files (superusers), saving a project's variants or rule
files (the admin of some project), generating items (an admin somewhere, or a creator).

Reads stay in ``access``: a project, document or run outside it is a 404; an action refused
here on something the user sees is a 403.
"""

from __future__ import annotations

from annotations.models import Membership, Project
from annotations.selectors.access import User, anonymous, role_in, sees_everything

ADMIN, REVIEWER = Membership.Role.ADMIN, Membership.Role.REVIEWER
ANNOTATOR = Membership.Role.ANNOTATOR
ADMINS = frozenset({ADMIN})
STAFF = frozenset({ADMIN, REVIEWER})
MEMBERS = frozenset({ADMIN, REVIEWER, ANNOTATOR})

ACTIONS: dict[str, frozenset[str]] = {
    "annotate": MEMBERS,
    "review": STAFF,
    "see_answer_key": STAFF,
    "export_gold": STAFF,
    "export_annotations": STAFF,
    "read_members": STAFF,
    "change_project": ADMINS,
    "import": ADMINS,
    "manage_members": ADMINS,
    "assign": ADMINS,
    "launch": ADMINS,
    "configure": ADMINS,
}


def role_may(action: str, role: str | None) -> bool:
    """Whether ``role`` (the role a user acts with in a project; None: none) may do
    ``action`` there."""
    return role is not None and role in ACTIONS[action]


def may(user: User | None, action: str, project: Project | int) -> bool:
    return role_may(action, role_in(user, project))


def projects_where(user: User | None, action: str) -> set[int] | None:
    """The ids of the projects where the user may do ``action``; None: every project (a
    superuser)."""
    if sees_everything(user):
        return None
    if anonymous(user):
        return set()
    return set(
        Membership.objects.filter(user=user, role__in=ACTIONS[action]).values_list(
            "project_id", flat=True
        )
    )


def anywhere(user: User | None, action: str) -> bool:
    """Whether the user may do ``action`` in some project."""
    where = projects_where(user, action)
    return where is None or bool(where)


# --- in a project ----------------------------------------------------------------------------


def may_annotate(user: User | None, project: Project | int) -> bool:
    return may(user, "annotate", project)


def may_review(user: User | None, project: Project | int) -> bool:
    return may(user, "review", project)


def may_see_answer_key(role: str | None) -> bool:
    """For the role a user acts with in an item's project (the item page has it)."""
    return role_may("see_answer_key", role)


def may_export_gold(user: User | None, project: Project | int) -> bool:
    return may(user, "export_gold", project)


def may_export_annotations(user: User | None, project: Project | int, annotator_id: int) -> bool:
    """An annotator's annotations of the project: reviewers and admins any annotator's,
    every member their own."""
    role = role_in(user, project)
    if role_may("export_annotations", role):
        return True
    return role is not None and user is not None and annotator_id == user.pk


def may_read_members(user: User | None, project: Project | int) -> bool:
    return may(user, "read_members", project)


def may_change_project(user: User | None, project: Project | int) -> bool:
    return may(user, "change_project", project)


def may_import(user: User | None, project: Project | int) -> bool:
    return may(user, "import", project)


def may_manage_members(user: User | None, project: Project | int) -> bool:
    return may(user, "manage_members", project)


def may_assign(user: User | None, project: Project | int) -> bool:
    return may(user, "assign", project)


def may_launch(user: User | None, project: Project | int) -> bool:
    return may(user, "launch", project)


def may_configure(user: User | None, project: Project | int) -> bool:
    return may(user, "configure", project)


# --- outside a project -----------------------------------------------------------------------


def may_create_projects(user: User | None) -> bool:
    """Superusers and Django staff users."""
    return not anonymous(user) and bool(
        getattr(user, "is_superuser", False) or getattr(user, "is_staff", False)
    )


def may_manage_taxonomies(user: User | None) -> bool:
    """Those who create projects, and the admin of any project (to change its taxonomy)."""
    return may_create_projects(user) or anywhere(user, "change_project")


def may_create_users(user: User | None) -> bool:
    return not anonymous(user) and bool(getattr(user, "is_superuser", False))


def may_edit_global(user: User | None) -> bool:
    """The global (built-in) prompt variants and rule files: superusers."""
    return sees_everything(user)


def may_configure_somewhere(user: User | None) -> bool:
    """Whether the user may save a project's own prompt variants or rule files somewhere."""
    return anywhere(user, "configure")


def may_generate(user: User | None) -> bool:
    """Whether the user may launch a generation job: into a project they administer, or
    into a new one."""
    return anywhere(user, "launch") or may_create_projects(user)
