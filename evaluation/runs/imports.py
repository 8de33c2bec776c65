"""Writes for evaluation: importing a model's raw outputs as a stored run.

``import_run`` reads the raw-results JSONL of the published experiments, one record a
line: ``{"text": ..., "prediction": {sentence: raw model output, ...}}``. Each record's
``text`` must be the exact text of a document of the project (of the gold version, when
one is given); its sentence keys, in order, become the document's units (``unit_index``
0, 1, ...; ``unit_text`` the key; each must occur in the text) and their values the raw
outputs. A record with no sentences stores no output (its text then counts as
unpredicted when scoring).

All or nothing: the file streams one line at a time, outputs are written in batches
(``bulk_create``) inside one transaction, and the first bad record raises
``DatasetFormatError`` (file, line, field), leaving nothing written.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone

from annotations.importing.formats import DatasetFormatError
from annotations.importing.formats.jsonl import (
    RecordChecker,
    Source,
    iter_json_objects,
    source_name,
)
from annotations.importing.parsing import RAW_RESULTS, parse_upload
from annotations.models import Document, GoldDocument, GoldStandard, Project
from annotations.services.documents import BATCH_SIZE, batched
from evaluation.models import ModelRun, RunOutput

RAW_RESULTS_FORMAT = "raw-results-jsonl"


class RunImportError(ValueError):
    """The import cannot start (name taken, gold version of another project...);
    ``place`` is the setting at fault (``name``, ``gold_version``, ``field``...)."""

    def __init__(self, message: str, place: str = "name") -> None:
        super().__init__(message)
        self.place = place


@dataclass
class _Record:
    line: int
    text: str
    units: list[tuple[str, str]]  # (sentence, raw output) in file order


def _records(path: Source, name: str) -> Iterator[_Record]:
    for line, record in iter_json_objects(path, name):
        check = RecordChecker(name, line, record)
        text = check.string("text")
        if not text:
            raise check.fail("text", "must not be empty")
        if "prediction" not in record:
            raise check.fail("prediction", "required field is missing")
        prediction = record["prediction"]
        if not isinstance(prediction, dict):
            raise check.fail("prediction", "expected an object {sentence: raw output}")
        units = []
        for index, (sentence, output) in enumerate(prediction.items()):
            where = f"prediction[{index}]"
            if not sentence.strip():
                raise check.fail(where, "empty sentence key")
            if sentence not in text:
                raise check.fail(where, f"sentence not found in the text: {sentence[:60]!r}")
            if not isinstance(output, str):
                raise check.fail(where, "the raw output must be a string")
            units.append((sentence, output))
        yield _Record(line, text, units)


def create_imported_run(
    *,
    project: Project,
    name: str,
    gold_standard: GoldStandard | None,
    backend: str,
    model_name: str,
    created_by: AbstractBaseUser | None,
    file_name: str,
    file_format: str = RAW_RESULTS_FORMAT,
    task: str = "mafalda-span",
    field: str = "",
) -> ModelRun:
    """The finished run (no prompt variant: imported) the outputs are imported into;
    ``RunImportError`` when the name is blank or taken, or the gold version belongs to
    another project. Item runs name their ``task`` and form ``field``."""
    name = name.strip()
    if not name:
        raise RunImportError("a run needs a name")
    if gold_standard is not None and gold_standard.project_id != project.pk:
        raise RunImportError(
            f"gold standard version {gold_standard.version} belongs to another project",
            "gold_version",
        )
    if ModelRun.objects.filter(project=project, name=name).exists():
        raise RunImportError(f"project {project.name!r} already has a run named {name!r}")
    try:
        with transaction.atomic():
            return ModelRun.objects.create(
                project=project,
                gold_standard=gold_standard,
                name=name,
                backend=backend,
                model_name=model_name,
                task=task,
                field=field,
                config={"source": Path(file_name).name, "format": file_format},
                status=ModelRun.Status.DONE,
                created_by=created_by,
                finished_at=timezone.now(),
            )
    except IntegrityError:  # created concurrently
        raise RunImportError(f"project {project.name!r} already has a run named {name!r}") from None


def _batch_outputs(
    run: ModelRun,
    batch: list[_Record],
    found: dict[str, int],
    seen: dict[int, int],
    *,
    file_name: str,
    where: str,
) -> list[RunOutput]:
    """The outputs of a batch of records; ``found`` maps texts to their documents, ``seen``
    the documents of earlier records to their lines (updated)."""
    rows = []
    for record in batch:
        document_id = found.get(record.text)
        if document_id is None:
            raise DatasetFormatError(
                file_name,
                record.line,
                "text",
                f"no document of {where} has exactly this text: {record.text[:60]!r}",
            )
        if document_id in seen:
            raise DatasetFormatError(
                file_name, record.line, "text", f"same text as line {seen[document_id]}"
            )
        seen[document_id] = record.line
        rows.extend(
            RunOutput(
                run=run,
                document_id=document_id,
                unit_index=index,
                unit_text=sentence,
                raw_output=output,
            )
            for index, (sentence, output) in enumerate(record.units)
        )
    return rows


@transaction.atomic
def import_run(
    *,
    project: Project,
    path: Source,
    name: str,
    gold_standard: GoldStandard | None = None,
    backend: str = "",
    model_name: str = "",
    created_by: AbstractBaseUser | None = None,
    file_name: str | None = None,
) -> ModelRun:
    """Store a raw-results JSONL as a finished ``ModelRun`` with its ``RunOutput`` rows.

    ``file_name`` names an open file in errors. Raises ``RunImportError`` before reading
    (an item project imports its runs with ``evaluation.items.imports``),
    ``DatasetFormatError`` at the first bad record (see the module docstring).
    """
    if project.kind == "items":
        raise RunImportError(
            f"project {project.name!r} is an item project: its runs are imported per form "
            'field, one record per item {"id": <item id>, "output": <raw answer>} '
            "(name the field: --field FIELD), not as raw-results JSONL",
            "field",
        )
    file_name = source_name(path, file_name)
    parse_upload(source=path, format=RAW_RESULTS, name=file_name)  # the bounded child first
    run = create_imported_run(
        project=project,
        name=name,
        gold_standard=gold_standard,
        backend=backend,
        model_name=model_name,
        created_by=created_by,
        file_name=file_name,
    )
    documents = Document.objects.filter(project=project)
    if gold_standard is not None:
        documents = documents.filter(
            pk__in=GoldDocument.objects.filter(gold_standard=gold_standard).values("document_id")
        )
    where = (
        f"gold version {gold_standard.version}" if gold_standard else f"project {project.name!r}"
    )
    seen: dict[int, int] = {}  # document id -> line
    texts = outputs = 0
    for batch in batched(_records(path, file_name)):
        # The oldest document with the text, when the project has it twice.
        found = dict(
            documents.filter(text__in={record.text for record in batch})
            .order_by("-pk")
            .values_list("text", "pk")
        )
        rows = _batch_outputs(run, batch, found, seen, file_name=file_name, where=where)
        RunOutput.objects.bulk_create(rows, batch_size=BATCH_SIZE)
        texts += len(batch)
        outputs += len(rows)
    run.config = {**run.config, "texts": texts, "outputs": outputs}
    run.save(update_fields=["config"])
    return run
