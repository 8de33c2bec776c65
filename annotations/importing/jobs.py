"""Imports started in the browser: an ``ImportJob`` and its ``ImportUpload`` (the uploaded
bytes, deleted when the job ends).

``run_import_job`` works in two steps, so that a failed job lists *every* bad record and
imports nothing:

1. validation, record by record (``importing.validation``), the errors collected (every
   one of them, in line order: the job's ``errors`` hold them all, the page decides how
   many to show at once), ``lines_done`` moving while it reads;
2. only when nothing is wrong, the atomic import of ``importing.datasets`` (all or nothing;
   an error it still finds fails the job with nothing imported).

Item formats (``flub``, ``smartypat``, ``items`` with a column mapping in ``options``)
go into item projects through ``importing.items``, validated the same way (every bad
record listed, ids repeated in the file or already in the project included).

A Label Studio JSON export (``labelstudio``) is checked task by task (``formats.label_studio``)
and imported by ``importing.label_studio``: annotations, and predictions as imported runs.
Its options: ``texts_only`` (the texts alone) and ``annotators`` (per source annotator: a
member, an invitation, or dropped; ``importing.label_studio_annotators``), checked and the
invitations created with the job (``job.new_invitations``: each invitation and its token,
for the caller to show once).

A Hugging Face dataset folder written by ``export_dataset --format hf`` (``hf``) comes as a
.zip of the folder (``importing.hf_archive``): every bad row is listed, naming its Parquet
file, then a span export becomes the next published gold version and an item export adds
its items; the job's lines are the folder's rows.

A MAFALDA file whose records carry no ``labels`` at all (texts for a user study) imports
its texts only, and no gold standard. CSV rows are imported as texts.

Concurrency: a job runs once. ``run_import_job`` claims it with a conditional update from
``queued`` to ``running``; a second call (a redelivered task) finds it claimed and returns.
Imports into one project serialise on the project row (see ``importing.datasets``).
"""

from __future__ import annotations

import contextlib
import gc
import io
import logging
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone
from fallacy_platform import dispatch
from fallacy_platform.liveness import Heartbeat
from fallacy_platform.server_paths import entries_without_server_paths
from fallacy_platform.wal import checkpoint_wal

from annotations import queued
from annotations.importing.datasets import (
    import_doccano_annotations,
    import_mafalda_gold,
    import_texts,
)
from annotations.importing.formats import DatasetFormatError
from annotations.importing.formats.csv import read_csv_texts
from annotations.importing.formats.hf import HFFolder
from annotations.importing.formats.jsonl import RecordChecker, iter_json_objects
from annotations.importing.formats.plaintext import TextRecord
from annotations.importing.formats.text_limit import checked_text
from annotations.importing.hf_archive import import_hf_archive, read_hf_archive
from annotations.importing.items import ITEM_FORMATS, import_items
from annotations.importing.job_options import check_upload, job_options
from annotations.importing.label_studio import import_label_studio
from annotations.importing.label_studio_annotators import parse_choices
from annotations.importing.liveness import beat_import_job
from annotations.importing.parsing import parse_upload
from annotations.importing.validation import FileCheck, error_entry, format_error_entry
from annotations.models import ImportJob, ImportUpload, Project
from annotations.services import search_index

logger = logging.getLogger(__name__)

INLINE_MAX_BYTES = settings.IMPORT_INLINE_MAX_BYTES


# --- creating and starting jobs ----------------------------------------------------------


def count_lines(content: bytes) -> int:
    """Physical lines, as the readers number them (``len(content.splitlines())`` without
    the list of lines)."""
    breaks = content.count(b"\n")
    if b"\r" in content:
        breaks += content.count(b"\r") - content.count(b"\r\n")
    return breaks + (1 if content and not content.endswith((b"\n", b"\r")) else 0)


