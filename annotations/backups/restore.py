"""``import_project``: a project archive (see ``format``) into this instance.

One transaction: a bad archive (a damaged member, a row that is not JSON, a missing or
unknown field, a wrong type, a reference to no row) raises ``ArchiveError`` naming the
member, the line and the field, and nothing is imported. A project name that exists is
refused (``ProjectExists``) unless the caller renames the import.

What an import reuses and what it creates:
- users by username; a missing one is created *inactive* with an unusable password (an admin
  activates it and sets a password) and reported;
- the taxonomy when one with the same name and version has the same content, else a new one
  (``VERSION+restored`` when the name and version are taken by a different tree, reported);
- what another app's part of the archive reuses is that part's to say (``format.Part``;
  the evaluation app's prompt variants: ``evaluation.runs.backups``).

Rows are inserted in archive order with the archive's timestamps (``auto_now`` fields are
set again after the insert) and without new history rows: the archive's history rows are
the history. Published gold versions are inserted as drafts, filled, then published, so the
immutability triggers hold throughout.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.db import DatabaseError, IntegrityError, models, transaction
from fallacy_platform.bounded import LimitExceeded

from annotations.backups.archive import ArchiveReader
from annotations.backups.format import (
    USER_FIELDS,
    USERS,
    ArchiveError,
    Table,
    parts,
    table_named,
)
from annotations.backups.values import decode_value
from annotations.importing.untrusted import check_backup
from annotations.models import GoldStandard, Project, Taxonomy, TaxonomyNode

BATCH = 1000


class ProjectExists(Exception):
    """The archive's project name (or the new name) is taken here."""


@dataclass
class ImportReport:
    project: Project
    counts: dict[str, int]
    users_created: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


class _Refs:
    """Archive ids -> primary keys here (orphans of history tables: ``-local``)."""

    def __init__(self) -> None:
        self.pks: dict[str, list[int]] = {}
        self.users: dict[str, int] = {}

    def pk(self, table: str, local: int | None, *, orphan: bool) -> int | None:
        if local is None:
            return None
        pks = self.pks.get(table, [])
        if 1 <= local <= len(pks):
            return pks[local - 1]
        return -local if orphan else None

    def user(self, username: str | None) -> int | None:
        return None if username is None else self.users.get(username)


def _auto_fields(table: Table) -> list[str]:
    return [
        name
        for name in table.columns
        if getattr(table.model._meta.get_field(name), "auto_now", False)
        or getattr(table.model._meta.get_field(name), "auto_now_add", False)
    ]


