"""Validation of an import job's file, record by record: every problem is collected (each
JSON line or CSV row checked on its own, with the same readers and messages as the importers,
plus the checks that span records: labels in the project's taxonomy, texts and ids repeated in
the file, ids already taken), in line order; the job's ``lines_done`` is saved at most every
``PROGRESS_SECONDS`` (outside any transaction, so a poller sees it; on SQLite a write of the
job's row rewrites the uploaded bytes it holds, so writes are few).
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import itertools
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from annotations.importing.formats import DatasetFormatError
from annotations.importing.formats.csv import CsvColumns, csv_rows
from annotations.importing.formats.doccano import read_doccano
from annotations.importing.formats.errors import FileLimitError
from annotations.importing.formats.flub import read_flub
from annotations.importing.formats.hf import HFFolder, HFFormatError
from annotations.importing.formats.item_columns import ItemRows, is_jsonl, read_item_columns
from annotations.importing.formats.jsonl import RecordChecker, iter_json_objects
from annotations.importing.formats.label_studio import check_label_studio
from annotations.importing.formats.mafalda import read_mafalda
from annotations.importing.formats.plaintext import TextRecord, read_text_blocks, read_text_jsonl
from annotations.importing.formats.smartypat import smartypat_columns
from annotations.importing.formats.text_limit import checked_text
from annotations.importing.hf_archive import check_hf_folder, read_hf_archive
from annotations.importing.item_settings import ItemImportError, columns_from
from annotations.importing.items import ITEM_FORMATS, IdCheck, ItemConverter, ItemDraft
from annotations.importing.label_spans import group_spans
from annotations.importing.label_studio_annotators import dropped_keys, is_dropped
from annotations.importing.sentences import SentenceError, sentences_from_units
from annotations.models import Document, ImportJob
from annotations.selectors.taxonomy import label_resolver

PROGRESS_SECONDS = 0.5
ID_BATCH = 500


def format_error_entry(error: DatasetFormatError) -> dict[str, Any]:
    """A reader's error as a job lists it; a file inside an uploaded dataset folder is named
    (``data/test-00000-of-00001.parquet: row 2: spans[0].end: ...``)."""
    if not isinstance(error, HFFormatError | FileLimitError):
        return error_entry(error.line, error.field, error.message)
    return {**error_entry(error.line or None, error.field, error.message), "text": str(error)}


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
class Errors:
    """Every problem found (kept in line order when merged) and how many there are."""

    kept: list[dict[str, Any]] = field(default_factory=list)
    count: int = 0

    def add(self, line: int | None, field_name: str | None, message: str) -> None:
        self.count += 1
        self.kept.append(error_entry(line, field_name, message))

    def add_file_error(self, error: DatasetFormatError) -> None:
        """An error naming its own file and place (``format_error_entry``)."""
        self.count += 1
        self.kept.append(format_error_entry(error))

    def add_error(self, error: DatasetFormatError, line: int | None = None) -> None:
        self.add(line if line is not None else error.line, error.field, error.message)

    def merge(self, other: Errors) -> None:
        self.kept = sorted(self.kept + other.kept, key=lambda e: e["line"] or 0)
        self.count += other.count

    def entries(self) -> list[dict[str, Any]]:
        return list(self.kept)


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()


class FileCheck:
    """One pass over the file collecting every problem (see the module docstring)."""

    def __init__(
        self, job: ImportJob, content: bytes, records: list[TextRecord] | None = None
    ) -> None:
        self.job = job
        self.content = content
        self.name = job.file_name
        self.errors = Errors()
        self.texts_only = False
        self.text_lines: dict[bytes, int] = {}  # digest of a text -> its first line
        self.id_lines: dict[str, int] = {}
        self.pending_ids: list[tuple[int, str, str]] = []  # (line, id, text) to look up
        # a text file's records (as the bounded child or this check read them), for the import
        # to take instead of reading again
        self.records = records
        self.hf_folder: HFFolder | None = None  # an uploaded dataset folder's rows
        self.reported_at = time.monotonic()

    def run(self) -> None:
        fmt = self.job.format
        if fmt == "hf":
            self.hf_archive()
            self.progress(self.job.lines_total, force=True)
            return
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
        elif fmt == "labelstudio":
            self.label_studio()
        else:
            self.mafalda()
        self.flush_ids()
        self.progress(self.job.lines_total, force=True)

    # progress and lines

    def progress(self, line: int, *, force: bool = False) -> None:
        now = time.monotonic()
        if force or now - self.reported_at >= PROGRESS_SECONDS:
            self.reported_at = now
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

    def read_one(self, reader: Any, line: int, single: str, errors: Errors | None = None) -> Any:
        """The record a reader makes of one line, or None after noting its error."""
        try:
            return next(iter(reader(io.StringIO(single), name=self.name)))
        except DatasetFormatError as error:
            (errors or self.errors).add_error(error, line)
            return None

    # checks that span records

    def repeated_text(self, line: int, text: str, errors: Errors | None = None) -> bool:
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
        if self.records is None:
            try:
                self.content.decode("utf-8")
            except UnicodeDecodeError as error:
                line = self.content[: error.start].count(b"\n") + 1
                self.errors.add(line, None, f"not UTF-8 text: {error.reason}")
                return
            self.records = list(read_text_blocks(io.BytesIO(self.content), name=self.name))
        for record in self.records:
            self.progress(record.line)
            self.repeated_text(record.line, record.text)

    def labelled(self, record: Any, field_name: str, errors: Errors, line: int) -> None:
        try:
            group_spans(
                record.labels,
                self.resolver,
                file_name=self.name,
                line=line,
                field_name=field_name,
                to_clean=lambda: None,
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

    def hf_archive(self) -> None:
        """Every bad row of the uploaded dataset folder (its rows are the job's lines)."""

        def total(rows: int) -> None:
            self.job.lines_total = rows
            ImportJob.objects.filter(pk=self.job.pk).update(lines_total=rows)

        try:
            self.hf_folder = read_hf_archive(content=self.content, name=self.name)
            problems = check_hf_folder(
                folder=self.hf_folder,
                project=self.job.project,
                on_total=total,
                on_row=self.progress,
            )
        except HFFormatError as error:
            problems = [error]
        for problem in problems:
            self.errors.add_file_error(problem)

    def label_studio(self) -> None:
        """Every task's problems and unknown labels; what needs the stored documents (a
        changed text, a region between sentences) is found by the import itself. The labels
        of what the import skips (texts only, dropped annotators) are not checked."""
        resolver = label_resolver(self.job.project.taxonomy)
        texts_only = bool(self.job.options.get("texts_only"))
        dropped = dropped_keys(self.job.options.get("annotators"))
        try:
            for task in check_label_studio(io.BytesIO(self.content), name=self.name):
                if isinstance(task, DatasetFormatError):
                    self.errors.add_error(task)
                    continue
                self.progress(task.line)
                digest = _digest(task.text)
                if digest in self.text_lines:
                    self.errors.add(
                        task.line,
                        f"{task.name}: data.text",
                        f"same text as the task on line {self.text_lines[digest]}",
                    )
                self.text_lines.setdefault(digest, task.line)
                checked = [c for c in task.annotations if not is_dropped(c, dropped)]
                for completion in [] if texts_only else [*checked, *task.predictions]:
                    for region in completion.regions:
                        for index, raw in enumerate(region.labels):
                            if resolver.resolve(raw) is None:
                                self.errors.add(
                                    task.line,
                                    f"{task.name}: {region.place}.value.labels[{index}]",
                                    f"unknown label {raw!r} (not in the project's taxonomy)",
                                )
        except DatasetFormatError as error:
            self.errors.add_error(error)

    def mafalda(self) -> None:
        """Checked both ways at once, since only the whole file tells which applies: as a
        gold standard (when any record has labels) and as texts (when none has)."""
        self.resolver = label_resolver(self.job.project.taxonomy)
        as_gold, as_texts, repeats = Errors(), Errors(), Errors()
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
                text = checked_text(check.string("text"), name=self.name, line=line)
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
        drafts = _ItemDrafts(converter, self.errors)
        if self.job.format == "flub" or (self.job.format == "items" and is_jsonl(self.name)):
            self.item_lines(converter, drafts)
        else:
            self.item_rows(converter, drafts)
        drafts.flush()

    def item_lines(self, converter: ItemConverter, drafts: _ItemDrafts) -> None:
        """A JSON Lines item file, line by line."""
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
                drafts.take(dataclasses.replace(record, line=line))

    def item_rows(self, converter: ItemConverter, drafts: _ItemDrafts) -> None:
        """A CSV item file (SmartyPat's, or column-mapped), row by row."""
        rows = csv_rows(io.BytesIO(self.content), name=self.name)
        try:
            first_line, header = next(rows)
            reader: Any
            if self.job.format == "smartypat":
                reader, has_header = smartypat_columns(
                    self.name, header, text_column=self.job.options.get("text_column")
                )
                if not has_header:
                    rows = itertools.chain([(first_line, header)], rows)
            else:
                reader = ItemRows(self.name, converter.columns, header)
            for line, fields in rows:
                self.progress(line)
                try:
                    record = reader.record(line, fields)
                except DatasetFormatError as error:
                    self.errors.add_error(error)
                    continue
                drafts.take(record)
        except StopIteration:
            self.errors.add(1, None, "the file has no header row")
        except DatasetFormatError as error:
            self.errors.add_error(error)


class _ItemDrafts:
    """Item records made drafts, their problems noted; ids repeated in the file are found
    at once, ids already taken in the project every ``ID_BATCH`` drafts."""

    def __init__(self, converter: ItemConverter, errors: Errors) -> None:
        self.converter = converter
        self.errors = errors
        self.ids = IdCheck(converter)
        self.pending: list[ItemDraft] = []

    def take(self, record: Any) -> None:
        try:
            draft = self.converter.draft(record)
        except DatasetFormatError as error:
            self.errors.add_error(error)
            return
        repeated = self.ids.repeated(draft)
        if repeated is not None:
            self.errors.add_error(repeated)
            return
        self.pending.append(draft)
        if len(self.pending) >= ID_BATCH:
            self.flush()

    def flush(self) -> None:
        for error in self.ids.taken(self.pending):
            self.errors.add_error(error)
        self.pending.clear()