@transaction.atomic
def create_import_job(
    *,
    project: Project,
    file_name: str,
    content: bytes,
    format: str,
    created_by: AbstractBaseUser | None = None,
    text_column: str = "",
    id_column: str = "",
    annotator: AbstractBaseUser | None = None,
    columns: dict[str, Any] | str | None = None,
    set_metadata: Sequence[str] | None = None,
    texts_only: bool = False,
    annotators: dict[str, Any] | str | None = None,
) -> ImportJob:
    """A queued job holding the file. CSV needs ``text_column`` ("text" by default);
    SmartyPat takes one too (``rewrite``, ``post``, a column name or position);
    doccano files are one annotator's work (``annotator``, by default ``created_by``);
    item formats need an item project, and ``items`` a column mapping (``columns``);
    ``set_metadata`` (``["split=bench"]``) writes keys on every item of an item file;
    Label Studio: ``texts_only``, ``annotators`` (see the module docstring).
    ``ValidationError`` names a bad choice (``job_options``)."""
    check_upload(format=format, file_name=file_name, content=content)
    options, new_invitations = job_options(
        project=project,
        format=format,
        file_name=file_name,
        created_by=created_by,
        text_column=text_column,
        id_column=id_column,
        annotator=annotator,
        columns=columns,
        set_metadata=set_metadata,
        texts_only=texts_only,
        annotators=annotators,
    )
    job = ImportJob.objects.create(
        project=project,
        created_by=created_by,
        format=format,
        options=options,
        file_name=file_name[:255],
        size=len(content),
        lines_total=0 if format == "hf" else count_lines(content),
    )
    ImportUpload.objects.create(job=job, content=content)
    job.new_invitations = new_invitations
    return job


def start_import_job(*, job: ImportJob) -> ImportJob:
    """Run a small job now (inside the caller's request); queue a large one on the
    ``default`` Celery queue once the job row is committed."""
    if job.size < INLINE_MAX_BYTES:
        return run_import_job(job_id=job.pk)
    transaction.on_commit(lambda: _enqueue(job.pk))
    return job


def _enqueue(job_id: int) -> None:
    """Queue the job; when the broker refuses, the job fails with the reason (the request
    that made it has answered already)."""

    def failed(reason: str) -> None:
        _finish(
            ImportJob.objects.get(pk=job_id),
            errors=[error_entry(None, None, f"could not queue the import: {reason}")],
        )

    with contextlib.suppress(dispatch.QueueUnavailable):  # the job says so
        dispatch.send(queued.run_import_job.s(job_id), undo=failed)


# --- running -----------------------------------------------------------------------------


def run_import_job(*, job_id: int) -> ImportJob:
    """Validate, then import all or nothing (see the module docstring). Returns the job.
    Once it has succeeded, the imported documents join the search's trigram indexes
    (``services.search_index``; they are listed and found by the search before)."""
    now = timezone.now()
    claimed = ImportJob.objects.filter(pk=job_id, status=ImportJob.Status.QUEUED).update(
        status=ImportJob.Status.RUNNING, started_at=now, heartbeat_at=now
    )
    job = ImportJob.objects.select_related("project__taxonomy").get(pk=job_id)
    if not claimed:
        return job
    with Heartbeat(lambda: beat_import_job(job_id=job_id)), _collector_paused():
        job = _run_claimed(job)
    if job.status == ImportJob.Status.SUCCEEDED:
        _index_imported(job)
        checkpoint_wal()  # SQLite: the log back from the import's size
    return job


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cycle collector off while a job validates and imports: the objects a large
    import keeps (records, documents, sentence ranges) made it scan them again and again,
    15% of the job's time (10,000 texts, 26 MB: 0.94-1.03 s without, 1.11-1.23 s with,
    alternating runs in one process). Whatever cycles other threads make meanwhile are
    collected once it is back on; a job that finds it off leaves it off."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _index_imported(job: ImportJob) -> None:
    try:
        search_index.index_pending(project_id=job.project_id)
    except Exception:  # the import stands; its documents are found by a scan until indexed
        logger.exception("adding the documents of import job %s to the search index", job.pk)


def _run_claimed(job: ImportJob) -> ImportJob:
    job_id = job.pk
    content = job.content
    try:
        records = parse_upload(source=content, format=job.format, name=job.file_name)
        check = FileCheck(job, content, records)
        check.run()
        if check.errors.count:
            return _finish(job, errors=check.errors.entries())
        report = _import(
            job,
            content,
            texts_only=check.texts_only,
            records=check.records,
            hf_folder=check.hf_folder,
        )
    except DatasetFormatError as error:
        return _finish(job, errors=[format_error_entry(error)])
    except Exception as error:
        logger.exception("import job %s failed", job_id)
        # a system error names a file of the upload (its path goes in _finish); others, only
        # their class: the message may quote anything
        detail = str(error) if isinstance(error, OSError) else "the operator's log has the details"
        unexpected = f"unexpected error ({type(error).__name__}: {detail})"
        return _finish(job, errors=[error_entry(None, None, unexpected)])
    return _finish(job, report=report)


