"""Writes: a file of published item-run outputs stored as a finished, scored item run.

``import_item_run`` reads one record per item (``items.output_files``: JSON Lines
``{"id": <item id>, "output": <raw answer>}``, a JSON array of them, or CSV with id and
output columns) for one form ``field`` of an item project. The item id is the id the
items were imported with (``Document.external_id``).

The run is an item run answering that field: ``task`` the field's kind (the item task of
that name), ``field`` recorded, no prompt variant (``ModelRun.imported``), status done.
Each record becomes the item's one output (``unit_index`` 0, its raw answer); the run is
then parsed and scored by ``items.runs.score_item_run``, as a model's item run is, so
it shows on the project's Results tab. Items without a record count as missing.

All or nothing, in one transaction: an unknown field, a field no model answers (a rating),
a file without records, a record that cannot be read, an id that is no item of the
project, or an id given twice raises (``RunImportError`` before reading, else
``DatasetFormatError`` naming the file, line and key/column) and leaves nothing written.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from annotations.importing.formats import DatasetFormatError
from annotations.importing.formats.jsonl import Source, source_name
from annotations.items import FormError, FormField, parse_form
from annotations.models import Document, Project
from annotations.services.documents import BATCH_SIZE, batched
from evaluation.benchmarks import ITEM_TASKS
from evaluation.items.output_files import OutputColumns, OutputRecord, file_shape, read_outputs
from evaluation.items.runs import JUDGE_PREFIX, score_item_run
from evaluation.models import ModelRun, RunOutput
from evaluation.runs.imports import RunImportError, create_imported_run

FORMAT_PREFIX = "item-outputs"


def imported_field(project: Project, field: str) -> FormField:
    """The form field of an item project that imported outputs answer; ``RunImportError``
    (place ``field``) when the project has no items, no such field, or it is a rating."""
    if project.kind != "items":
        raise RunImportError(
            f"project {project.name!r} is a {project.kind} project: its runs are imported as "
            "raw-results JSONL ({text, prediction}) without a form field",
            "field",
        )
    try:
        form_field = parse_form(project.form).get(field)
    except FormError as error:
        messages = [message for found in error.problems.values() for message in found]
        raise RunImportError("; ".join(messages), "field") from None
    if form_field.kind not in ITEM_TASKS or form_field.kind.startswith(JUDGE_PREFIX):
        answered = ", ".join(name for name in ITEM_TASKS if not name.startswith(JUDGE_PREFIX))
        raise RunImportError(
            f"field {field!r} is a {form_field.kind} question, which raters answer; model "
            f"outputs are imported for {answered} fields",
            "field",
        )
    return form_field


def _outputs(
    run: ModelRun,
    batch: list[OutputRecord],
    seen: dict[str, int],
    *,
    file_name: str,
    columns: OutputColumns,
) -> list[RunOutput]:
    """The outputs of a batch of records; ``seen`` maps ids of earlier records to their
    lines (updated)."""
    found = {
        external_id: (pk, text)
        for external_id, pk, text in Document.objects.filter(
            project_id=run.project_id, external_id__in={record.id for record in batch}
        ).values_list("external_id", "pk", "text")
    }
    rows = []
    for record in batch:
        if record.id in seen:
            raise DatasetFormatError(
                file_name,
                record.line,
                columns.id,
                f"same id {record.id!r} as line {seen[record.id]}",
            )
        seen[record.id] = record.line
        if record.id not in found:
            raise DatasetFormatError(
                file_name,
                record.line,
                columns.id,
                f"no item of project {run.project.name!r} has the id {record.id!r}",
            )
        document_id, text = found[record.id]
        rows.append(
            RunOutput(
                run=run,
                document_id=document_id,
                unit_index=0,
                unit_text=text,
                raw_output=record.output,
            )
        )
    return rows


@transaction.atomic
def import_item_run(
    *,
    project: Project,
    path: Source,
    name: str,
    field: str,
    id_column: str = "",
    output_column: str = "",
    backend: str = "",
    model_name: str = "",
    created_by: AbstractBaseUser | None = None,
    file_name: str | None = None,
) -> ModelRun:
    """Store the outputs as a finished item run answering ``field`` and score it (see the
    module docstring); ``id_column`` / ``output_column`` default to ``id`` / ``output``."""
    form_field = imported_field(project, field)
    file_name = source_name(path, file_name)
    columns = OutputColumns(
        id=id_column.strip() or OutputColumns.id,
        output=output_column.strip() or OutputColumns.output,
    )
    shape = file_shape(path, file_name)
    run = create_imported_run(
        project=project,
        name=name,
        gold_standard=None,
        backend=backend,
        model_name=model_name,
        created_by=created_by,
        file_name=file_name,
        file_format=f"{FORMAT_PREFIX}-{shape}",
        task=form_field.kind,
        field=form_field.name,
    )
    seen: dict[str, int] = {}  # item id -> line
    for batch in batched(read_outputs(path, name=file_name, columns=columns)):
        rows = _outputs(run, batch, seen, file_name=file_name, columns=columns)
        RunOutput.objects.bulk_create(rows, batch_size=BATCH_SIZE)
    if not seen:
        raise DatasetFormatError(file_name, 1, None, "the file holds no outputs")
    scores = score_item_run(run)
    run.config = {
        **run.config,
        "id_column": columns.id,
        "output_column": columns.output,
        "outputs": len(seen),
        "missing": scores[0].report.get("missing", 0),
    }
    run.save(update_fields=["config"])
    return run
