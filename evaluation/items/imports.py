"""Writes: a file of published item-run outputs stored as a finished, scored item run.

``import_item_run`` reads one record per item (``items.output_files``: JSON Lines
``{"id": <item id>, "output": <raw answer>}``, a JSON array of them, or CSV with id and
output columns) for one form ``field`` of an item project. The item id is the id the
items were imported with (``Document.external_id``).

The run is an item run answering that field: ``task`` the field's kind (the item task of
that name), ``field`` recorded, no prompt variant (``ModelRun.imported``), status done.
Several files may make one run (``extra_files``: SmartyPat publishes a model's answers on
the bench and on the benign sentences apart), each with its own ``id_prefix`` (benign items
are imported as ``good-<line>``, their outputs carry ``1..N``: prefix ``good-``); ids are
unique across the files. Each record becomes the item's one output (``unit_index`` 0, its
raw answer; ``output_column`` ``*``: the whole record as JSON); the run is
then parsed and scored by ``items.scorer.score_item_run``, as a model's item run is, so
it shows on the project's Results tab (whose board is stored again once the import
commits: ``results.warm_after_commit``). Items without a record count as missing.

All or nothing, in one transaction: an unknown field, a field no model answers (a rating),
a file without records, a record that cannot be read, an id that is no item of the
project, or an id given twice (in one file or across them) raises (``RunImportError``
before reading, else ``DatasetFormatError`` naming the file, line and key/column) and
leaves nothing written.

``skip_unmatched`` is the one explicit exception: a record whose id matches no item is
skipped instead, and the run's ``config["skipped"]`` reports them (``count`` and the first
``SKIPPED_SHOWN`` as ``{file, line, id}``; SmartyPat's published benign outputs hold 504
records, ids 1..504, for its 502 benign sentences). A file none of whose ids matches an
item is still an error (a wrong id prefix), and a repeated id always is: which of two
answers is the model's cannot be told, so none is kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from annotations.importing.formats import DatasetFormatError
from annotations.importing.formats.jsonl import Source, source_name
from annotations.importing.parsing import bounded_parse
from annotations.items import FormError, FormField, parse_form
from annotations.models import Document, Project
from annotations.services.documents import BATCH_SIZE, batched
from evaluation.benchmarks import ITEM_TASKS
from evaluation.items.output_files import (
    OutputColumns,
    OutputRecord,
    file_shape,
    parse_outputs_here,
    read_outputs,
)
from evaluation.items.runs import JUDGE_PREFIX
from evaluation.items.scorer import score_item_run
from evaluation.models import ModelRun, RunOutput
from evaluation.runs.imports import RunImportError, create_imported_run

FORMAT_PREFIX = "item-outputs"
SKIPPED_SHOWN = 5
SKIP_HINT = (
    "to skip such records and have them counted and listed: import_run --skip-unmatched, "
    'the API\'s skip_unmatched, or "Skip unmatched ids" on the Import tab'
)


@dataclass(frozen=True)
class SkippedRecord:
    """A record skipped because its id matches no item."""

    file: str
    line: int
    id: str


@dataclass(frozen=True)
class OutputsFile:
    """One more file of a run's outputs: its source, name (for errors; an open file's
    upload name) and the prefix put before its ids."""

    path: Source
    name: str | None = None
    id_prefix: str = ""


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
    seen: dict[str, tuple[str, int]],
    *,
    file_name: str,
    columns: OutputColumns,
    skipped: list[SkippedRecord] | None = None,
) -> list[RunOutput]:
    """The outputs of a batch of records; ``seen`` maps ids of earlier records to their
    file and line (updated); with ``skipped`` (a list, appended to) a record whose id
    matches no item is skipped, else it is an error."""
    found = {
        external_id: (pk, text)
        for external_id, pk, text in Document.objects.filter(
            project_id=run.project_id, external_id__in={record.id for record in batch}
        ).values_list("external_id", "pk", "text")
    }
    rows = []
    for record in batch:
        if record.id in seen:
            earlier, line = seen[record.id]
            where = f"line {line}" if earlier == file_name else f"{Path(earlier).name} line {line}"
            raise DatasetFormatError(
                file_name, record.line, columns.id, f"same id {record.id!r} as {where}"
            )
        seen[record.id] = (file_name, record.line)
        if record.id not in found:
            if skipped is not None:
                skipped.append(SkippedRecord(Path(file_name).name, record.line, record.id))
                continue
            raise DatasetFormatError(
                file_name,
                record.line,
                columns.id,
                f"no item of project {run.project.name!r} has the id {record.id!r} ({SKIP_HINT})",
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


def _store(
    run: ModelRun,
    files: Sequence[OutputsFile],
    columns: OutputColumns,
    skipped: list[SkippedRecord] | None = None,
) -> list[dict[str, object]]:
    """Store every file's outputs; each file's name, prefix and counts of records stored
    (and, with ``skipped``, skipped)."""
    seen: dict[str, tuple[str, int]] = {}  # item id -> (file, line)
    stored = []
    for outputs_file in files:
        name = source_name(outputs_file.path, outputs_file.name)
        file_columns = OutputColumns(
            id=columns.id, output=columns.output, id_prefix=outputs_file.id_prefix
        )
        before, outputs = len(skipped or ()), 0
        records = read_outputs(outputs_file.path, name=name, columns=file_columns)
        for batch in batched(records):
            rows = _outputs(run, batch, seen, file_name=name, columns=file_columns, skipped=skipped)
            RunOutput.objects.bulk_create(rows, batch_size=BATCH_SIZE)
            outputs += len(rows)
        passed = len(skipped or ()) - before
        if not outputs:
            raise DatasetFormatError(name, 1, None, _nothing_stored(run, passed, skipped))
        part: dict[str, object] = {
            "file": Path(name).name,
            "id_prefix": outputs_file.id_prefix,
            "outputs": outputs,
        }
        if skipped is not None:
            part["skipped"] = passed
        stored.append(part)
    return stored


def _nothing_stored(run: ModelRun, passed: int, skipped: list[SkippedRecord] | None) -> str:
    if not passed or not skipped:
        return "the file holds no outputs"
    first = ", ".join(repr(record.id) for record in skipped[-passed:][:SKIPPED_SHOWN])
    return (
        f"none of the file's {passed} ids matches an item of project {run.project.name!r} "
        f"(first: {first}); is the id prefix right?"
    )


def skipped_report(skipped: Sequence[SkippedRecord]) -> dict[str, object]:
    """``{"count": n, "first": [{file, line, id}, ...]}`` (the first ``SKIPPED_SHOWN``)."""
    return {
        "count": len(skipped),
        "first": [
            {"file": record.file, "line": record.line, "id": record.id}
            for record in skipped[:SKIPPED_SHOWN]
        ],
    }


def _parse_bounded(files: Sequence[OutputsFile], columns: OutputColumns) -> None:
    """Read each file whole in the bounded child first (when not small): a file that is too
    large or malformed fails there, before anything is stored."""
    for file in files:
        bounded_parse(
            f"{parse_outputs_here.__module__}:parse_outputs_here",
            file.path,
            file.name or "",
            columns.id,
            columns.output,
            name=file.name or "",
        )


def _record_import(
    run: ModelRun,
    columns: OutputColumns,
    stored: list[dict[str, object]],
    missing: int,
    skipped: list[SkippedRecord] | None,
    id_prefix: str,
) -> None:
    """The run's import settings and counts in its ``config``."""
    run.config = {
        **run.config,
        "id_column": columns.id,
        "output_column": columns.output,
        "outputs": sum(int(part["outputs"]) for part in stored),
        "missing": missing,
    }
    if skipped is not None:
        run.config["skipped"] = skipped_report(skipped)
    if len(stored) > 1 or id_prefix or skipped:
        run.config["files"] = stored
    run.save(update_fields=["config"])


