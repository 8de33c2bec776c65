"""The project archive: a zip of JSON-lines members, one per table, and ``manifest.json``.

Deterministic: members in a fixed order with a fixed date, permissions and system; rows in a
fixed order (each table's own, see ``export``); keys sorted; ids are *archive-local*: a
table's rows are numbered 1..n in archive order, and references use those numbers, users
their username. So an import gets new primary keys but the same content, and exporting the
imported project again gives the same bytes.

History tables (django-simple-history rows) also record objects that no longer exist (a
deleted span): their ids are numbered after the table's live rows, n+1, n+2... in the order
they first appear; an import stores them as negative ids (``-local``) so they can never meet
a live row. JSON fields that hold ids are translated too: a gold span's ``proposed_by``
(usernames, sorted), a gold version's ``diff`` (``document``) and a judge report's
``per_item`` (document keys).

Every table lists the fields it archives; ``skipped`` are fields deliberately left out
(counters the database keeps, caches); ``implicit`` the references to the project (or
taxonomy) that the import sets. ``tests/annotations/backups/test_backups.py`` checks that every
concrete field of every model is in one of these, so a new field cannot silently go missing.
Values are encoded and decoded in ``values``; the zip is written and read in ``archive``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, cached_property
from typing import Any, Protocol

from django.db import models
from django.db.models import QuerySet

from annotations.models import (
    Annotation,
    Assignment,
    Document,
    GoldDocument,
    GoldSpan,
    GoldStandard,
    ImportJob,
    Membership,
    Project,
    Sentence,
    Span,
    Taxonomy,
    TaxonomyNode,
)

ARCHIVE_FORMAT = "fallacy-project-archive"
ARCHIVE_VERSION = 1
MANIFEST = "manifest.json"
USERS = "users"
USER_FIELDS = ("username", "email", "first_name", "last_name")


class ArchiveError(Exception):
    """A bad archive: names the member, the line and the field. Nothing was imported."""

    def __init__(self, member: str, line: int | None, field_name: str | None, message: str):
        self.member, self.line, self.field, self.message = member, line, field_name, message
        where = member + (f":{line}" if line is not None else "")
        super().__init__(
            f"{where}: {field_name}: {message}" if field_name else f"{where}: {message}"
        )


@dataclass(frozen=True)
class Table:
    name: str
    model: type[models.Model]
    fields: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()
    implicit: tuple[str, ...] = ()
    history_of: str | None = None  # a history table: the table of the recorded objects
    json: tuple[tuple[str, JsonValue], ...] = ()  # JSON fields that hold archive references
    blanked: tuple[str, ...] = ()  # fields archived as null in a row where ``blank_if`` holds
    blank_if: str | None = None
    # fields added after archives were first written: an older archive's row without one
    # reads as this value (the model field's default)
    added: tuple[tuple[str, Any], ...] = ()

    @property
    def member(self) -> str:
        return f"{self.name}.jsonl"

    @cached_property
    def columns(self) -> tuple[str, ...]:
        """Archived fields; a history table archives every field but ``history_id``."""
        if self.history_of is None:
            return self.fields
        return tuple(f.name for f in self.model._meta.concrete_fields if f.name != "history_id")


def _history(name: str, model: type[models.Model], of: str) -> Table:
    return Table(name, model.history.model, history_of=of)


def table_of(
    name: str,
    model: type[models.Model],
    fields: str,
    *,
    skipped: str = "",
    implicit: str = "",
    **options: Any,
) -> Table:
    """A table of ``model`` archiving the space-separated ``fields``."""
    return Table(
        name,
        model,
        tuple(fields.split()),
        tuple(skipped.split()),
        tuple(implicit.split()),
        **options,
    )


COUNTERS = "assignment_count annotation_count submitted_count in_progress_count done_count"


@dataclass(frozen=True)
class JsonValue:
    """How a JSON field holding archive references is written and read back."""

    encode: Callable[[Any, ExportRefs], Any]
    decode: Callable[[Any, ImportRefs, Callable[[str], ArchiveError]], Any]


def _map_diff(diff: dict[str, Any], convert: Callable[[int], int | None]) -> dict[str, Any]:
    out = dict(diff)
    for part in ("added", "removed", "changed"):
        if isinstance(out.get(part), list):
            out[part] = [
                {**entry, "document": convert(entry["document"])}
                if isinstance(entry, dict) and isinstance(entry.get("document"), int)
                else entry
                for entry in out[part]
            ]
    return out


def _map_per_item(report: dict[str, Any], convert: Callable[[int], int | None]) -> dict[str, Any]:
    per_item = report.get("per_item")
    if not isinstance(per_item, dict) or not all(k.lstrip("-").isdigit() for k in per_item):
        return report
    return {**report, "per_item": {str(convert(int(k))): v for k, v in per_item.items()}}


def _documents_in(mapping: Callable[..., dict[str, Any]]) -> JsonValue:
    """A JSON object whose document ids ``mapping`` converts (an orphan is numbered)."""
    return JsonValue(
        encode=lambda value, refs: (
            mapping(value, lambda doc: refs.local("documents", doc, orphan=True))
            if isinstance(value, dict)
            else value
        ),
        decode=lambda value, refs, fail: (
            mapping(value, lambda doc: refs.pk("documents", doc, orphan=True))
            if isinstance(value, dict)
            else value
        ),
    )


def _proposers_out(value: Any, refs: ExportRefs) -> Any:
    if not isinstance(value, dict):
        return value
    return {
        label: sorted(u for u in (refs.username(i) for i in ids) if u is not None)
        for label, ids in value.items()
    }


def _proposers_in(value: Any, refs: ImportRefs, fail: Callable[[str], ArchiveError]) -> Any:
    if not isinstance(value, dict) or not all(
        isinstance(u, list) and all(isinstance(n, str) for n in u) for u in value.values()
    ):
        raise fail("expected {label: [username, ...]}")
    ids = {label: [refs.user(u) for u in users] for label, users in value.items()}
    if any(None in users for users in ids.values()):
        raise fail("names a user who is not in users.jsonl")
    return {label: sorted(users) for label, users in ids.items()}


DIFF_DOCUMENTS = _documents_in(_map_diff)  # a gold version's diff
PER_ITEM_DOCUMENTS = _documents_in(_map_per_item)  # a report's ``per_item`` figures
PROPOSERS = JsonValue(_proposers_out, _proposers_in)  # {label: [user id]} as usernames

PROJECT_TABLES: tuple[Table, ...] = (
    table_of("taxonomy", Taxonomy, "name version title description created_at"),
    table_of("taxonomy_nodes", TaxonomyNode,
           "parent level name aliases definition template slots example position",
           implicit="taxonomy"),
    table_of("project", Project,
           "name description guidelines annotators_per_document archived_at kind form "
           "justification_templates created_at",
           skipped=f"{COUNTERS} document_count todo_count", implicit="taxonomy",
           added=(("justification_templates", "optional"),)),
    table_of("memberships", Membership, "user role",
           skipped=f"{COUNTERS} assigned_count", implicit="project"),
    table_of("documents", Document,
           "name text source external_id metadata position created_at",
           # in_search_index: restored documents are written into the search index;
           # updated_at: the last save here (stored results compare it), none once restored
           skipped=f"{COUNTERS} in_search_index updated_at", implicit="project"),
    table_of("sentences", Sentence, "document index start end"),
    table_of("assignments", Assignment, "document annotator created_at"),
    table_of("annotations", Annotation,
           "document annotator status comments response revision created_at updated_at "
           "submitted_at"),
    table_of("spans", Span,
           "annotation start end labels details client_id revision created_at updated_at"),
    table_of("gold_standards", GoldStandard,
           "version status source note created_by created_at published_at published_by "
           "based_on diff", implicit="project", json=(("diff", DIFF_DOCUMENTS),)),
    table_of("gold_documents", GoldDocument,
           "gold_standard document comments revision updated_at updated_by"),
    table_of("gold_spans", GoldSpan,
           "gold_standard document start end labels details proposed_by",
           json=(("proposed_by", PROPOSERS),)),
    table_of("import_jobs", ImportJob,
           "created_by format options file_name size status lines_total lines_done "
           "report errors created_at started_at finished_at", implicit="project",
           skipped="heartbeat_at"),  # liveness of the process running it, not data
)  # fmt: skip
HISTORY_TABLES: tuple[Table, ...] = (
    _history("history_annotations", Annotation, "annotations"),
    _history("history_spans", Span, "spans"),
    _history("history_gold_documents", GoldDocument, "gold_documents"),
    _history("history_gold_spans", GoldSpan, "gold_spans"),
)


def _no_check(project: Project) -> None:
    return None


@dataclass(frozen=True)
class Part:
    """Tables another app adds to a project's archive, archived after the project's own
    tables and before the history; registered in that app's ``AppConfig.ready()``.

    ``querysets(project)``: each table's rows of the project; ``check(project)``: raises
    ``ExportError`` when the project refers to rows an archive cannot hold; ``restore(importer,
    project)``: inserts the tables' rows (``restore.Importer``); ``not_archived``: that app's
    models with rows of a project that are not archived, and why.
    """

    name: str
    tables: tuple[Table, ...]
    querysets: Callable[[Project], dict[str, QuerySet]]
    restore: Callable[[Any, Project], None]
    check: Callable[[Project], None] = _no_check
    not_archived: tuple[tuple[str, str], ...] = ()


_parts: dict[str, Part] = {}


def register_part(part: Part) -> None:
    _parts[part.name] = part
    _index.cache_clear()


def parts() -> tuple[Part, ...]:
    return tuple(_parts.values())


def tables() -> tuple[Table, ...]:
    """Every table, in archive order."""
    return _index()[0]


def table_named(name: str) -> Table:
    return _index()[1][name]


# This app's models with rows of a project that are not archived, and why.
NOT_ARCHIVED = (
    (
        "AnnotatorCounter",
        "counters the database keeps; the restore's inserts count the rows again",
    ),
    ("ImportUpload", "an unfinished import's uploaded bytes; a restored job does not run"),
    ("Invitation", "a single-use link to join; the restored project's admin invites again"),
    (
        "LabelStudioAnnotator",
        "which user holds a Label Studio annotator's work; a restored project maps them again",
    ),
)


def not_archived() -> dict[str, str]:
    """Models with rows of a project that are not archived, and why (checked by the tests)."""
    return {
        **dict(NOT_ARCHIVED),
        **{model: why for part in parts() for model, why in part.not_archived},
    }


def members() -> tuple[str, ...]:
    return (*(each.member for each in tables()), f"{USERS}.jsonl", MANIFEST)


@cache
def _index() -> tuple[tuple[Table, ...], dict[str, Table], dict[type[models.Model], str]]:
    ordered = (*PROJECT_TABLES, *(t for part in parts() for t in part.tables), *HISTORY_TABLES)
    by_name = {each.name: each for each in ordered}
    by_model = {each.model: each.name for each in ordered if each.history_of is None}
    return ordered, by_name, by_model


def model_table(model: type[models.Model]) -> str | None:
    """The name of the (non-history) table of ``model``, or None."""
    return _index()[2].get(model)


class ExportRefs(Protocol):
    def local(self, table: str, pk: int | None, *, orphan: bool) -> int | None: ...
    def username(self, user_id: int | None) -> str | None: ...


class ImportRefs(Protocol):
    def pk(self, table: str, local: int | None, *, orphan: bool) -> int | None: ...
    def user(self, username: str | None) -> int | None: ...