class Importer:
    """Inserts an archive's rows: the project's own tables here, other apps' parts through
    their ``restore`` (which use ``bulk``, ``decode``, ``rows``, ``refs`` and ``notes``)."""

    def __init__(self, reader: ArchiveReader, rename: str | None) -> None:
        self.reader = reader
        self.rename = rename
        self.refs = _Refs()
        self.report_users: list[str] = []
        self.notes: list[str] = []
        self.counts: dict[str, int] = {}

    # --- generic rows -------------------------------------------------------------------

    def rows(self, table: Table) -> Iterator[tuple[int, dict[str, Any]]]:
        return self.reader.rows(table.member, table.columns, dict(table.added))

    def decode(
        self, table: Table, line: int, row: dict[str, Any], skip: tuple[str, ...] = ()
    ) -> dict[str, Any]:
        model = table.model
        return {
            model._meta.get_field(name).attname: decode_value(
                table, name, row[name], self.refs, line
            )
            for name in table.columns
            if name not in skip
        }

    def insert(self, table: Table, objs: list[models.Model], lines: tuple[int, int]) -> None:
        """bulk_create in order, then the archive's values of ``auto_now`` fields again."""
        auto = _auto_fields(table)
        kept = [{name: getattr(obj, name) for name in auto} for obj in objs]
        try:
            with transaction.atomic():
                table.model.objects.bulk_create(objs)
                if auto:
                    for obj, values in zip(objs, kept, strict=True):
                        for name, value in values.items():
                            setattr(obj, name, value)
                    table.model.objects.bulk_update(objs, auto)
        except (IntegrityError, DatabaseError) as error:
            first, last = lines
            where = f"{first}" if first == last else f"{first}-{last}"
            raise ArchiveError(table.member, None, None, f"lines {where}: {error}") from None
        if table.history_of is None:
            self.refs.pks.setdefault(table.name, []).extend(obj.pk for obj in objs)

    def bulk(
        self,
        name: str,
        implicit: dict[str, Any] | None = None,
        deferred: tuple[str, ...] = (),
    ) -> None:
        """Every row of a table in batches; ``deferred`` references (to the same table) are
        set once all rows exist."""
        table = table_named(name)
        batch: list[models.Model] = []
        later: list[tuple[int, dict[str, Any]]] = []
        first = 1
        count = 0
        for line, row in self.rows(table):
            values = self.decode(table, line, row, skip=deferred)
            batch.append(table.model(**values, **(implicit or {})))
            if deferred:
                later.append((line, {key: row[key] for key in deferred}))
            count = line
            if len(batch) >= BATCH:
                self.insert(table, batch, (first, line))
                batch, first = [], line + 1
        if batch:
            self.insert(table, batch, (first, count))
        self.counts[table.member] = count
        if deferred:
            self._set_deferred(table, later)

    def _set_deferred(self, table: Table, later: list[tuple[int, dict[str, Any]]]) -> None:
        changed = []
        for line, values in later:
            decoded = {
                table.model._meta.get_field(name).attname: decode_value(
                    table, name, value, self.refs, line
                )
                for name, value in values.items()
            }
            if any(value is not None for value in decoded.values()):
                obj = table.model(pk=self.refs.pks[table.name][line - 1], **decoded)
                changed.append(obj)
        if changed:
            table.model.objects.bulk_update(changed, list(decoded), batch_size=BATCH)

    # --- users, taxonomy, project --------------------------------------------------------

    def users(self) -> None:
        User = get_user_model()
        rows = list(self.reader.rows(f"{USERS}.jsonl", USER_FIELDS))
        for line, row in rows:
            for name in USER_FIELDS:
                if not isinstance(row[name], str):
                    raise ArchiveError(f"{USERS}.jsonl", line, name, "expected a string")
        names = [row["username"] for _, row in rows]
        existing = dict(
            User.objects.filter(**{f"{User.USERNAME_FIELD}__in": names}).values_list(
                User.USERNAME_FIELD, "pk"
            )
        )
        for _, row in rows:
            if row["username"] not in existing:
                user = User(**row, is_active=False)
                user.set_unusable_password()
                user.save()
                existing[row["username"]] = user.pk
                self.report_users.append(row["username"])
        self.refs.users = existing
        self.counts[f"{USERS}.jsonl"] = len(rows)

    def taxonomy(self) -> Taxonomy:
        table, nodes_table = table_named("taxonomy"), table_named("taxonomy_nodes")
        rows = list(self.rows(table))
        if len(rows) != 1:
            raise ArchiveError(table.member, None, None, f"expected 1 row, found {len(rows)}")
        line, row = rows[0]
        values = self.decode(table, line, row)
        nodes = [(n_line, n_row) for n_line, n_row in self.rows(nodes_table)]
        for n_line, n_row in nodes:  # types and references checked before any comparison
            self.decode(nodes_table, n_line, {**n_row, "parent": None})
            parent = n_row["parent"]
            if parent is not None and not (isinstance(parent, int) and 1 <= parent < n_line):
                raise ArchiveError(nodes_table.member, n_line, "parent", "expected an earlier row")
        self.counts[table.member], self.counts[nodes_table.member] = 1, len(nodes)
        wanted = _tree(values, [r for _, r in nodes])
        found = Taxonomy.objects.filter(name=values["name"], version=values["version"]).first()
        if found is not None:
            current = list(
                found.nodes.order_by("level", "pk").values(
                    "pk", "parent_id", *[c for c in nodes_table.columns if c != "parent"]
                )
            )
            by_pk = {n["pk"]: i for i, n in enumerate(current, start=1)}
            for n in current:
                n["parent"] = by_pk.get(n.pop("parent_id"))
            if _tree(_taxonomy_values(found), current) == wanted:
                names = {n["name"]: n["pk"] for n in current}
                self.refs.pks[nodes_table.name] = [names[r["name"]] for _, r in nodes]
                self.refs.pks[table.name] = [found.pk]
                return found
            version = f"{values['version']}+restored"
            taken = set(
                Taxonomy.objects.filter(name=values["name"]).values_list("version", flat=True)
            )
            suffix = 2
            while version in taken:
                version, suffix = f"{values['version']}+restored-{suffix}", suffix + 1
            self.notes.append(
                f"taxonomy {values['name']} v{values['version']} differs here: created as "
                f"v{version}"
            )
            values["version"] = version
        created_at = values.pop("created_at")
        taxonomy = Taxonomy.objects.create(**values)
        Taxonomy.objects.filter(pk=taxonomy.pk).update(created_at=created_at)
        pks: list[int] = []
        self.refs.pks[nodes_table.name] = pks
        for n_line, n_row in nodes:
            node = TaxonomyNode(taxonomy=taxonomy, **self.decode(nodes_table, n_line, n_row))
            try:
                with transaction.atomic():
                    node.save()
            except IntegrityError as error:
                raise ArchiveError(nodes_table.member, n_line, None, str(error)) from None
            pks.append(node.pk)
        self.refs.pks[table.name] = [taxonomy.pk]
        return taxonomy

    def project(self, taxonomy: Taxonomy) -> Project:
        table = table_named("project")
        rows = list(self.rows(table))
        if len(rows) != 1:
            raise ArchiveError(table.member, None, None, f"expected 1 row, found {len(rows)}")
        line, row = rows[0]
        values = self.decode(table, line, row)
        if self.rename:
            values["name"] = self.rename
        if Project.objects.filter(name=values["name"]).exists():
            raise ProjectExists(
                f"a project named {values['name']!r} exists here: nothing imported "
                "(import it under another name with --rename NEW)"
            )
        created_at = values.pop("created_at")
        try:
            with transaction.atomic():
                project = Project.objects.create(taxonomy=taxonomy, **values)
        except IntegrityError as error:
            raise ArchiveError(table.member, line, None, str(error)) from None
        Project.objects.filter(pk=project.pk).update(created_at=created_at)
        self.refs.pks[table.name] = [project.pk]
        self.counts[table.member] = 1
        return project

    # --- gold versions -------------------------------------------------------------------

    def gold(self, project: Project) -> None:
        table = table_named("gold_standards")
        golds = list(self.rows(table))
        self.counts[table.member] = len(golds)
        self.refs.pks[table.name] = []
        documents = _Groups(self, table_named("gold_documents"))
        spans = _Groups(self, table_named("gold_spans"))
        for local, (line, row) in enumerate(golds, start=1):
            based_on = row["based_on"]
            if based_on is not None and not (isinstance(based_on, int) and 1 <= based_on < local):
                raise ArchiveError(table.member, line, "based_on", "expected an earlier version")
            values = self.decode(table, line, row)
            final = {
                key: values.pop(key)
                for key in ("status", "published_at", "published_by_id", "created_at")
            }
            try:
                with transaction.atomic():
                    gold = GoldStandard.objects.create(project=project, **values)
            except IntegrityError as error:
                raise ArchiveError(table.member, line, None, str(error)) from None
            self.refs.pks[table.name].append(gold.pk)
            documents.insert(local)
            spans.insert(local)
            try:
                with transaction.atomic():
                    GoldStandard.objects.filter(pk=gold.pk).update(**final)
            except (IntegrityError, DatabaseError) as error:
                raise ArchiveError(table.member, line, None, str(error)) from None
        documents.finish()
        spans.finish()

    # --- all -------------------------------------------------------------------------------

    def run(self) -> Project:
        self.users()
        taxonomy = self.taxonomy()
        project = self.project(taxonomy)
        implicit = {"project": project}
        self.bulk("memberships", implicit)
        self.bulk("documents", implicit)
        for name in ("sentences", "assignments", "annotations", "spans"):
            self.bulk(name)
        self.gold(project)
        self.bulk("import_jobs", implicit)
        for part in parts():
            part.restore(self, project)
        for name in (
            "history_annotations",
            "history_spans",
            "history_gold_documents",
            "history_gold_spans",
        ):
            self.bulk(name)
        return project


