"""Writes of prompt variants: a new version, owned by a project or global.

``save_variant_version`` numbers the version one past the highest the owner sees (its own
and the global rows of that task and name, ``evaluation.ownership.next_version``) and retries
when another admin takes the number meanwhile (``VariantConflict`` after five tries).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction

from annotations.models import Project
from evaluation.models import PromptVariant
from evaluation.ownership import next_version

ATTEMPTS = 5


class VariantConflict(RuntimeError):
    """Every try met a version another writer saved meanwhile."""


def save_variant_version(
    *,
    values: dict[str, Any],
    project: Project | None,
    created_by: AbstractBaseUser | None = None,
) -> PromptVariant:
    """A new version of ``values["task"]``/``values["name"]`` owned by ``project`` (``None``:
    global)."""
    same_name = PromptVariant.objects.filter(task=values["task"], name=values["name"])
    for _attempt in range(ATTEMPTS):
        try:
            with transaction.atomic():
                return PromptVariant.objects.create(
                    **values,
                    project=project,
                    version=next_version(same_name, project),
                    created_by=created_by,
                )
        except IntegrityError:
            continue
    raise VariantConflict("the variant changed meanwhile; try again")
