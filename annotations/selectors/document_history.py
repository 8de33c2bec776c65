"""A document's history: every recorded change (django-simple-history rows) to its
annotations, spans and gold rows, newest first, with user ids shown as usernames.

Callers check access first (``annotations.selectors.access``: reviewers and admins of the
project only).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import QuerySet

from annotations.models import Annotation, Document, GoldDocument, GoldSpan, GoldStandard, Span
from annotations.selectors.gold import username_of

HISTORY_LIMIT = 500
ACTIONS = {"+": "created", "~": "changed", "-": "deleted"}
IGNORED = {"revision", "updated_at", "created_at", "history_id", "history_date"}
USER_FIELDS = {"updated_by", "annotator"}  # values are user ids, shown as usernames
EXCERPT_CHARS = 80


def _changes(record: Any, previous: Any | None, fields: list[str]) -> list[dict[str, Any]]:
    if record.history_type == "~" and previous is not None:
        delta = record.diff_against(previous)
        return [
            {"field": c.field, "before": c.old, "after": c.new}
            for c in delta.changes
            if c.field not in IGNORED
        ]
    value = {field: getattr(record, field) for field in fields}
    if record.history_type == "-":
        return [{"field": f, "before": v, "after": None} for f, v in value.items()]
    return [{"field": f, "before": None, "after": v} for f, v in value.items()]


def _user_ids(change: dict[str, Any]) -> set[int]:
    ids: set[int] = set()
    for value in (change["before"], change["after"]):
        if change["field"] in USER_FIELDS and isinstance(value, int):
            ids.add(value)
        elif change["field"] == "proposed_by" and isinstance(value, dict):
            ids.update(i for users in value.values() for i in users if isinstance(i, int))
    return ids


def _named(change: dict[str, Any], names: dict[int, str]) -> dict[str, Any]:
    """A change with user ids (``updated_by``, ``annotator``, ``proposed_by``'s lists) as
    usernames."""

    def name_of(user_id: Any) -> Any:
        if not isinstance(user_id, int):
            return user_id
        return names.get(user_id, f"deleted user {user_id}")

    def name(value: Any) -> Any:
        if change["field"] in USER_FIELDS:
            return name_of(value)
        if change["field"] == "proposed_by" and isinstance(value, dict):
            return {label: [name_of(i) for i in users] for label, users in value.items()}
        return value

    return {**change, "before": name(change["before"]), "after": name(change["after"])}


def _excerpt(text: str, record: Any) -> str | None:
    """The text of a span record's range, shortened to ``EXCERPT_CHARS``."""
    start, end = getattr(record, "start", None), getattr(record, "end", None)
    if start is None or end is None:
        return None
    piece = " ".join(text[start:end].split())
    return piece if len(piece) <= EXCERPT_CHARS else piece[: EXCERPT_CHARS - 1] + "…"


def _with_previous(records: list[Any]) -> list[tuple[Any, Any | None]]:
    """Each record (newest first) with the object's record before it: the previous one
    fetched, else (for the oldest fetched change of an object) one query."""
    before: dict[int, Any] = {}
    last: dict[Any, Any] = {}
    for record in reversed(records):
        before[record.history_id] = last.get(record.id)
        last[record.id] = record
    out = []
    for record in records:
        previous = before[record.history_id]
        if previous is None and record.history_type == "~":
            previous = record.prev_record
        out.append((record, previous))
    return out


# A kind of history row: (kind, its rows, the fields a creation or deletion lists, the
# row's owner as shown).
HistorySource = tuple[str, QuerySet, list[str], Callable[[Any], str]]


def document_history(document: Document) -> list[dict[str, Any]]:
    """Every recorded change to the document's annotations, spans and gold rows, newest
    first, at most ``HISTORY_LIMIT``. Writes through ``save()``/``delete()`` (the APIs, the
    admin, the services) are recorded with the request's user; bulk writes (imports, the copy
    of a published version into a new draft) are not."""
    sources, users = _history_sources(document)
    entries = [
        entry
        for kind, rows, fields, owner in sources
        for entry in _entries(document, kind, rows, fields, owner)
    ]
    entries.sort(key=lambda e: e["at"], reverse=True)
    entries = entries[:HISTORY_LIMIT]
    wanted = {i for e in entries for c in e["changes"] for i in _user_ids(c)} - set(users)
    User = get_user_model()
    names = {**users, **dict(User.objects.filter(pk__in=wanted).values_list("pk", "username"))}
    for entry in entries:
        entry["changes"] = [_named(c, names) for c in entry["changes"]]
    return entries


def _history_sources(document: Document) -> tuple[list[HistorySource], dict[int, str]]:
    """The document's kinds of history rows, and the usernames of its annotations' owners."""
    annotation_rows = Annotation.history.filter(document_id=document.pk)
    owners = dict(annotation_rows.values_list("id", "annotator_id").distinct())
    # imported annotations have no history row of their own, their spans' changes may
    owners.update(Annotation.objects.filter(document=document).values_list("id", "annotator_id"))
    User = get_user_model()
    users = dict(User.objects.filter(pk__in=set(owners.values())).values_list("pk", "username"))
    golds = {
        pk: (version, status)
        for pk, version, status in GoldStandard.objects.filter(
            project_id=document.project_id
        ).values_list("pk", "version", "status")
    }

    def annotator(annotation_id: int) -> str:
        return f"annotator {users.get(owners.get(annotation_id), '?')}"

    def gold(gold_standard_id: int) -> str:
        version, status = golds.get(gold_standard_id, ("?", "deleted"))
        return f"gold v{version} ({status})"

    sources: list[HistorySource] = [
        ("annotation", annotation_rows, ["status", "comments"], lambda r: annotator(r.id)),
        (
            "span",
            Span.history.filter(annotation_id__in=list(owners)),
            ["start", "end", "labels", "details"],
            lambda r: annotator(r.annotation_id),
        ),
        (
            "gold_document",
            GoldDocument.history.filter(document_id=document.pk),
            ["comments"],
            lambda r: gold(r.gold_standard_id),
        ),
        (
            "gold_span",
            GoldSpan.history.filter(document_id=document.pk),
            ["start", "end", "labels", "details", "proposed_by"],
            lambda r: gold(r.gold_standard_id),
        ),
    ]
    return sources, users


def _entries(
    document: Document,
    kind: str,
    rows: QuerySet,
    fields: list[str],
    owner: Callable[[Any], str],
) -> list[dict[str, Any]]:
    """The newest ``HISTORY_LIMIT`` records of one kind as history entries (user ids in
    their changes not named yet)."""
    records = list(
        rows.select_related("history_user").order_by("-history_date", "-history_id")[:HISTORY_LIMIT]
    )
    return [
        {
            "at": record.history_date,
            "user": username_of(record.history_user),
            "kind": kind,
            "object_id": record.id,
            "action": ACTIONS.get(record.history_type, record.history_type),
            "owner": owner(record),
            "excerpt": _excerpt(document.text, record),
            "changes": _changes(record, previous, fields),
        }
        for record, previous in _with_previous(records)
    ]
