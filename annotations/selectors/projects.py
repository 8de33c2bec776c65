"""Reads behind the project set-up pages: taxonomies and presets, members with their work
counts, import jobs (who may create projects or manage taxonomies: ``policy``)."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce

from annotations.models import (
    Annotation,
    Assignment,
    ImportJob,
    Membership,
    Project,
    Taxonomy,
    TaxonomyNode,
)
from annotations.selectors.access import User, users_known_to
from annotations.taxonomy_files import (
    TaxonomyFileError,
    available_presets,
    preset_path,
    read_taxonomy_file,
)

RECENT_IMPORTS = 20
SUGGEST_MIN_LENGTH = 2
SUGGEST_LIMIT = 10


def taxonomy_rows() -> list[dict[str, Any]]:
    """Installed taxonomies with how many level-2 types each has."""
    rows = Taxonomy.objects.annotate(
        type_count=Count("nodes", filter=Q(nodes__level=TaxonomyNode.Level.TYPE))
    ).order_by("name", "version")
    return [
        {
            "id": t.pk,
            "name": t.name,
            "version": t.version,
            "title": t.title,
            "type_count": t.type_count,
        }
        for t in rows
    ]


def preset_rows() -> list[dict[str, Any]]:
    """Built-in presets, with the id of the installed taxonomy of the same name and version."""
    rows = []
    for name in available_presets():
        try:
            spec = read_taxonomy_file(preset_path(name))
        except TaxonomyFileError:  # a broken preset file is a bug the taxonomy tests catch
            continue
        installed = (
            Taxonomy.objects.filter(name=spec.name, version=spec.version)
            .values_list("pk", flat=True)
            .first()
        )
        rows.append({"name": name, "title": spec.title, "installed_id": installed})
    return rows


def _count(queryset: QuerySet) -> Coalesce:
    counted = queryset.order_by().values("annotator").annotate(n=Count("pk")).values("n")
    return Coalesce(Subquery(counted[:1]), 0)


def members_with_counts(project: Project) -> QuerySet[Membership]:
    """Memberships (user selected) with ``assigned``, ``in_progress`` and ``submitted``:
    the member's assignments and annotations by status in this project."""
    mine = {"annotator": OuterRef("user"), "document__project": OuterRef("project")}
    return (
        Membership.objects.filter(project=project)
        .select_related("user")
        .annotate(
            assigned=_count(Assignment.objects.filter(**mine)),
            in_progress=_count(
                Annotation.objects.filter(**mine, status=Annotation.Status.IN_PROGRESS)
            ),
            submitted=_count(Annotation.objects.filter(**mine, status=Annotation.Status.SUBMITTED)),
        )
        .order_by("user__username")
    )


def recent_import_jobs(project: Project) -> QuerySet[ImportJob]:
    """The project's latest import jobs, newest first."""
    return ImportJob.objects.filter(project=project).order_by("-created_at", "-id")[:RECENT_IMPORTS]


def member_suggestions(user: User, project: Project, prefix: str) -> list[str]:
    """Usernames to add to the project as one types: those starting with ``prefix``
    (case-insensitive, at least ``SUGGEST_MIN_LENGTH`` characters) among the accounts the
    user already sees (``access.users_known_to``), not yet members; at most
    ``SUGGEST_LIMIT``, by username."""
    prefix = prefix.strip()
    if len(prefix) < SUGGEST_MIN_LENGTH:
        return []
    members = Membership.objects.filter(project=project).values("user_id")
    found = (
        users_known_to(user)
        .filter(username__istartswith=prefix)
        .exclude(pk__in=members)
        .order_by("username")
        .values_list("username", flat=True)
    )
    return list(found[:SUGGEST_LIMIT])