class _Groups:
    """The rows of a gold table, taken one version at a time (the archive groups them)."""

    def __init__(self, importer: Importer, table: Table) -> None:
        self.importer, self.table = importer, table
        self.rows = importer.rows(table)
        self.pending: tuple[int, dict[str, Any]] | None = next(self.rows, None)
        self.count = 0

    def insert(self, local: int) -> None:
        batch: list[models.Model] = []
        first = None
        while self.pending is not None:
            line, row = self.pending
            key = row["gold_standard"]
            if not isinstance(key, int) or key < local:
                raise ArchiveError(
                    self.table.member, line, "gold_standard", "rows must be grouped by version"
                )
            if key != local:
                break
            first = first or line
            values = self.importer.decode(self.table, line, row)
            batch.append(self.table.model(**values))
            self.count = line
            self.pending = next(self.rows, None)
            if len(batch) >= BATCH:
                self.importer.insert(self.table, batch, (first, line))
                batch, first = [], None
        if batch:
            self.importer.insert(self.table, batch, (first or self.count, self.count))

    def finish(self) -> None:
        if self.pending is not None:
            line, row = self.pending
            raise ArchiveError(
                self.table.member,
                line,
                "gold_standard",
                f"no row {row['gold_standard']} in gold_standards.jsonl",
            )
        self.importer.counts[self.table.member] = self.count


def _taxonomy_values(taxonomy: Taxonomy) -> dict[str, Any]:
    return {name: getattr(taxonomy, name) for name in ("name", "version", "title", "description")}


def _tree(values: dict[str, Any], nodes: list[dict[str, Any]]) -> tuple:
    """A taxonomy's content (no ids, no dates): what makes two taxonomies the same."""
    names = {i: node["name"] for i, node in enumerate(nodes, start=1)}
    keys = [c for c in table_named("taxonomy_nodes").columns if c != "parent"]
    return (
        tuple(values[k] for k in ("name", "version", "title", "description")),
        sorted((names.get(node["parent"]) or "", *(repr(node[k]) for k in keys)) for node in nodes),
    )


def import_project(*, path: Path, rename: str | None = None) -> ImportReport:
    """Create the archive's project here (see the module docstring); one transaction. The
    archive is first streamed through once in a bounded child process
    (``importing.untrusted.check_backup``): past a limit, an ``ArchiveError`` naming it."""
    try:
        check_backup(path=Path(path))
    except LimitExceeded as error:
        raise ArchiveError(Path(path).name, None, None, str(error)) from None
    reader = ArchiveReader(Path(path))
    try:
        importer = Importer(reader, rename)
        with transaction.atomic():
            project = importer.run()
    finally:
        reader.close()
    return ImportReport(
        project=project,
        counts=importer.counts,
        users_created=importer.report_users,
        notes=importer.notes,
    )
