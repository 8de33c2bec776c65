"""Importing a Label Studio JSON export (``formats.label_studio``) into a span project.

- Tasks are documents: a task whose text is already a document of the project reuses it;
  otherwise its key (``data.external_id``, else ``ls-<task id>``) must not name a stored
  document with another text (that is an error naming the task), and a new document gets
  the key as its external id and its sentences split.
- Every completed (not cancelled) annotation is one annotator's submitted annotation. Which
  user holds an annotator's work is decided per project by ``label_studio_annotators`` (the
  user's choice: a member, an invited person, or dropped; else the user remembered for its
  Label Studio id or e-mail; else a match; else a new placeholder): the same Label Studio
  user lands on the same platform user whichever export route wrote the file. Through the
  browser (``members_only``: a project admin's upload) no account outside the project is
  ever matched. Re-importing replaces that annotator's annotations on the file's
  documents; one annotator twice on a task is an error.
- ``texts_only``: the tasks' texts become documents; annotations and predictions are skipped
  (and counted).
- Regions are snapped outward to the sentences they overlap (the platform annotates whole
  sentences); the report counts the regions moved and the characters added. Regions of one
  annotation covering the same sentences become one span whose labels are alternatives
  (several labels on one region too); overlapping regions over different sentences stay
  separate spans. Labels resolve with the project's taxonomy; an unknown one is an error.
  A region's text area is its labels' explanations (``formats.label_studio.explanations``),
  kept in the span's ``details``; regions merged into one span join theirs.
- Predictions become one imported run per ``model_version`` (through the hook the
  evaluation app registers, ``register_prediction_importer``), one output per sentence of
  each predicted document: the labels of the regions over it, or "no fallacy".

Regions are snapped in ``label_studio_regions``; the report is ``label_studio_report``.
All or nothing: one transaction; the first problem raises ``DatasetFormatError`` naming the
file, the task's line and id, and the region.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from annotations.importing.formats import DatasetFormatError
from annotations.importing.formats.jsonl import Source, source_name
from annotations.importing.formats.label_studio import LabelStudioTask, checker, read_label_studio
from annotations.importing.formats.label_studio_sources import (
    SourceAnnotator,
    read_annotators,
    source_key,
)
from annotations.importing.label_studio_annotators import AnnotatorChoice, AnnotatorResolver
from annotations.importing.label_studio_regions import (
    Bounds,
    Details,
    PreparedTask,
    snapped_regions,
)
from annotations.importing.label_studio_report import LabelStudioReport
from annotations.importing.sentences import Range, split_sentences
from annotations.labels import NO_FALLACY, LabelResolver
from annotations.models import (
    Annotation,
    Assignment,
    Document,
    Membership,
    Project,
    Sentence,
    Span,
)
from annotations.selectors.taxonomy import label_resolver
from annotations.services.documents import BATCH_SIZE, NewDocument, create_documents, next_position

Row = tuple[AbstractBaseUser, int, str, dict[Range, set[str]], Details]


@dataclass(frozen=True)
class PredictedUnit:
    index: int
    text: str
    labels: tuple[str, ...]  # canonical; empty: no fallacy


@dataclass(frozen=True)
class PredictedDocument:
    document_id: int
    units: list[PredictedUnit]


#: Stores one model version's predictions as an imported run and returns ``{"name", "id",
#: "outputs"}``; registered by the evaluation app (this app imports none of it).
PredictionImporter = Callable[..., dict[str, Any]]
_prediction_importer: PredictionImporter | None = None


def register_prediction_importer(importer: PredictionImporter) -> None:
    global _prediction_importer
    _prediction_importer = importer


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()


def _task_key(task: LabelStudioTask) -> str:
    if task.external_id:
        return task.external_id
    return f"ls-{task.id}" if task.id is not None else ""


def _in_chunks(values: list[Any]) -> list[list[Any]]:
    return [values[i : i + BATCH_SIZE] for i in range(0, len(values), BATCH_SIZE)]


def _first_difference(a: str, b: str) -> int:
    for index, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return index
    return min(len(a), len(b))


def _check_file(tasks: list[LabelStudioTask], name: str) -> None:
    """Texts and keys repeated in the file."""
    texts: dict[bytes, LabelStudioTask] = {}
    keys: dict[str, LabelStudioTask] = {}
    for task in tasks:
        fail = checker(task, name).fail
        earlier = texts.setdefault(_digest(task.text), task)
        if earlier is not task:
            raise fail("data.text", f"same text as {earlier.name} (line {earlier.line})")
        key = _task_key(task)
        earlier = keys.setdefault(key, task) if key else task
        if earlier is not task:
            raise fail("id", f"same document key {key!r} as {earlier.name} (line {earlier.line})")


def _stored(project: Project, tasks: list[LabelStudioTask]) -> tuple[dict, dict]:
    """({text: document id}, {external id: (document id, name, text)}) of stored documents."""
    by_text: dict[str, int] = {}
    by_key: dict[str, tuple[int, str, str]] = {}
    documents = Document.objects.filter(project=project).order_by("-pk")
    for chunk in _in_chunks([task.text for task in tasks]):
        by_text.update(documents.filter(text__in=chunk).values_list("text", "pk"))
    keys = [key for key in map(_task_key, tasks) if key]
    for chunk in _in_chunks(keys):
        for pk, external_id, name, text in documents.filter(external_id__in=chunk).values_list(
            "pk", "external_id", "name", "text"
        ):
            by_key[external_id] = (pk, name, text)
    return by_text, by_key


def _documents(
    project: Project, tasks: list[LabelStudioTask], name: str, report: LabelStudioReport
) -> list[PreparedTask]:
    """Each task's document (reused or created) and sentence bounds."""
    by_text, by_key = _stored(project, tasks)
    prepared = [PreparedTask(task) for task in tasks]
    new: list[tuple[PreparedTask, NewDocument]] = []
    for item in prepared:
        task = item.task
        if task.text in by_text:
            item.document_id = by_text[task.text]
            continue
        key = _task_key(task)
        if key in by_key:
            pk, doc_name, text = by_key[key]
            at = _first_difference(task.text, text)
            raise checker(task, name).fail(
                "data.text",
                f"the text differs from stored document {doc_name or pk!r} (external id {key!r})"
                f" from character {at}: {task.text[at : at + 30]!r} vs {text[at : at + 30]!r}",
            )
        item.bounds = split_sentences(task.text)
        metadata = {"label_studio_id": task.id} if task.id is not None else {}
        document = NewDocument(
            text=task.text,
            external_id=key,
            source=Path(name).name,
            metadata=metadata,
            sentences=item.bounds,
        )
        new.append((item, document))
    created, _ = create_documents(
        project=project, texts=[doc for _, doc in new], first_position=next_position(project)
    )
    for (item, _), document in zip(new, created, strict=True):
        item.document_id = document.pk
    reused = {item.document_id for item in prepared if not item.bounds}
    stored_bounds: dict[int, Bounds] = {}
    for chunk in _in_chunks(sorted(reused)):
        rows = Sentence.objects.filter(document_id__in=chunk).order_by("document_id", "index")
        for document_id, start, end in rows.values_list("document_id", "start", "end"):
            stored_bounds.setdefault(document_id, []).append((start, end))
    for item in prepared:
        if item.document_id in reused:
            item.bounds = stored_bounds.get(item.document_id, [])
    report.texts = len(tasks)
    report.sentences = sum(len(item.bounds) for item, _ in new)
    report.documents_created = len(created)
    report.documents_reused = len(tasks) - len(created)
    return prepared


