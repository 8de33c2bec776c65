"""Exporting a span project as Label Studio JSON tasks, with the labeling config that shows
them (reads only; documents in chunks).

Every document is one task (``id``: the Label Studio id it was imported with, else the
document's; ``data``: ``text`` and ``external_id``). Without a gold version, each submitted
annotation is one annotation of its task; with one, the version's documents only, each with
one ``ground_truth`` annotation by whoever created the version. A span is one region whose
labels are its alternatives (canonical names; ⊥ as "no fallacy"); its explanations are the
region's text area (``formats.label_studio.explanation_texts``; slots are not written).

Each finished sentence-level run of the project with outputs on a task's document is one
prediction of it (``model_version``: the run's name; one region per sentence the run
labelled, with the fallacy types it named; no region where it answered no fallacy), given
by the hook the evaluation app registers (``register_prediction_exporter``).

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
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet

from annotations.importing.formats.label_studio import (
    explanation_result,
    explanation_texts,
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


@dataclass(frozen=True)
class RunPrediction:
    """One run's predicted regions on one document: (start, end, labels)."""

    run: str
    regions: list[tuple[int, int, list[str]]]
    score: float | None = None


#: ``(project, document ids) -> {document id: [RunPrediction]}``; registered by the
#: evaluation app (this app imports none of it).
PredictionExporter = Callable[[Project, list[int]], dict[int, list[RunPrediction]]]
_prediction_exporter: PredictionExporter | None = None


def register_prediction_exporter(exporter: PredictionExporter) -> None:
    global _prediction_exporter
    _prediction_exporter = exporter


@dataclass
class LabelStudioExport:
    """What an export wrote."""

    tasks: int = 0
    annotations: int = 0
    regions: int = 0
    explanations: int = 0  # regions with a text area
    predictions: int = 0
    runs: list[str] = field(default_factory=list)  # the runs predicting, by name

    def summary(self) -> str:
        runs = f" of {len(self.runs)} runs" if self.runs else ""
        return (
            f"{self.tasks} tasks, {self.annotations} annotations, {self.regions} regions"
            f" ({self.explanations} with explanations), {self.predictions} predictions{runs}"
        )


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


def _results(number: int, text: str, spans: list[Any]) -> list[dict[str, Any]]:
    """Each span's region, then its text area when it has explanations."""
    results = []
    for index, span in enumerate(spans, start=1):
        region = f"{number}-{index}"
        results.append(region_result(region, text, span.start, span.end, span.labels))
        details = span.details if isinstance(span.details, dict) else {}
        explained = {
            label: str(entry.get("explanation") or "")
            for label, entry in details.items()
            if isinstance(entry, dict)
        }
        texts = explanation_texts([x for x in span.labels if x != NO_FALLACY], explained)
        if texts:
            results.append(explanation_result(region, span.start, span.end, texts))
    return results


def _annotation(number: int, text: str, spans: list[Any], *, gold: bool) -> dict[str, Any]:
    return {
        "id": number,
        "was_cancelled": False,
        "ground_truth": gold,
        "result": _results(number, text, spans),
    }


def _predictions(project: Project, documents: list[Document]) -> dict[int, list[dict]]:
    """Each document's predictions (see the module docstring)."""
    if _prediction_exporter is None:
        return {}
    texts = {document.pk: document.text for document in documents}
    found = _prediction_exporter(project, list(texts))
    out: dict[int, list[dict]] = {}
    for document_id, predicted in found.items():
        text = texts[document_id]
        for number, prediction in enumerate(predicted, start=1):
            body: dict[str, Any] = {
                "model_version": prediction.run,
                "result": [
                    region_result(f"p{document_id}-{number}-{index}", text, start, end, labels)
                    for index, (start, end, labels) in enumerate(prediction.regions, start=1)
                ],
            }
            if prediction.score is not None:
                body["score"] = prediction.score
            out.setdefault(document_id, []).append(body)
    return out


def _task(
    document: Document,
    made: list[tuple[dict[str, Any], AbstractBaseUser | None]],
    predictions: dict[int, list[dict]],
) -> dict[str, Any]:
    """The document's task with its annotations, each with who made it, and predictions."""
    task_id = (document.metadata or {}).get("label_studio_id", document.pk)
    return label_studio_task(
        task_id=task_id,
        text=document.text,
        external_id=document.external_id,
        annotations=[annotation for annotation, _ in made],
        annotators={str(annotation["id"]): annotator(user) for annotation, user in made},
        predictions=predictions.get(document.pk, []),
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
        predictions = _predictions(project, chunk)
        for document in chunk:
            yield _task(
                document,
                [
                    (_annotation(a.pk, document.text, spans.get(a.pk, []), gold=False), a.annotator)
                    for a in by_document.get(document.pk, [])
                ],
                predictions,
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
        predictions = _predictions(gold.project, [entry.document for entry in chunk])
        for entry in chunk:
            document = entry.document
            annotation = _annotation(entry.pk, document.text, spans.get(document.pk, []), gold=True)
            yield _task(document, [(annotation, gold.created_by)], predictions)


def _count(written: LabelStudioExport, task: dict[str, Any]) -> None:
    written.tasks += 1
    written.annotations += len(task["annotations"])
    for annotation in task["annotations"]:
        kinds = [result["type"] for result in annotation["result"]]
        written.regions += kinds.count("labels")
        written.explanations += kinds.count("textarea")
    written.predictions += len(task["predictions"])
    for prediction in task["predictions"]:
        if prediction["model_version"] not in written.runs:
            written.runs.append(prediction["model_version"])


def export_label_studio(
    *, project: Project, gold_standard: GoldStandard | None = None, out: IO[str]
) -> LabelStudioExport:
    """Write the tasks as a JSON array (see the module docstring); returns what it wrote."""
    tasks = _gold_tasks(gold_standard) if gold_standard else _annotation_tasks(project)
    written = LabelStudioExport()
    out.write("[")
    for task in tasks:
        out.write(",\n" if written.tasks else "\n")
        out.write(json.dumps(task, ensure_ascii=False))
        _count(written, task)
    out.write("\n]\n")
    return written
