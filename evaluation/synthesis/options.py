"""What the generation launch form offers a user: the item projects that fit generation
(a form with a ranked types field, the SmartyPat form's shape) among those the user
administers, and the local models that can write sentences (the baselines cannot)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AnonymousUser, User

from annotations.items import FormError, parse_form
from annotations.models import Project
from evaluation.access import admin_project_ids
from evaluation.runs.selectors import suggested_models

BASELINES = ("random", "silent")


def fits_generation(project: Project) -> bool:
    """An item project whose form has a ranked field (where generated items get their type)."""
    if project.kind != "items":
        return False
    try:
        return bool(parse_form(project.form).of_kind("ranked"))
    except FormError:
        return False


def generation_projects(user: User | AnonymousUser | None) -> list[Project]:
    """The unarchived projects the user administers that fit generation, by name."""
    ids = admin_project_ids(user)
    projects = Project.objects.filter(kind="items", archived_at__isnull=True).only(
        "id", "name", "kind", "form"
    )
    if ids is not None:
        projects = projects.filter(pk__in=ids)
    return [p for p in projects.order_by("name") if fits_generation(p)]


def generation_models() -> list[dict[str, Any]]:
    """The suggested local models that write text (SmolLM2 when installed)."""
    return [m for m in suggested_models() if m["backend"] not in BASELINES]
