"""Exporting an item project's items: FLUB JSON Lines, SmartyPat CSV, generic JSON Lines.

Reads only; documents are streamed in position order, ``CHUNK_SIZE`` at a time.

A document imported from a file of the same format is written back as it was read
(``annotations.items.restore_record``: key order and ``NaN`` restored), so FLUB's seven fields
and SmartyPat's columns come back equal. Other documents (added by hand, or imported from
another format) are written from their text, id, options and gold.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO, Any

from annotations.importing.formats.flub import write_flub
from annotations.importing.formats.jsonl import write_jsonl
from annotations.importing.formats.smartypat import COLUMNS as SMARTYPAT_COLUMNS
from annotations.importing.formats.smartypat import write_smartypat
from annotations.items import parse_form, restore_record
from annotations.models import Annotation, Document, Project

CHUNK_SIZE = 500


def _documents(project: Project) -> Iterator[Document]:
    return (
        Document.objects.filter(project=project)
        .order_by("position", "pk")
        .only("id", "text", "external_id", "metadata", "position")
        .iterator(chunk_size=CHUNK_SIZE)
    )


def _gold_of_kind(project: Project, metadata: dict[str, Any], kind: str) -> Any:
    gold = metadata.get("gold") or {}
    for form_field in parse_form(project.form).of_kind(kind):
        if form_field.name in gold:
            return gold[form_field.name]
    return None


def flub_object(project: Project, document: Document) -> dict[str, Any]:
    metadata = document.metadata or {}
    if metadata.get("format") == "flub" and metadata.get("record"):
        return restore_record(metadata)
    record = metadata.get("record") or {}
    return {
        "text": document.text,
        "is_question": bool(record.get("is_question", False)),
        "type": _gold_of_kind(project, metadata, "classification"),
        "explanation": _gold_of_kind(project, metadata, "free-text") or "",
        "id": document.external_id or str(document.pk),
        "options": metadata.get("options") or {},
        "answer": _gold_of_kind(project, metadata, "multiple-choice"),
    }


def export_flub(*, project: Project, out: IO[str]) -> int:
    """Every item as a FLUB line; returns how many."""
    return write_flub((flub_object(project, document) for document in _documents(project)), out)


def export_smartypat(*, project: Project, out: IO[str]) -> int:
    """Every item as a SmartyPat CSV row (the header of the first imported SmartyPat item,
    else the format's four columns); returns how many rows."""
    first = (
        Document.objects.filter(project=project, metadata__format="smartypat")
        .order_by("position", "pk")
        .only("metadata")
        .first()
    )
    header = list((first.metadata.get("record_keys") if first else None) or SMARTYPAT_COLUMNS)

    def rows() -> Iterator[list[Any]]:
        for document in _documents(project):
            metadata = document.metadata or {}
            if metadata.get("format") == "smartypat" and metadata.get("record"):
                record = restore_record(metadata)
                yield [record.get(column, "") for column in header]
                continue
            types = _gold_of_kind(project, metadata, "ranked") or []
            values = {
                "id": document.external_id or str(document.pk),
                "original post": document.text,
                "fallacy types": ", ".join(types),
                "declarative rewrite": "",
            }
            yield [values.get(column, "") for column in header]

    return write_smartypat(rows(), out, header=header)


def export_items(*, project: Project, out: IO[str], responses: bool = False) -> int:
    """Generic JSON Lines: ``{"id", "text", "options", "candidate", "gold"}`` a line, and
    with ``responses`` the submitted answers (``{"responses": {username: response}}``)."""

    def objects() -> Iterator[dict[str, Any]]:
        for document in _documents(project):
            metadata = document.metadata or {}
            item: dict[str, Any] = {
                "id": document.external_id or str(document.pk),
                "text": document.text,
                "options": metadata.get("options") or {},
                "gold": metadata.get("gold") or {},
            }
            if metadata.get("candidate"):
                item["candidate"] = metadata["candidate"]
            if responses:
                item["responses"] = {
                    username: response
                    for username, response in Annotation.objects.filter(
                        document=document, status=Annotation.Status.SUBMITTED
                    )
                    .order_by("annotator__username")
                    .values_list("annotator__username", "response")
                }
            yield item

    return write_jsonl(objects(), out)


EXPORTERS = {"flub": export_flub, "smartypat": export_smartypat, "items": export_items}