def _annotation_rows(
    prepared: list[PreparedTask],
    users: dict[str, AbstractBaseUser | None],
    resolver: LabelResolver,
    name: str,
    report: LabelStudioReport,
) -> list[Row]:
    """(user, document, source key, spans, their details) of each kept annotation."""
    rows: list[Row] = []
    for item in prepared:
        seen: dict[int, str] = {}
        for completion in item.task.annotations:
            key = source_key(completion)
            user = users[key]
            if user is None:
                report.annotations_dropped += 1
                continue
            if user.pk in seen:
                raise checker(item.task, name).fail(
                    completion.place, f"a second annotation by {user} (first: {seen[user.pk]})"
                )
            seen[user.pk] = completion.place
            details: Details = {}
            groups = snapped_regions(item, completion, resolver, name, report, details)
            rows.append((user, item.document_id, key, groups, details))
        report.annotations_cancelled += item.task.cancelled
        report.other_results += item.task.other_results
    return rows


def _write_annotations(
    project: Project,
    prepared: list[PreparedTask],
    resolver: LabelResolver,
    name: str,
    report: LabelStudioReport,
    annotators: AnnotatorResolver,
) -> None:
    """One submitted annotation per kept annotation, replacing the annotator's own."""
    sources = read_annotators(item.task for item in prepared)
    users = {source.key: annotators.user_for(source) for source in sources}
    rows = _annotation_rows(prepared, users, resolver, name, report)
    kept = {user.pk: user for user in users.values() if user is not None}
    documents = [item.document_id for item in prepared]
    for user in kept.values():
        Membership.objects.get_or_create(
            project=project, user=user, defaults={"role": Membership.Role.ANNOTATOR}
        )
        for chunk in _in_chunks(documents):
            _, deleted = Annotation.objects.filter(annotator=user, document_id__in=chunk).delete()
            report.annotations_replaced += deleted.get(Annotation._meta.label, 0)
    now = timezone.now()
    annotations = Annotation.objects.bulk_create(
        [
            Annotation(
                document_id=document_id,
                annotator=user,
                status=Annotation.Status.SUBMITTED,
                submitted_at=now,
            )
            for user, document_id, *_ in rows
        ],
        batch_size=BATCH_SIZE,
    )
    spans = [
        Span(
            annotation=annotation,
            start=start,
            end=end,
            labels=sorted(labels),
            details=details.get((start, end), {}),
        )
        for annotation, (*_, groups, details) in zip(annotations, rows, strict=True)
        for (start, end), labels in sorted(groups.items())
    ]
    Span.objects.bulk_create(spans, batch_size=BATCH_SIZE)
    Assignment.objects.bulk_create(
        [Assignment(document_id=doc, annotator=user) for user, doc, *_ in rows],
        batch_size=BATCH_SIZE,
        ignore_conflicts=True,
    )
    report.annotators = sorted(user.get_username() for user in kept.values())
    report.annotations_created = len(annotations)
    report.spans = len(spans)
    report.span_labels = sum(len(span.labels) for span in spans)
    report.spans_with_alternatives = sum(len(span.labels) > 1 for span in spans)
    report.explanations = sum(len(span.details) for span in spans)
    report.per_annotator = _per_annotator(sources, users, rows)
    report.placeholders = list(annotators.placeholders)
    report.invited = list(annotators.invited)


