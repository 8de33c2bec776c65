"""Imports started in the browser: an ``ImportJob`` holds the uploaded bytes until it ends.

``run_import_job`` works in two steps, so that a failed job lists *every* bad record and
imports nothing:

1. validation, record by record (each JSON line or CSV row checked on its own, with the
   same readers and messages as the importers, plus the checks that span records: labels
   in the project's taxonomy, texts and ids repeated in the file, ids already taken), the
   errors collected (every one of them, in line order: the job's ``errors`` hold them
   all, the page decides how many to show at once), ``lines_done`` saved every
   ``PROGRESS_EVERY`` lines (outside any transaction, so a poller sees it);
2. only when nothing is wrong, the atomic import of ``services.imports`` (all or nothing;
   an error it still finds fails the job with nothing imported).

Item formats (``flub``, ``smartypat``, ``items`` with a column mapping in ``options``)
go into item projects through ``services.item_imports``, validated the same way (every bad
record listed, ids repeated in the file or already in the project included).

A MAFALDA file whose records carry no ``labels`` at all (texts for a user study) imports
its texts only, and no gold standard. CSV rows are imported as texts.

Concurrency: a job runs once. ``run_import_job`` claims it with a conditional update from
``queued`` to ``running``; a second call (a redelivered task) finds it claimed and returns.
Imports into one project serialise on the project row (see ``services.imports``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from fallacy_platform.liveness import Heartbeat

from annotations.formats import DatasetFormatError
from annotations.formats.csv import CsvColumns, csv_rows, read_csv_texts
from annotations.formats.doccano import read_doccano
from annotations.formats.flub import read_flub
from annotations.formats.item_columns import ItemRows, is_jsonl, read_item_columns
from annotations.formats.jsonl import RecordChecker, iter_json_objects
from annotations.formats.mafalda import read_mafalda
from annotations.formats.plaintext import TextRecord, read_text_blocks, read_text_jsonl
from annotations.formats.smartypat import SmartyPatColumns
from annotations.models import Document, ImportJob, Project
from annotations.selectors.taxonomy import label_resolver
from annotations.sentences import SentenceError, sentences_from_units
from annotations.services.imports import (
    group_spans,
    import_doccano_annotations,
    import_mafalda_gold,
    import_texts,
)
from annotations.services.item_imports import (
    ITEM_FORMATS,
    IdCheck,
    ItemConverter,
    ItemDraft,
    ItemImportError,
    columns_from,
    import_items,
)

logger = logging.getLogger(__name__)

FORMATS = ("mafalda", "doccano", "text", "csv", *ITEM_FORMATS)
INLINE_MAX_BYTES = settings.IMPORT_INLINE_MAX_BYTES
MAX_UPLOAD_BYTES = settings.UPLOAD_MAX_BYTES
PROGRESS_EVERY = 200
ID_BATCH = 500


# --- creating and starting jobs ----------------------------------------------------------


def count_lines(content: bytes) -> int:
    """Physical lines, as the readers number them (``len(content.splitlines())`` without
    the list of lines)."""
    breaks = content.count(b"\n") + content.count(b"\r") - content.count(b"\r\n")
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
) -> ImportJob:
    """A queued job holding the file. CSV needs ``text_column`` ("text" by default);
    doccano files are one annotator's work (``annotator``, by default ``created_by``);
    item formats need an item project, and ``items`` a column mapping (``columns``)."""
    if format not in FORMATS:
        raise ValidationError(
            {"format": [f"unknown format '{format}'; one of {', '.join(FORMATS)}"]}
        )
    if not content:
        raise ValidationError({"file": [f"{file_name} is empty"]})
    if len(content) > MAX_UPLOAD_BYTES:
        raise ValidationError(
            {"file": [f"{file_name} is larger than {MAX_UPLOAD_BYTES // (1024 * 1024)} MiB"]}
        )
    options: dict[str, Any] = {}
    if format in ITEM_FORMATS:
        options = _item_options(project, format, file_name, columns)
    elif project.kind == "items":
        raise ValidationError(
            {
                "format": [
                    f"project '{project.name}' is an item project; import "
                    f"{', '.join(ITEM_FORMATS)} files into it"
                ]
            }
        )
    if format == "csv":
        options = {"text_column": text_column or "text", "id_column": id_column}
    elif format == "doccano":
        annotator = annotator or created_by
        if annotator is None:
            raise ValidationError({"annotator": ["a doccano file needs its annotator"]})
        options = {"annotator": annotator.pk}
    return ImportJob.objects.create(
        project=project,
        created_by=created_by,
        format=format,
        options=options,
        file_name=file_name[:255],
        content=content,
        size=len(content),
        lines_total=count_lines(content),
    )


def _item_options(
    project: Project, format: str, file_name: str, columns: dict[str, Any] | str | None
) -> dict[str, Any]:
    if project.kind != "items":
        raise ValidationError(
            {
                "format": [
                    f"{format} files hold items; project '{project.name}' is a"
                    f" {project.kind} project (create a project of kind items)"
                ]
            }
        )
    if format != "items":
        return {}
    if not columns:
        raise ValidationError({"columns": ["the items format needs a column mapping (text)"]})
    try:
        mapping = columns_from(columns)
        ItemConverter(project=project, format=format, name=file_name, columns=mapping)
    except ItemImportError as error:
        raise ValidationError({"columns": [str(error)]}) from error
    return {"columns": mapping.as_dict()}


def start_import_job(*, job: ImportJob) -> ImportJob:
    """Run a small job now (inside the caller's request); queue a large one on the
    ``default`` Celery queue once the job row is committed."""
    if job.size < INLINE_MAX_BYTES:
        return run_import_job(job_id=job.pk)
    transaction.on_commit(lambda: _enqueue(job.pk))
    return job


def _enqueue(job_id: int) -> None:
    from annotations.tasks import run_import_job as task

    try:
        task.apply_async(args=[job_id])
    except Exception as error:  # noqa: BLE001 - the broker is down: say so on the job
        logger.exception("could not queue import job %s", job_id)
        _finish(
            ImportJob.objects.get(pk=job_id),
            errors=[error_entry(None, None, f"could not queue the import: {error}")],
        )


# --- running -----------------------------------------------------------------------------


def run_import_job(*, job_id: int) -> ImportJob:
    """Validate, then import all or nothing (see the module docstring). Returns the job."""
    now = timezone.now()
    claimed = ImportJob.objects.filter(pk=job_id, status=ImportJob.Status.QUEUED).update(
        status=ImportJob.Status.RUNNING, started_at=now, heartbeat_at=now
    )
    job = ImportJob.objects.select_related("project__taxonomy").get(pk=job_id)
    if not claimed:
        return job
    from annotations.services.job_liveness import beat_import_job

    with Heartbeat(lambda: beat_import_job(job_id=job_id)):
        return _run_claimed(job)


def _run_claimed(job: ImportJob) -> ImportJob:
    job_id = job.pk
    content = bytes(job.content)
    try:
        check = _Check(job, content)
        check.run()
        if check.errors.count:
            return _finish(job, errors=check.errors.entries())
        report = _import(job, content, texts_only=check.texts_only)
    except DatasetFormatError as error:
        return _finish(job, errors=[error_entry(error.line, error.field, error.message)])
    except Exception as error:
        logger.exception("import job %s failed", job_id)
        return _finish(job, errors=[error_entry(None, None, f"unexpected error: {error}")])
    return _finish(job, report=report)


def _finish(
    job: ImportJob, *, report: dict[str, Any] | None = None, errors: list[dict] | None = None
) -> ImportJob:
    job.status = ImportJob.Status.FAILED if errors else ImportJob.Status.SUCCEEDED
    job.report = report or {}
    job.errors = errors or []
    job.content = b""
    job.finished_at = timezone.now()
    fields = ["status", "report", "errors", "content", "finished_at"]
    if not errors:
        job.lines_done = job.lines_total
        fields.append("lines_done")
    job.save(update_fields=fields)
    if errors:
        job.refresh_from_db(fields=["lines_done"])  # as far as validation got
    return job


def _import(job: ImportJob, content: bytes, *, texts_only: bool) -> dict[str, Any]:
    project, name = job.project, job.file_name
    source = io.BytesIO(content)
    if job.format == "mafalda" and texts_only:
        records = (TextRecord(line=line, text=text) for line, text in _mafalda_texts(source, name))
        report = import_texts(path=source, name=name, project=project, records=records)
        return {
            **report.as_dict(),
            "format": "mafalda",
            "texts_only": True,
            "note": "no record carries labels: the texts were imported, no gold standard",
        }
    if job.format == "mafalda":
        report = import_mafalda_gold(
            path=source, name=name, project=project, created_by=job.created_by
        )
        return {**report.as_dict(), "texts_only": False}
    if job.format == "doccano":
        annotator = get_user_model().objects.get(pk=job.options["annotator"])
        return import_doccano_annotations(
            path=source, name=name, project=project, annotator=annotator
        ).as_dict()
    if job.format in ITEM_FORMATS:
        return import_items(
            path=source,
            name=name,
            project=project,
            format=job.format,
            columns=job.options.get("columns"),
        ).as_dict()
    if job.format == "csv":
        records = read_csv_texts(
            source,
            name=name,
            text_column=job.options["text_column"],
            id_column=job.options.get("id_column", ""),
        )
        report = import_texts(path=source, name=name, project=project, records=records)
        return {**report.as_dict(), "format": "csv"}
    return import_texts(path=source, name=name, project=project).as_dict()


def _mafalda_texts(source: io.BytesIO, name: str) -> Iterator[tuple[int, str]]:
    for line, record in iter_json_objects(source, name):
        yield line, RecordChecker(name, line, record).string("text")


# --- validation, record by record ---------------------------------------------------------


def error_entry(line: int | None, field_name: str | None, message: str) -> dict[str, Any]:
    """An error as a job lists it; ``text`` is "LINE: FIELD: message"."""
    where = ": ".join(str(part) for part in (line, field_name) if part not in (None, ""))
    return {
        "line": line,
        "field": field_name or None,
        "message": message,
        "text": f"{where}: {message}" if where else message,
    }


@dataclass
class _Errors:
    """Every problem found (kept in line order when merged) and how many there are."""

    kept: list[dict[str, Any]] = field(default_factory=list)
    count: int = 0

    def add(self, line: int | None, field_name: str | None, message: str) -> None:
        self.count += 1
        self.kept.append(error_entry(line, field_name, message))

    def add_error(self, error: DatasetFormatError, line: int | None = None) -> None:
        self.add(line if line is not None else error.line, error.field, error.message)

    def merge(self, other: _Errors) -> None:
        self.kept = sorted(self.kept + other.kept, key=lambda e: e["line"] or 0)
        self.count += other.count

    def entries(self) -> list[dict[str, Any]]:
        return list(self.kept)


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()


class _Check:
    """One pass over the file collecting every problem (see the module docstring)."""

    def __init__(self, job: ImportJob, content: bytes) -> None:
        self.job = job
        self.content = content
        self.name = job.file_name
        self.errors = _Errors()
        self.texts_only = False
        self.text_lines: dict[bytes, int] = {}  # digest of a text -> its first line
        self.id_lines: dict[str, int] = {}
        self.pending_ids: list[tuple[int, str, str]] = []  # (line, id, text) to look up
        self.reported = 0

    def run(self) -> None:
        fmt = self.job.format
        if fmt in ITEM_FORMATS:
            self.items()
            self.progress(self.job.lines_total, force=True)
            return
        if fmt == "csv":
            self.csv()
        elif fmt == "text" and not self.name.lower().endswith(".jsonl"):
            self.text_blocks()
        elif fmt == "text":
            for line, single in self.lines():
                record = self.read_one(read_text_jsonl, line, single)
                if record is not None:
                    self.text_record(record)
        elif fmt == "doccano":
            self.doccano()
        else:
            self.mafalda()
        self.flush_ids()
        self.progress(self.job.lines_total, force=True)

    # progress and lines

    def progress(self, line: int, *, force: bool = False) -> None:
        if force or line - self.reported >= PROGRESS_EVERY:
            self.reported = line
            done = min(line, self.job.lines_total)
            ImportJob.objects.filter(pk=self.job.pk).update(lines_done=done)

    def lines(self) -> Iterator[tuple[int, str]]:
        """``(line number, line)`` of the non-blank lines; a line that is not UTF-8 is an
        error of its own."""
        for line, raw in enumerate(self.content.splitlines(), start=1):
            self.progress(line)
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                self.errors.add(line, None, f"not UTF-8 text: {error.reason}")
                continue
            if text.strip():
                yield line, text

    def read_one(self, reader: Any, line: int, single: str, errors: _Errors | None = None) -> Any:
        """The record a reader makes of one line, or None after noting its error."""
        try:
            return next(iter(reader(io.StringIO(single), name=self.name)))
        except DatasetFormatError as error:
            (errors or self.errors).add_error(error, line)
            return None

    # checks that span records

    def repeated_text(self, line: int, text: str, errors: _Errors | None = None) -> bool:
        digest = _digest(text)
        if digest in self.text_lines:
            (errors or self.errors).add(
                line, "text", f"same text as line {self.text_lines[digest]}"
            )
            return True
        self.text_lines[digest] = line
        return False

    def text_record(self, record: TextRecord, column: str = "id") -> None:
        if self.repeated_text(record.line, record.text) or not record.external_id:
            return
        if record.external_id in self.id_lines:
            self.errors.add(
                record.line, column, f"same id as line {self.id_lines[record.external_id]}"
            )
            return
        self.id_lines[record.external_id] = record.line
        self.pending_ids.append((record.line, record.external_id, record.text))
        if len(self.pending_ids) >= ID_BATCH:
            self.flush_ids()

    def flush_ids(self) -> None:
        """Ids already taken by another document (texts already in the project are reused,
        not added, so their ids do not matter), as ``import_texts`` refuses them."""
        if not self.pending_ids:
            return
        project = self.job.project
        ids = [external_id for _, external_id, _ in self.pending_ids]
        taken = set(
            Document.objects.filter(project=project, external_id__in=ids).values_list(
                "external_id", flat=True
            )
        )
        texts = [text for _, external_id, text in self.pending_ids if external_id in taken]
        present = set(
            Document.objects.filter(project=project, text__in=texts).values_list("text", flat=True)
        )
        column = self.job.options.get("id_column") or "id"
        for line, external_id, text in self.pending_ids:
            if external_id in taken and text not in present:
                self.errors.add(
                    line,
                    column,
                    f"id {external_id!r} is already the id of another document of the project",
                )
        self.pending_ids = []

    # formats

    def csv(self) -> None:
        rows = csv_rows(io.BytesIO(self.content), name=self.name)
        try:
            _, header = next(rows)
            columns = CsvColumns(
                self.name,
                header,
                text_column=self.job.options["text_column"],
                id_column=self.job.options.get("id_column", ""),
            )
            for line, fields in rows:
                self.progress(line)
                try:
                    record = columns.record(line, fields)
                except DatasetFormatError as error:
                    self.errors.add_error(error)
                    continue
                self.text_record(record, column=columns.id_column or "id")
        except DatasetFormatError as error:  # the header, or a file the csv module gives up on
            self.errors.add_error(error)

    def text_blocks(self) -> None:
        try:
            self.content.decode("utf-8")
        except UnicodeDecodeError as error:
            line = self.content[: error.start].count(b"\n") + 1
            self.errors.add(line, None, f"not UTF-8 text: {error.reason}")
            return
        for record in read_text_blocks(io.BytesIO(self.content), name=self.name):
            self.progress(record.line)
            self.repeated_text(record.line, record.text)

    def labelled(self, record: Any, field_name: str, errors: _Errors, line: int) -> None:
        def fail(place: str, message: str) -> DatasetFormatError:
            return DatasetFormatError(self.name, line, place, message)

        try:
            group_spans(
                record.labels, self.resolver, fail, field_name=field_name, to_clean=lambda: None
            )
        except DatasetFormatError as error:
            errors.add_error(error)

    def doccano(self) -> None:
        self.resolver = label_resolver(self.job.project.taxonomy)
        for line, single in self.lines():
            record = self.read_one(read_doccano, line, single)
            if record is not None:
                self.labelled(record, "label", self.errors, line)
                self.repeated_text(line, record.text)

    def mafalda(self) -> None:
        """Checked both ways at once, since only the whole file tells which applies: as a
        gold standard (when any record has labels) and as texts (when none has)."""
        self.resolver = label_resolver(self.job.project.taxonomy)
        as_gold, as_texts, repeats = _Errors(), _Errors(), _Errors()
        any_labels = False
        for line, single in self.lines():
            try:
                _, record = next(iter_json_objects(io.StringIO(single), self.name))
            except DatasetFormatError as error:
                self.errors.add_error(error, line)
                continue
            any_labels = any_labels or "labels" in record
            gold = self.read_one(read_mafalda, line, single, as_gold)
            if gold is not None:
                self.labelled(gold, "labels", as_gold, line)
                if gold.sentence_units is not None:
                    try:
                        sentences_from_units(gold.text, gold.sentence_units)
                    except SentenceError as error:
                        as_gold.add(line, "sentences_with_labels", str(error))
            check = RecordChecker(self.name, line, record)
            try:
                text = check.string("text")
                if not text.strip():
                    raise check.fail("text", "the text is blank")
            except DatasetFormatError as error:
                as_texts.add_error(error, line)
                continue
            self.repeated_text(line, text, repeats)
        self.texts_only = not any_labels
        chosen = as_texts if self.texts_only else as_gold
        chosen.merge(repeats)
        self.errors.merge(chosen)

    # items

    def items(self) -> None:
        try:
            columns = self.job.options.get("columns")
            converter = ItemConverter(
                project=self.job.project,
                format=self.job.format,
                name=self.name,
                columns=columns_from(columns) if columns is not None else None,
            )
        except ItemImportError as error:
            self.errors.add(None, None, str(error))
            return
        ids = IdCheck(converter)
        pending: list[ItemDraft] = []

        def take(record: Any) -> None:
            try:
                draft = converter.draft(record)
            except DatasetFormatError as error:
                self.errors.add_error(error)
                return
            repeated = ids.repeated(draft)
            if repeated is not None:
                self.errors.add_error(repeated)
                return
            pending.append(draft)
            if len(pending) >= ID_BATCH:
                flush()

        def flush() -> None:
            for error in ids.taken(pending):
                self.errors.add_error(error)
            pending.clear()

        if self.job.format == "flub" or (self.job.format == "items" and is_jsonl(self.name)):
            for line, single in self.lines():
                if self.job.format == "flub":
                    record = self.read_one(read_flub, line, single)
                else:
                    record = self.read_one(
                        lambda source, name: read_item_columns(
                            source, columns=converter.columns, name=name
                        ),
                        line,
                        single,
                    )
                if record is not None:
                    take(dataclasses.replace(record, line=line))
        else:
            rows = csv_rows(io.BytesIO(self.content), name=self.name)
            try:
                _, header = next(rows)
                reader: Any = (
                    SmartyPatColumns(self.name, header)
                    if self.job.format == "smartypat"
                    else ItemRows(self.name, converter.columns, header)
                )
                for line, fields in rows:
                    self.progress(line)
                    try:
                        record = reader.record(line, fields)
                    except DatasetFormatError as error:
                        self.errors.add_error(error)
                        continue
                    take(record)
            except StopIteration:
                self.errors.add(1, None, "the file has no header row")
            except DatasetFormatError as error:
                self.errors.add_error(error)
        flush()
