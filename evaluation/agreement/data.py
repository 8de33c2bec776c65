"""Reads for agreement: a project's submitted work as sentence units, and its inputs hash.

- The *compared documents* are the project's documents with at least two submitted
  annotations; the *annotators* are the users with a submitted annotation on one of them.
- A unit is a stored ``Sentence`` of a compared document; an annotator's value for it at a
  level is the set of the level's labels of their spans overlapping it by at least one
  character (⊥ alternatives dropped), ``{⊥}`` when none does (``scoring.iaa.unit_values``).
- ``inputs_hash`` changes whenever a submitted annotation or one of its spans changes
  (annotation ids, revisions and statuses; the spans' count, id sum and last update), or the
  project's taxonomy, the gold version, the options or ``CODE_VERSION`` change: it keys the
  cached results.

Bulk reads only: a fixed number of queries whatever the project's size.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, Max, Sum

from annotations.models import Annotation, Document, GoldStandard, Project, Sentence, Span
from evaluation.runs import stored
from evaluation.scoring import LevelMapping, normalise_label

# bumped when the payload changes, so results cached by an older version are recomputed
# (2026-11-24: metric, library and level on every figure entry; 2026-11-27: per-document
# disagreement)
CODE_VERSION = "agreement-2026-11-27"
SpanRow = tuple[int, int, tuple[str, ...]]


@dataclass
class DocumentWork:
    id: int
    name: str
    position: int
    text: str
    sentences: list[tuple[int, int]]
    spans: dict[int, list[SpanRow]] = field(default_factory=dict)  # annotator id -> spans


@dataclass
class ProjectWork:
    mapping: LevelMapping
    annotators: dict[int, str]  # id -> username, by username
    documents: list[DocumentWork]


def _submitted(project: Project):
    return Annotation.objects.filter(document__project=project, status=Annotation.Status.SUBMITTED)


def inputs_hash(
    project: Project, gold_standard: GoldStandard | None, options: dict[str, Any]
) -> str:
    """sha256 of everything the figures depend on (2 queries)."""
    annotations = list(
        _submitted(project).order_by("id").values_list("id", "revision", "document_id")
    )
    spans = Span.objects.filter(annotation__in=_submitted(project)).aggregate(
        n=Count("id"), ids=Sum("id"), last=Max("updated_at")
    )
    payload = {
        "code": CODE_VERSION,
        "project": project.pk,
        "taxonomy": project.taxonomy_id,
        "gold": gold_standard.pk if gold_standard else None,
        "options": options,
        "annotations": annotations,
        "spans": [
            spans["n"],
            int(spans["ids"] or 0),
            spans["last"].isoformat() if spans["last"] else None,
        ],
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def project_work(project: Project) -> ProjectWork:
    """The compared documents with their sentences and every annotator's spans (4 queries)."""
    rows = list(_submitted(project).values_list("id", "document_id", "annotator_id"))
    by_document: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for annotation_id, document_id, annotator_id in rows:
        by_document[document_id].append((annotation_id, annotator_id))
    compared = {doc: entries for doc, entries in by_document.items() if len(entries) >= 2}
    annotation_owner = {
        annotation_id: (document_id, annotator_id)
        for document_id, entries in compared.items()
        for annotation_id, annotator_id in entries
    }
    from django.contrib.auth import get_user_model

    users = dict(
        get_user_model()
        .objects.filter(pk__in={owner for _, owner in annotation_owner.values()})
        .order_by("username")
        .values_list("pk", "username")
    )
    sentences: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for document_id, start, end in (
        Sentence.objects.filter(document_id__in=compared)
        .order_by("document_id", "index")
        .values_list("document_id", "start", "end")
    ):
        sentences[document_id].append((start, end))
    documents = {
        pk: DocumentWork(pk, name, position, text, sentences.get(pk, []))
        for pk, name, position, text in Document.objects.filter(pk__in=compared)
        .order_by("position", "id")
        .values_list("pk", "name", "position", "text")
    }
    for document in documents.values():
        for _, annotator_id in compared[document.id]:
            document.spans[annotator_id] = []
    for annotation_id, start, end, labels in (
        Span.objects.filter(annotation_id__in=annotation_owner)
        .order_by("id")
        .values_list("annotation_id", "start", "end", "labels")
    ):
        document_id, annotator_id = annotation_owner[annotation_id]
        canonical = tuple(normalise_label(label) for label in labels)
        documents[document_id].spans[annotator_id].append((start, end, canonical))
    ordered = sorted(documents.values(), key=lambda d: (d.position, d.id))
    return ProjectWork(stored.taxonomy_mapping(project.taxonomy), users, ordered)


def default_gold(project: Project) -> GoldStandard | None:
    """The project's latest published gold version, if any."""
    return (
        project.gold_standards.filter(status=GoldStandard.Status.PUBLISHED)
        .order_by("-version")
        .first()
    )