def _finish(
    job: ImportJob, *, report: dict[str, Any] | None = None, errors: list[dict] | None = None
) -> ImportJob:
    job.status = ImportJob.Status.FAILED if errors else ImportJob.Status.SUCCEEDED
    job.report = report or {}
    job.errors = entries_without_server_paths(errors or [])  # the upload's places only
    job.finished_at = timezone.now()
    fields = ["status", "report", "errors", "finished_at"]
    if not errors:
        job.lines_done = job.lines_total
        fields.append("lines_done")
    job.save(update_fields=fields)
    ImportUpload.objects.filter(job_id=job.pk).delete()
    if errors:
        job.refresh_from_db(fields=["lines_done"])  # as far as validation got
    return job


def _import(
    job: ImportJob,
    content: bytes,
    *,
    texts_only: bool,
    records: list[TextRecord] | None,
    hf_folder: HFFolder | None = None,
) -> dict[str, Any]:
    """The import proper; ``records``: a text file's records as validation read them,
    ``hf_folder``: an uploaded dataset folder's rows, as its bounded reader returned them."""
    project, name = job.project, job.file_name
    source = io.BytesIO(content)
    later = {"defer_search_index": True}  # indexed once the job succeeded
    if job.format == "mafalda":
        return _import_mafalda(job, source, texts_only=texts_only)
    if job.format == "doccano":
        annotator = get_user_model().objects.get(pk=job.options["annotator"])
        return import_doccano_annotations(
            path=source, name=name, project=project, annotator=annotator, **later
        ).as_dict()
    if job.format == "hf":
        folder = hf_folder or read_hf_archive(content=content, name=name)
        return import_hf_archive(folder=folder, name=name, project=project).as_dict()
    if job.format == "labelstudio":
        return import_label_studio(
            path=source,
            name=name,
            project=project,
            created_by=job.created_by,
            members_only=True,
            texts_only=bool(job.options.get("texts_only")),
            choices=parse_choices(job.options.get("annotators")),
        ).as_dict()
    if job.format in ITEM_FORMATS:
        return import_items(
            path=source,
            name=name,
            project=project,
            format=job.format,
            columns=job.options.get("columns"),
            text_column=job.options.get("text_column") if job.format == "smartypat" else None,
            set_metadata=job.options.get("set_metadata"),
        ).as_dict()
    if job.format == "csv":
        return _import_csv(job, source)
    return import_texts(path=source, name=name, project=project, records=records, **later).as_dict()


def _import_mafalda(job: ImportJob, source: io.BytesIO, *, texts_only: bool) -> dict[str, Any]:
    """A MAFALDA file: its texts alone when no record carries labels, else a gold standard."""
    project, name = job.project, job.file_name
    if texts_only:
        texts = (TextRecord(line=line, text=text) for line, text in _mafalda_texts(source, name))
        report = import_texts(
            path=source, name=name, project=project, records=texts, defer_search_index=True
        )
        return {
            **report.as_dict(),
            "format": "mafalda",
            "texts_only": True,
            "note": "no record carries labels: the texts were imported, no gold standard",
        }
    report = import_mafalda_gold(
        path=source,
        name=name,
        project=project,
        created_by=job.created_by,
        defer_search_index=True,
    )
    return {**report.as_dict(), "texts_only": False}


def _import_csv(job: ImportJob, source: io.BytesIO) -> dict[str, Any]:
    """A CSV file's rows as texts, read with the job's column choices."""
    name = job.file_name
    rows = read_csv_texts(
        source,
        name=name,
        text_column=job.options["text_column"],
        id_column=job.options.get("id_column", ""),
    )
    report = import_texts(
        path=source, name=name, project=job.project, records=rows, defer_search_index=True
    )
    return {**report.as_dict(), "format": "csv"}


def _mafalda_texts(source: io.BytesIO, name: str) -> Iterator[tuple[int, str]]:
    for line, record in iter_json_objects(source, name):
        yield (
            line,
            checked_text(RecordChecker(name, line, record).string("text"), name=name, line=line),
        )
