"""Label Studio predictions as an imported run, and runs as Label Studio predictions
(registered with ``annotations.importing.label_studio`` and
``annotations.services.label_studio_exports``, which import no evaluation module).

Importing: one finished run per model version, named ``Label Studio <model_version>``: one
output per sentence of each predicted document, its raw text the predicted labels
(``", "``-joined) or "no fallacy", read back by the keyword parser like any imported run's
outputs (scoring, suggestions).

Exporting (``export_predictions``): each finished sentence-level run of the project (level
2, not an item or judge run) with outputs on a document predicts it: one region per sentence
over which it named fallacy types of the taxonomy (parsed as suggestions read them: ⊥,
unknown and unparseable answers give none).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.contrib.auth.models import AbstractBaseUser

from annotations.importing.formats import DatasetFormatError
from annotations.importing.label_studio import PredictedDocument
from annotations.labels import NO_FALLACY, normalise_label
from annotations.models import Project, Sentence
from annotations.services.documents import BATCH_SIZE
from annotations.services.label_studio_exports import RunPrediction
from annotations.spans import label_index
from evaluation.benchmarks.mafalda import NO_FALLACY_ANSWER
from evaluation.models import ModelRun, RunOutput
from evaluation.runs.imports import RunImportError, create_imported_run
from evaluation.runs.prompts import parse_answer, run_parser
from evaluation.runs.stored import taxonomy_mapping

FORMAT = "label-studio-json"
BACKEND = "label-studio"


def run_name(model_version: str) -> str:
    return f"Label Studio {model_version}".strip() if model_version else "Label Studio predictions"


def import_predictions(
    *,
    project: Project,
    model_version: str,
    documents: list[PredictedDocument],
    file_name: str,
    created_by: AbstractBaseUser | None,
) -> dict[str, Any]:
    """Store one model version's predictions as a finished imported run (in the caller's
    transaction); a name already taken is a ``DatasetFormatError`` naming the file."""
    name = run_name(model_version)
    try:
        run = create_imported_run(
            project=project,
            name=name,
            gold_standard=None,
            backend=BACKEND,
            model_name=model_version,
            created_by=created_by,
            file_name=file_name,
            file_format=FORMAT,
        )
    except RunImportError as error:
        raise DatasetFormatError(
            file_name, 1, "predictions", f"model_version {model_version!r}: {error}"
        ) from None
    rows = [
        RunOutput(
            run=run,
            document_id=document.document_id,
            unit_index=unit.index,
            unit_text=unit.text,
            raw_output=", ".join(unit.labels) if unit.labels else NO_FALLACY_ANSWER,
        )
        for document in documents
        for unit in document.units
    ]
    RunOutput.objects.bulk_create(rows, batch_size=BATCH_SIZE)
    run.total = run.done = len(rows)
    run.config = {
        **run.config,
        "model_version": model_version,
        "texts": len(documents),
        "outputs": len(rows),
    }
    run.save(update_fields=["total", "done", "config"])
    return {"name": run.name, "id": run.pk, "outputs": len(rows), "source": Path(file_name).name}


def _predicting_runs(project: Project) -> list[ModelRun]:
    runs = ModelRun.objects.filter(
        project=project, status=ModelRun.Status.DONE, level=2, field="", judged_run=None
    )
    return list(runs.select_related("project__taxonomy", "prompt_variant").order_by("pk"))


def _unit_labels(run: ModelRun, documents: list[int]) -> list[tuple[int, int, Any]]:
    """(document, unit, parsed labels) of the run's outputs on ``documents``; an imported
    run's outputs are parsed here, as scoring reads them."""
    rows = (
        RunOutput.objects.filter(run=run, document_id__in=documents)
        .order_by("document_id", "unit_index")
        .values_list("document_id", "unit_index", "parsed_labels", "answer", "raw_output")
    )
    if not run.imported:
        return [(doc, unit, parsed) for doc, unit, parsed, _, _ in rows]
    parser, mapping = run_parser(run), taxonomy_mapping(run.project.taxonomy)
    return [
        (
            doc,
            unit,
            parse_answer(parser, raw if answer is None else answer, run=run, mapping=mapping),
        )
        for doc, unit, _, answer, raw in rows
    ]


def export_predictions(project: Project, documents: list[int]) -> dict[int, list[RunPrediction]]:
    """Each document's predictions by the project's finished runs (see the docstring)."""
    runs = _predicting_runs(project)
    if not runs:
        return {}
    index = label_index(project.taxonomy)
    bounds = {
        (doc, unit): (start, end)
        for doc, unit, start, end in Sentence.objects.filter(document_id__in=documents).values_list(
            "document_id", "index", "start", "end"
        )
    }
    out: dict[int, list[RunPrediction]] = {}
    for run in runs:
        regions: dict[int, list[tuple[int, int, list[str]]]] = {}
        for doc, unit, parsed in _unit_labels(run, documents):
            found = regions.setdefault(doc, [])
            names = {index.canonical.get(normalise_label(str(x))) for x in parsed or []}
            labels = sorted(name for name in names if name and name != NO_FALLACY)
            if labels and (doc, unit) in bounds:
                found.append((*bounds[(doc, unit)], labels))
        for doc, found in regions.items():
            out.setdefault(doc, []).append(RunPrediction(run.name, found))
    return out