def _per_annotator(
    sources: list[SourceAnnotator],
    users: dict[str, AbstractBaseUser | None],
    rows: list[Row],
) -> list[dict[str, Any]]:
    """What was stored for each source annotator: annotations and spans, and whose."""
    stored: dict[str, list[int]] = {source.key: [0, 0] for source in sources}
    for _, _, key, groups, _ in rows:
        stored[key][0] += 1
        stored[key][1] += len(groups)
    return [
        {
            "source": source.shown,
            "key": source.key,
            "user": None if users[source.key] is None else users[source.key].get_username(),
            "annotations": stored[source.key][0],
            "spans": stored[source.key][1],
        }
        for source in sources
    ]


def _predicted_units(item: PreparedTask, groups: dict[Range, set[str]]) -> list[PredictedUnit]:
    units = []
    for index, (start, end) in enumerate(item.bounds):
        labels = {
            label
            for (s, e), found in groups.items()
            if s < end and start < e
            for label in found
            if label != NO_FALLACY
        }
        units.append(PredictedUnit(index, item.task.text[start:end], tuple(sorted(labels))))
    return units


def _write_predictions(
    project: Project,
    prepared: list[PreparedTask],
    resolver: LabelResolver,
    name: str,
    created_by: AbstractBaseUser | None,
    report: LabelStudioReport,
) -> None:
    """One imported run per model version (see the module docstring)."""
    versions: dict[str, dict[int, tuple[PreparedTask, dict[Range, set[str]]]]] = {}
    for item in prepared:
        for completion in item.task.predictions:
            groups = snapped_regions(item, completion, resolver, name, report)
            per_document = versions.setdefault(completion.model_version, {})
            _, merged = per_document.setdefault(item.document_id, (item, {}))
            for span_range, labels in groups.items():
                merged.setdefault(span_range, set()).update(labels)
    if versions and _prediction_importer is None:
        raise DatasetFormatError(name, 1, "predictions", "this platform cannot import runs")
    for version, per_document in versions.items():
        documents = [
            PredictedDocument(item.document_id, _predicted_units(item, groups))
            for item, groups in per_document.values()
        ]
        assert _prediction_importer is not None
        report.runs.append(
            _prediction_importer(
                project=project,
                model_version=version,
                documents=documents,
                file_name=name,
                created_by=created_by,
            )
        )


@transaction.atomic
def import_label_studio(
    *,
    path: Source,
    project: Project,
    created_by: AbstractBaseUser | None = None,
    name: str | None = None,
    members_only: bool = False,
    texts_only: bool = False,
    choices: dict[str, AnnotatorChoice] | None = None,
) -> LabelStudioReport:
    """Import a Label Studio JSON export (see the module docstring); ``name`` is the file
    name used in errors when ``path`` is an open file; ``members_only``: no account outside
    the project is matched (a project admin's upload); ``texts_only``: the texts alone;
    ``choices``: per source annotator's key, prepared by
    ``label_studio_annotators.prepare_choices``."""
    name = source_name(path, name)
    tasks = read_label_studio(path, name=name)
    if not tasks:
        raise DatasetFormatError(name, 1, None, "the file holds no tasks")
    report = LabelStudioReport(file=name, texts_only=texts_only)
    Project.objects.select_for_update().filter(pk=project.pk).first()
    _check_file(tasks, name)
    resolver = label_resolver(project.taxonomy)
    prepared = _documents(project, tasks, name, report)
    report.predictions = sum(len(task.predictions) for task in tasks)
    report.prediction_ids = sum(task.prediction_ids for task in tasks)
    if texts_only:
        report.annotations_dropped = sum(len(task.annotations) for task in tasks)
        report.annotations_cancelled = sum(task.cancelled for task in tasks)
        report.predictions_skipped = report.predictions
        return report
    annotators = AnnotatorResolver(project, choices or {}, members_only)
    _write_annotations(project, prepared, resolver, name, report, annotators)
    _write_predictions(project, prepared, resolver, name, created_by, report)
    return report