@transaction.atomic
def import_item_run(
    *,
    project: Project,
    path: Source,
    name: str,
    field: str,
    id_column: str = "",
    output_column: str = "",
    id_prefix: str = "",
    extra_files: Sequence[OutputsFile] = (),
    backend: str = "",
    model_name: str = "",
    created_by: AbstractBaseUser | None = None,
    file_name: str | None = None,
    skip_unmatched: bool = False,
) -> ModelRun:
    """Store the outputs as a finished item run answering ``field`` and score it (see the
    module docstring); ``id_column`` / ``output_column`` default to ``id`` / ``output``;
    ``id_prefix`` goes before the ids of ``path``, ``extra_files`` carry their own;
    ``skip_unmatched`` skips (and reports) records whose id matches no item."""
    form_field = imported_field(project, field)
    files = [OutputsFile(path, source_name(path, file_name), id_prefix), *extra_files]
    columns = OutputColumns(
        id=id_column.strip() or OutputColumns.id,
        output=output_column.strip() or OutputColumns.output,
    )
    _parse_bounded(files, columns)
    shape = file_shape(path, files[0].name or "")
    run = create_imported_run(
        project=project,
        name=name,
        gold_standard=None,
        backend=backend,
        model_name=model_name,
        created_by=created_by,
        file_name=files[0].name or "",
        file_format=f"{FORMAT_PREFIX}-{shape}",
        task=form_field.kind,
        field=form_field.name,
    )
    skipped: list[SkippedRecord] | None = [] if skip_unmatched else None
    stored = _store(run, files, columns, skipped)
    scores = score_item_run(run)
    _record_import(run, columns, stored, scores[0].report.get("missing", 0), skipped, id_prefix)
    from evaluation.results import warm_after_commit  # imports the item results

    warm_after_commit(run.pk)
    return run
