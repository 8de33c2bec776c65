"""Writes: a harness's log stored as a finished imported run of a gold version.

Each sample is mapped to its unit: the document of the gold version with the sample's
``document`` id and exactly its ``text`` (else the version's document with that text), and
that document's sentence ``unit``, which must be the sample's ``sentence``. The run records
the harness and its version (``config["harness"]``), the model (the log's unless given),
and how its outputs are read: the variant's ``parser`` (``config["parser"]``, what scoring
uses for an imported run) and, after chain-of-thought prompts, each output's answer part
(``RunOutput.answer``). All or nothing: the first sample that matches no unit, or a unit
met twice, raises ``DatasetFormatError`` (file, sample) and nothing is written.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from annotations.importing.formats import DatasetFormatError
from annotations.models import GoldStandard, Project
from annotations.services.documents import BATCH_SIZE
from evaluation.benchmarks import TaskDocument
from evaluation.harness.logs import HarnessLog, LoggedSample
from evaluation.models import ModelRun, RunOutput
from evaluation.runs.imports import RunImportError, create_imported_run
from evaluation.runs.prompts import gold_documents
from evaluation.scoring.parsers import strip_reasoning


def _document(
    sample: LoggedSample, documents: dict[int, TaskDocument], by_text: dict[str, TaskDocument]
) -> TaskDocument | None:
    document = documents.get(sample.document)
    if document is not None and document.text == sample.text:
        return document
    return by_text.get(sample.text)


def _outputs(
    run: ModelRun, log: HarnessLog, gold_standard: GoldStandard, file_name: str
) -> list[RunOutput]:
    """One output per sample, each checked against the version's units."""
    documents = {document.id: document for document in gold_documents(gold_standard)}
    by_text: dict[str, TaskDocument] = {}
    for document in reversed(documents.values()):  # the first document with a text wins
        by_text[document.text] = document
    seen: dict[tuple[int, int], str] = {}
    first = log.samples[0]
    rows = []
    for sample in log.samples:

        def fail(message: str, sample: LoggedSample = sample) -> DatasetFormatError:
            return DatasetFormatError(file_name, sample.place, sample.name, message)

        document = _document(sample, documents, by_text)
        if document is None:
            raise fail(
                f"no document of gold version {gold_standard.version} has this text: "
                f"{sample.text[:60]!r}"
            )
        if not 0 <= sample.unit < len(document.units):
            raise fail(
                f"document {document.id} has {len(document.units)} sentences, no unit {sample.unit}"
            )
        if document.units[sample.unit] != sample.sentence:
            raise fail(
                f"sentence {sample.unit} of document {document.id} is "
                f"{document.units[sample.unit][:60]!r}, not {sample.sentence[:60]!r}"
            )
        if (sample.parser, sample.answer) != (first.parser, first.answer):
            raise fail(f"read with parser {sample.parser!r}, unlike {first.name}")
        key = (document.id, sample.unit)
        if key in seen:
            raise fail(f"the same sentence as {seen[key]}")
        seen[key] = sample.name
        reasoning = sample.answer == "reasoning"
        rows.append(
            RunOutput(
                run=run,
                document_id=document.id,
                unit_index=sample.unit,
                unit_text=sample.sentence,
                raw_output=sample.output,
                answer=strip_reasoning(sample.output) if reasoning else None,
            )
        )
    return rows


@transaction.atomic
def import_harness_log(
    *,
    project: Project,
    log: HarnessLog,
    file_name: str,
    name: str,
    gold_standard: GoldStandard | None,
    model_name: str = "",
    created_by: AbstractBaseUser | None = None,
) -> ModelRun:
    """Store ``log`` as a finished run of ``gold_standard`` (see the module docstring)."""
    if gold_standard is None:
        raise RunImportError(
            "a harness log is imported into a gold version: name it (--gold-version N)",
            "gold_version",
        )
    first = log.samples[0]
    run = create_imported_run(
        project=project,
        name=name,
        gold_standard=gold_standard,
        backend=log.harness,
        model_name=model_name or log.model,
        created_by=created_by,
        file_name=file_name,
        file_format=log.format,
    )
    rows = _outputs(run, log, gold_standard, file_name)
    RunOutput.objects.bulk_create(rows, batch_size=BATCH_SIZE)
    run.config = {
        **run.config,
        "texts": len({row.document_id for row in rows}),
        "outputs": len(rows),
        "parser": first.parser,
        "harness": {
            "name": log.harness_name,
            "version": log.version,
            "task": log.task,
            "variant": first.variant,
        },
    }
    run.save(update_fields=["config"])
    return run
