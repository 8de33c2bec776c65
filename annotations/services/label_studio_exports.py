"""Exporting a span project as Label Studio JSON tasks, with the labeling config that shows
them (reads only; documents in chunks).

Every document is one task (``id``: the Label Studio id it was imported with, else the
document's; ``data``: ``text`` and ``external_id``). Without a gold version, each submitted
annotation is one annotation of its task; with one, the version's documents only, each with
one ``ground_truth`` annotation by whoever created the version. A span is one region whose
labels are its alternatives (canonical names; ⊥ as "no fallacy").

Annotations carry no ``completed_by``: Label Studio takes one only as the e-mail or id of a
member of its own organization and refuses the whole file otherwise ("Unknown annotator's
email"); without it, it assigns the annotation to the user who imports the file. Who made
each annotation travels in the task's ``meta`` (which Label Studio keeps and exports again),
keyed by the annotation's ``id`` (Label Studio keeps it as the annotation's ``import_id``)::

    "meta": {"annotators": {"7": {"id": 3, "email": "alice@example.org",
                                  "username": "alice"}}}

``id`` is the platform user's id, or the Label Studio id of an ``ls-user-<id>`` annotator
without an e-mail; a re-import (``formats.label_studio``) takes the annotator from there.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import IO, Any

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet

from annotations.importing.formats.label_studio import (
    label_studio_task,
    labeling_config,
    region_result,
)
from annotations.labels import NO_FALLACY
from annotations.models import (
    Annotation,
    Document,
    GoldDocument,
    GoldSpan,
    GoldStandard,
    Project,
    Span,
    TaxonomyNode,
)

CHUNK_SIZE = 500
LS_USER = re.compile(r"ls-user-(\d+)")


def project_labeling_config(project: Project) -> str:
    """``<View><Labels>`` with the taxonomy's fallacy types (and ⊥) and ``<Text>``."""
    names = TaxonomyNode.objects.filter(
        taxonomy=project.taxonomy, level=TaxonomyNode.Level.TYPE
    ).order_by("parent__position", "position", "name")
    return labeling_config([*names.values_list("name", flat=True), NO_FALLACY])


def annotator(user: AbstractBaseUser | None) -> dict[str, Any]:
    """The annotator as the task's ``meta.annotators`` holds it (see the module docstring)."""
    if user is None:
        return {"id": 0, "email": "", "username": ""}
    username = user.get_username()
    found = LS_USER.fullmatch(username)
    user_id = int(found.group(1)) if found and not user.email else user.pk
    return {"id": user_id, "email": user.email, "username": username}


def _annotation(number: int, text: str, spans: list[Any], *, gold: bool) -> dict[str, Any]:
    return {
        "id": number,
        "was_cancelled": False,
        "ground_truth": gold,
        "result": [
            region_result(f"{number}-{index}", text, span.start, span.end, span.labels)
            for index, span in enumerate(spans, start=1)
        ],
    }


def _task(
    document: Document, made: list[tuple[dict[str, Any], AbstractBaseUser | None]]
) -> dict[str, Any]:
    """The document's task with its annotations, each with who made it."""
    task_id = (document.metadata or {}).get("label_studio_id", document.pk)
    return label_studio_task(
        task_id=task_id,
        text=document.text,
        external_id=document.external_id,
        annotations=[annotation for annotation, _ in made],
        annotators={str(annotation["id"]): annotator(user) for annotation, user in made},
    )


def _chunks(queryset: QuerySet) -> Iterator[list[Any]]:
    offset = 0
    while chunk := list(queryset[offset : offset + CHUNK_SIZE]):
        yield chunk
        offset += CHUNK_SIZE


def _annotation_tasks(project: Project) -> Iterator[dict[str, Any]]:
    documents = Document.objects.filter(project=project).order_by("position", "pk")
    for chunk in _chunks(documents):
        annotations = (
            Annotation.objects.filter(document__in=chunk, status=Annotation.Status.SUBMITTED)
            .select_related("annotator")
            .order_by("document_id", "annotator_id")
        )
        spans: dict[int, list[Span]] = {}
        for span in Span.objects.filter(annotation__in=annotations).order_by("start", "end", "pk"):
            spans.setdefault(span.annotation_id, []).append(span)
        by_document: dict[int, list[Annotation]] = {}
        for annotation in annotations:
            by_document.setdefault(annotation.document_id, []).append(annotation)
        for document in chunk:
            yield _task(
                document,
                [
                    (_annotation(a.pk, document.text, spans.get(a.pk, []), gold=False), a.annotator)
                    for a in by_document.get(document.pk, [])
                ],
            )


def _gold_tasks(gold: GoldStandard) -> Iterator[dict[str, Any]]:
    entries = (
        GoldDocument.objects.filter(gold_standard=gold)
        .select_related("document")
        .order_by("document__position", "document_id")
    )
    for chunk in _chunks(entries):
        spans: dict[int, list[GoldSpan]] = {}
        rows = GoldSpan.objects.filter(
            gold_standard=gold, document_id__in=[entry.document_id for entry in chunk]
        ).order_by("start", "end", "pk")
        for span in rows:
            spans.setdefault(span.document_id, []).append(span)
        for entry in chunk:
            document = entry.document
            annotation = _annotation(entry.pk, document.text, spans.get(document.pk, []), gold=True)
            yield _task(document, [(annotation, gold.created_by)])


def export_label_studio(
    *, project: Project, gold_standard: GoldStandard | None = None, out: IO[str]
) -> int:
    """Write the tasks as a JSON array (see the module docstring); returns how many."""
    tasks = _gold_tasks(gold_standard) if gold_standard else _annotation_tasks(project)
    count = 0
    out.write("[")
    for task in tasks:
        out.write(",\n" if count else "\n")
        out.write(json.dumps(task, ensure_ascii=False))
        count += 1
    out.write("\n]\n")
    return count
