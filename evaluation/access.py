"""Who may see and do what on the evaluation side, on top of ``annotations.selectors.access``.

Rules (the annotation side's roles, per project; a superuser counts as admin everywhere):
- runs, their scores and outputs, generation jobs and their generated items, the item
  leaderboard: the project's reviewers and admins (``staff_projects_for``);
- suggestions of a document: whoever sees the document (``documents_for``), when the
  project is assisted; its reviewers and admins either way;
- item responses are annotations: ``annotations_for`` / ``listed_annotations``;
- prompt variants and Prolog rule files (``readable``): global rows for anyone with a staff
  role somewhere, a project's own rows for that project's reviewers and admins;
- what the user may do with them (launch, cancel, configure, import): ``policy``, the one
  definition of the actions' rules (``admin_project_ids``: where they may launch).

The API helpers here answer 404 for what the user may not see (``visible_run``; projects and
documents: ``fallacy_platform.api.lookups``, whose ``require`` with a ``policy.may_*`` answers
403 for what they see but may not do).
"""

from __future__ import annotations

from typing import TypeVar

from django.db.models import Model, Q, QuerySet
from rest_framework.exceptions import NotFound
from rest_framework.request import Request

from annotations.models import Document
from annotations.selectors.access import (
    STAFF_ROLES,
    User,
    has_role_anywhere,
    is_staff_role,
    role_in,
    sees_everything,
    staff_projects_for,
)
from annotations.selectors.policy import projects_where
from evaluation.models import GeneratedItem, GenerationJob, ModelRun, Suggestion

M = TypeVar("M", bound=Model)

__all__ = [
    "admin_project_ids",
    "generated_items_for",
    "generation_jobs_for",
    "has_role_anywhere",
    "is_staff_anywhere",
    "readable",
    "runs_for",
    "sees_everything",
    "staff_projects_for",
    "suggestions_for",
    "visible_run",
]


def is_staff_anywhere(user: User | None) -> bool:
    """A reviewer or admin of some project (or a superuser)."""
    return has_role_anywhere(user, STAFF_ROLES)


def admin_project_ids(user: User | None) -> set[int] | None:
    """Projects whose runs the user manages (``policy``: launch); ``None``: every project
    (a superuser)."""
    return projects_where(user, "launch")


def runs_for(user: User | None) -> QuerySet[ModelRun]:
    """Runs of the projects the user reviews or administers (all runs for a superuser)."""
    if sees_everything(user):
        return ModelRun.objects.all()
    return ModelRun.objects.filter(project__in=staff_projects_for(user))


def generation_jobs_for(user: User | None) -> QuerySet[GenerationJob]:
    """Generation jobs of the projects the user reviews or administers."""
    if sees_everything(user):
        return GenerationJob.objects.all()
    return GenerationJob.objects.filter(project__in=staff_projects_for(user))


def generated_items_for(user: User | None) -> QuerySet[GeneratedItem]:
    """The items of ``generation_jobs_for``."""
    if sees_everything(user):
        return GeneratedItem.objects.all()
    return GeneratedItem.objects.filter(job__project__in=staff_projects_for(user))


def suggestions_for(user: User | None, document: Document, *, assisted: bool) -> QuerySet:
    """The suggestions of ``document`` (one the user sees) shown to the user: all of them
    when the project is ``assisted`` or the user is its reviewer or admin, else none."""
    if assisted or is_staff_role(role_in(user, document.project_id)):
        return Suggestion.objects.filter(document=document)
    return Suggestion.objects.none()


def readable(rows: QuerySet[M], user: User | None) -> QuerySet[M]:
    """Prompt variants or rule files ``user`` may read: global ones and those of projects
    they review or administer (every row for a superuser)."""
    if sees_everything(user):
        return rows
    return rows.filter(Q(project__isnull=True) | Q(project__in=staff_projects_for(user)))


# --- API helpers ---------------------------------------------------------------------------


def visible_run(request: Request, pk: int) -> ModelRun:
    run = runs_for(request.user).filter(pk=pk).first()
    if run is None:
        raise NotFound("No run with this id.")
    return run
