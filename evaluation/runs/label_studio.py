"""Label Studio predictions as an imported run (registered with
``annotations.importing.label_studio``, which imports no evaluation module).

One finished run per model version, named ``Label Studio <model_version>``: one output per
sentence of each predicted document, its raw text the predicted labels (``", "``-joined) or
"no fallacy", read back by the keyword parser like any imported run's outputs (scoring,
suggestions).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.contrib.auth.models import AbstractBaseUser

from annotations.importing.formats import DatasetFormatError
from annotations.importing.label_studio import PredictedDocument
from annotations.models import Project
from annotations.services.documents import BATCH_SIZE
from evaluation.benchmarks.mafalda import NO_FALLACY_ANSWER
from evaluation.models import RunOutput
from evaluation.runs.imports import RunImportError, create_imported_run

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
