"""``export_project``: everything of a project into one archive (see ``format``).

Reads only. Concurrency contract: the whole export reads one snapshot (one transaction,
REPEATABLE READ READ ONLY on PostgreSQL; SQLite's WAL read transaction), so annotators may
keep working while it runs and the archive is still consistent.

Rows come in primary-key order (taxonomy nodes by level first, gold rows grouped by their
version, history rows by ``history_id``): an import inserts them in that order, so a second
export of the imported project numbers and orders them the same way.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.db.models import Q, QuerySet

from annotations.backups.archive import ArchiveWriter
from annotations.backups.format import (
    ARCHIVE_FORMAT,
    ARCHIVE_VERSION,
    MANIFEST,
    USER_FIELDS,
    USERS,
    Table,
    parts,
    tables,
)
from annotations.backups.values import encode_value, field_target
from annotations.models import (
    Annotation,
    Assignment,
    Document,
    GoldDocument,
    GoldSpan,
    ImportJob,
    Membership,
    Project,
    Sentence,
    Span,
    Taxonomy,
    TaxonomyNode,
)

CHUNK = 2000


class ExportError(Exception):
    """The project refers to something outside it that an archive cannot hold."""


@dataclass
class ExportReport:
    path: Path
    project: str
    counts: dict[str, int]
    warnings: list[str] = field(default_factory=list)


def _referenced() -> set[str]:
    """Tables whose archive ids other rows refer to (the rest are never numbered)."""
    return {
        target
        for table in tables()
        for name in table.columns
        if (target := field_target(table.model._meta.get_field(name))) not in (None, "user")
    } | {table.history_of for table in tables() if table.history_of}


class _Refs:
    """Archive-local ids (1..n in archive order, then orphans) and usernames."""

    def __init__(self) -> None:
        self.maps: dict[str, dict[int, int]] = {}
        self.users: dict[int, str | None] = {}
        self.warnings: list[str] = []

    def number(self, table: str, pks: list[int]) -> None:
        self.maps[table] = {pk: i for i, pk in enumerate(pks, start=1)}

    def local(self, table: str, pk: int | None, *, orphan: bool) -> int | None:
        if pk is None:
            return None
        numbers = self.maps[table]
        found = numbers.get(pk)
        if found is None:
            if not orphan:
                raise ExportError(f"{table} row {pk} is referred to but is not of this project")
            found = numbers[pk] = len(numbers) + 1
        return found

    def username(self, user_id: int | None) -> str | None:
        if user_id is None:
            return None
        if user_id not in self.users:
            name = (
                get_user_model()
                .objects.filter(pk=user_id)
                .values_list(get_user_model().USERNAME_FIELD, flat=True)
                .first()
            )
            if name is None:
                self.warnings.append(f"user {user_id} no longer exists: archived as no one")
            self.users[user_id] = name
        return self.users[user_id]


def _querysets(project: Project) -> dict[str, QuerySet]:
    documents = Document.objects.filter(project=project).values("pk")
    annotations = Annotation.objects.filter(document__project=project).values("pk")
    golds = project.gold_standards.values("pk")
    history_annotations = Annotation.history.filter(
        Q(document_id__in=documents) | Q(id__in=annotations)
    )
    by_gold = ("gold_standard_id", "pk")
    return {
        "taxonomy": Taxonomy.objects.filter(pk=project.taxonomy_id),
        "taxonomy_nodes": TaxonomyNode.objects.filter(taxonomy_id=project.taxonomy_id).order_by(
            "level", "pk"
        ),
        "project": Project.objects.filter(pk=project.pk),
        "memberships": Membership.objects.filter(project=project),
        "documents": Document.objects.filter(project=project),
        "sentences": Sentence.objects.filter(document__project=project),
        "assignments": Assignment.objects.filter(document__project=project),
        "annotations": Annotation.objects.filter(document__project=project),
        "spans": Span.objects.filter(annotation__document__project=project),
        "gold_standards": project.gold_standards.all(),
        "gold_documents": GoldDocument.objects.filter(gold_standard__project=project).order_by(
            *by_gold
        ),
        "gold_spans": GoldSpan.objects.filter(gold_standard__project=project).order_by(*by_gold),
        "import_jobs": ImportJob.objects.filter(project=project),
        "history_annotations": history_annotations,
        "history_spans": Span.history.filter(
            Q(annotation_id__in=annotations) | Q(annotation_id__in=history_annotations.values("id"))
        ),
        "history_gold_documents": GoldDocument.history.filter(
            Q(gold_standard_id__in=golds) | Q(document_id__in=documents)
        ),
        "history_gold_spans": GoldSpan.history.filter(
            Q(gold_standard_id__in=golds) | Q(document_id__in=documents)
        ),
    }


def _ordered(table: Table, queryset: QuerySet) -> QuerySet:
    if table.history_of is not None:
        return queryset.order_by("history_id")
    return queryset if queryset.query.order_by else queryset.order_by("pk")


def _rows(table: Table, queryset: QuerySet, refs: _Refs) -> Iterator[dict[str, Any]]:
    model_fields = [table.model._meta.get_field(name) for name in table.columns]
    attnames = [f.attname for f in model_fields]
    when = table.columns.index(table.blank_if) if table.blank_if else None
    for values in queryset.values_list(*attnames).iterator(chunk_size=CHUNK):
        blank = table.blanked if when is not None and values[when] else ()
        yield {
            name: None if name in blank else encode_value(table, name, value, refs)
            for name, value in zip(table.columns, values, strict=True)
        }


def export_project(*, project: Project, out: Path) -> ExportReport:
    """Write ``out`` (a zip, see ``format``); raises ``ExportError`` and writes nothing when
    the project refers to rows of another project."""
    out = Path(out)
    refs = _Refs()
    partial = out.with_name(out.name + ".partial")
    outermost = not connection.in_atomic_block  # inside a caller's transaction: its snapshot
    with transaction.atomic():
        if connection.vendor == "postgresql" and outermost:
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        project = Project.objects.get(pk=project.pk)
        for part in parts():
            part.check(project)
        querysets = _querysets(project)
        for part in parts():
            querysets.update(part.querysets(project))
        referenced = _referenced()
        try:
            with ArchiveWriter(partial) as writer:
                for table in tables():
                    queryset = _ordered(table, querysets[table.name])
                    if table.name in referenced and table.history_of is None:
                        refs.number(table.name, list(queryset.values_list("pk", flat=True)))
                    writer.write_rows(table.member, _rows(table, queryset, refs))
                users = sorted(name for name in refs.users.values() if name is not None)
                user_rows = (
                    get_user_model()
                    .objects.filter(**{f"{get_user_model().USERNAME_FIELD}__in": users})
                    .order_by(get_user_model().USERNAME_FIELD)
                    .values_list(*USER_FIELDS)
                )
                writer.write_rows(
                    f"{USERS}.jsonl",
                    (dict(zip(USER_FIELDS, values, strict=True)) for values in user_rows),
                )
                counts = dict(writer.counts)
                writer.write_json(
                    MANIFEST,
                    {
                        "format": ARCHIVE_FORMAT,
                        "version": ARCHIVE_VERSION,
                        "project": project.name,
                        "kind": project.kind,
                        "counts": counts,
                    },
                )
        except BaseException:
            partial.unlink(missing_ok=True)
            raise
    partial.replace(out)
    return ExportReport(path=out, project=project.name, counts=counts, warnings=refs.warnings)


__all__ = ["ExportError", "ExportReport", "export_project"]
