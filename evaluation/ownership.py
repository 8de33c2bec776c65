"""The shared resources, prompt variants and Prolog rule files: their scope and versions.

A row belongs to a project (``project``: that project's own copy, made by its admins) or is
global (``project`` null: the built-ins, which only superusers edit). A project launches with
its own rows plus the global ones; a name resolves to the project's own newest version
first, then the global newest. Who reads and edits them: ``evaluation.access``.
New versions continue the numbering of what the project sees (its own and the global rows),
so a project's first copy of a built-in v1 is v2.
"""

from __future__ import annotations

from typing import Any, TypeVar

from django.db.models import Max, Model, Q, QuerySet

from annotations.models import Project
from evaluation.models import PrologRule, PromptVariant

M = TypeVar("M", bound=Model)


def in_scope(rows: QuerySet[M], project: Project | None) -> QuerySet[M]:
    """``project``'s own rows and the global ones (only the global ones for ``None``)."""
    if project is None:
        return rows.filter(project__isnull=True)
    return rows.filter(Q(project=project) | Q(project__isnull=True))


def variants_for(project: Project | None) -> QuerySet[PromptVariant]:
    return in_scope(PromptVariant.objects.all(), project)


def rules_for(project: Project | None) -> QuerySet[PrologRule]:
    return in_scope(PrologRule.objects.all(), project)


def _own_first(rows: QuerySet[M], project: Project | None, *order: str) -> M | None:
    """The first row (by ``order``) of the project's own, else of the global ones."""
    if project is not None:
        own = rows.filter(project=project).order_by(*order).first()
        if own is not None:
            return own
    return rows.filter(project__isnull=True).order_by(*order).first()


def resolve_variant(
    project: Project | None, task: str, name: str | None = None, version: int | None = None
) -> PromptVariant | None:
    """The variant a launch of ``project`` means by ``task``/``name``[@``version``]: the
    project's own newest (or that version), else the global one."""
    rows = PromptVariant.objects.filter(task=task)
    if name:
        rows = rows.filter(name=name)
    if version is not None:
        rows = rows.filter(version=version)
    return _own_first(rows, project, "name", "-version")


def latest_rule(project: Project | None, type_name: str) -> PrologRule | None:
    """The rule file a generation job of ``project`` uses for ``type_name``."""
    rows = PrologRule.objects.filter(type__iexact=type_name.strip())
    return _own_first(rows, project, "-version")


def next_version(rows: QuerySet[Any], project: Project | None) -> int:
    """One more than the highest version ``project`` sees among ``rows`` (one name)."""
    top = in_scope(rows, project).aggregate(top=Max("version"))["top"]
    return (top or 0) + 1
