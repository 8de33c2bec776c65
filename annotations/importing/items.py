"""Importing items into an item project (``Project.kind == "items"``): FLUB, SmartyPat, or
any CSV/JSON Lines file through a column mapping (``formats.item_columns``).

Each record becomes a document (the text; ``external_id`` the record's id; a readable name)
whose ``metadata`` is laid out as ``annotations.items`` says::

    {"format": "flub", "record": {...}, "record_keys": [...], "nan_fields": [...],
     "options": {...}, "candidate": "...", "gold": {form field: value}}

- ``record`` is the record as read, made JSON-safe: PostgreSQL's JSONB refuses ``NaN``
  (and infinities), so such a value is stored as ``null`` and its place noted in
  ``nan_fields`` (``[{"path": ["type"], "value": "NaN"}]``); JSONB also sorts object keys,
  so ``record_keys`` keeps the record's key order. ``item_exports`` puts both back.
- ``gold`` maps form fields to answer keys, in the shapes of ``annotations.items``:
  FLUB ``answer`` -> the multiple-choice field, ``type`` -> the classification field after
  the field's ``merge`` map (no gold when the file has no type), ``explanation`` -> the
  free-text field (its reference text); SmartyPat ``fallacy types`` -> the ranked field
  (a list, file order) and the detection field (``true`` when any type is given), the
  types cell as written in ``gold_text`` (``{ranked field: cell}``, read by scoring
  profiles that match labels in it) and the column the text came from in ``text_column``;
  a column
  mapping's ``answer``/``label``/``labels``/``reference`` -> the field it names, else the
  form's field of that kind. A form without such a field gets no gold for it.
- ``set_metadata`` (``{"split": "bench"}``, from ``key=value`` settings) is written as
  top-level keys of every item of the file: a headerless published file records no split,
  and the Results tab offers each such key's values as subsets (``split=bench``). A key the
  layout uses (``gold``, ``record``, ...) is refused.
- Labels are matched to the field's label set (its own, else the taxonomy's type names,
  then also their aliases) ignoring case and spacing; an unknown label is an error naming
  the line and the file's field.

All or nothing, as ``importing.datasets``: records are validated while the file streams and
written in batches inside one transaction; the first bad record raises
``DatasetFormatError`` (file, line, field) and rolls everything back. An id repeated in
the file, or already the id of one of the project's documents, is an error: re-importing
the same items is refused (it would duplicate them). Imports into one project serialise
on the project row.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from django.db import transaction

from annotations.importing.formats import DatasetFormatError
from annotations.importing.formats.flub import FlubRecord, read_flub
from annotations.importing.formats.item_columns import (
    GOLD_ROLES,
    ItemColumns,
    ItemRecord,
    read_item_columns,
)
from annotations.importing.formats.jsonl import Source, source_name
from annotations.importing.formats.smartypat import SmartyPatRecord, read_smartypat
from annotations.importing.item_settings import ItemImportError, columns_from, parse_set_metadata
from annotations.items import Form, FormError, FormField, json_safe, parse_form
from annotations.labels import LabelResolver, normalise_label
from annotations.models import Document, Project
from annotations.selectors.taxonomy import label_resolver
from annotations.services.documents import (
    BATCH_SIZE,
    NewDocument,
    batched,
    create_documents,
    next_position,
)

ITEM_FORMATS = ("flub", "smartypat", "items")


@dataclass
class ItemImportReport:
    """What an item import did; ``summary()`` is the few lines the command prints."""

    format: str
    file: str
    items: int = 0
    documents_created: int = 0
    sentences: int = 0
    gold: dict[str, int] = field(default_factory=dict)  # form field -> items with gold
    nan_values: int = 0  # NaN/Infinity values stored as null (see nan_fields)

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "texts": self.items}

    def summary(self) -> str:
        gold = ", ".join(f"{name} {count}" for name, count in self.gold.items()) or "none"
        lines = [
            f"Imported {self.items} items from {Path(self.file).name} ({self.format}):",
            f"  documents: {self.documents_created} created ({self.sentences} sentences)",
            f"  gold answers per field: {gold}",
        ]
        if self.nan_values:
            lines.append(f"  NaN values kept as null (restored on export): {self.nan_values}")
        return "\n".join(lines)


# --- records to items ----------------------------------------------------------------------


@dataclass(frozen=True)
class ItemDraft:
    line: int
    external_id: str
    text: str
    metadata: dict[str, Any]


class _Labels:
    """A field's label set, with lenient matching (case, spacing; taxonomy aliases)."""

    def __init__(self, form_field: FormField, taxonomy: LabelResolver) -> None:
        self.field = form_field
        self.labels = form_field.labels_or(taxonomy.names)
        self.by_key = {normalise_label(label): label for label in self.labels}
        self.taxonomy = None if form_field.labels else taxonomy
        self.merge = {normalise_label(raw): label for raw, label in form_field.merge.items()}

    def resolve(self, raw: str) -> str | None:
        key = normalise_label(raw)
        value = self.merge.get(key, raw)
        found = self.by_key.get(normalise_label(value))
        if found is None and self.taxonomy is not None:
            found = self.taxonomy.resolve(value)
            found = found if found in self.labels else None
        return found

    def describe(self) -> str:
        shown = ", ".join(self.labels[:12]) + (" ..." if len(self.labels) > 12 else "")
        return f"not a label of form field {self.field.name!r} (labels: {shown or 'none'})"


class ItemConverter:
    """Turns one reader record into an ``ItemDraft`` (the checks of one record); used by
    the importer and, record by record, by browser import jobs' validation."""

    def __init__(
        self,
        *,
        project: Project,
        format: str,
        name: str,
        columns: ItemColumns | None = None,
        text_column: str | None = None,
        set_metadata: Mapping[str, str] | None = None,
    ) -> None:
        if project.kind != "items":
            raise ItemImportError(
                f"project '{project.name}' is a {project.kind} project; items go into a"
                " project of kind items"
            )
        if format not in ITEM_FORMATS:
            raise ItemImportError(
                f"unknown item format '{format}'; one of {', '.join(ITEM_FORMATS)}"
            )
        if format == "items" and columns is None:
            raise ItemImportError("the items format needs a column mapping (at least text)")
        if text_column and format != "smartypat":
            raise ItemImportError("text_column goes with the smartypat format (items: columns)")
        try:
            self.form: Form = parse_form(project.form)
        except FormError as error:
            raise ItemImportError(f"the project's form is invalid: {error}") from error
        self.project = project
        self.format = format
        self.name = name
        self.columns = columns
        self.text_column = text_column or None
        self.set_metadata = parse_set_metadata(set_metadata)
        self.taxonomy = label_resolver(project.taxonomy)
        self.targets = self._targets()
        self._labels = {
            f.name: _Labels(f, self.taxonomy)
            for f in self.targets.values()
            if f is not None and f.kind in ("classification", "ranked", "segmentation")
        }

    def _field(self, kind: str, role: str) -> FormField | None:
        named = (self.columns.fields.get(role) if self.columns else None) or None
        if named:
            try:
                form_field = self.form.get(named)
            except FormError as error:
                raise ItemImportError(f"columns.{role}: {error}") from error
            if form_field.kind != kind:
                raise ItemImportError(
                    f"columns.{role}: form field {named!r} is {form_field.kind}, not {kind}"
                )
            return form_field
        fields = self.form.of_kind(kind)
        return fields[0] if fields else None

    def _targets(self) -> dict[str, FormField | None]:
        return {role: self._field(kind, role) for role, kind in GOLD_ROLES.items()}

    def fail(self, line: int, field_name: str | None, message: str) -> DatasetFormatError:
        return DatasetFormatError(self.name, line, field_name, message)

    # readers

    def records(self, source: Source) -> Iterator[Any]:
        if self.format == "flub":
            return read_flub(source, name=self.name)
        if self.format == "smartypat":
            return read_smartypat(source, name=self.name, text_column=self.text_column)
        assert self.columns is not None
        return read_item_columns(source, columns=self.columns, name=self.name)

    # one record

    def draft(self, record: Any) -> ItemDraft:
        if isinstance(record, FlubRecord):
            return self._flub(record)
        if isinstance(record, SmartyPatRecord):
            return self._smartypat(record)
        return self._columns(record)

    def _label(self, role: str, raw: str, line: int, field_name: str) -> str:
        form_field = self.targets[role]
        assert form_field is not None
        labels = self._labels[form_field.name]
        found = labels.resolve(raw)
        if found is None:
            raise self.fail(line, field_name, f"unknown label {raw!r}: {labels.describe()}")
        return found

    def _ranked(self, raw: Sequence[str], line: int, field_name: str) -> list[str]:
        out: list[str] = []
        for label in raw:
            found = self._label("labels", label, line, field_name)
            if found not in out:
                out.append(found)
        return out

    def _metadata(
        self,
        record: Mapping[str, Any],
        *,
        options: Mapping[str, str],
        candidate: str,
        gold: dict[str, Any],
    ) -> dict[str, Any]:
        clean, notes = json_safe(dict(record))
        metadata: dict[str, Any] = {
            "format": self.format,
            "record": clean,
            "record_keys": list(record),
        }
        if notes:
            metadata["nan_fields"] = notes
        if options:
            metadata["options"] = dict(options)
        if candidate:
            metadata["candidate"] = candidate
        metadata["gold"] = gold
        metadata.update(self.set_metadata)
        return metadata

    def _gold(self, role: str, gold: dict[str, Any], value: Any) -> None:
        form_field = self.targets.get(role)
        if form_field is not None and value is not None:
            gold[form_field.name] = value

    def _flub(self, record: FlubRecord) -> ItemDraft:
        gold: dict[str, Any] = {}
        self._gold("answer", gold, record.answer)
        if record.type is not None and record.type.strip() and self.targets["label"]:
            self._gold("label", gold, self._label("label", record.type, record.line, "type"))
        self._gold("reference", gold, record.explanation if record.explanation.strip() else None)
        return ItemDraft(
            line=record.line,
            external_id=record.id,
            text=record.text,
            metadata=self._metadata(record.record, options=record.options, candidate="", gold=gold),
        )

    def _smartypat(self, record: SmartyPatRecord) -> ItemDraft:
        gold: dict[str, Any] = {}
        if self.targets["labels"] is not None:
            gold[self.targets["labels"].name] = self._ranked(
                record.types, record.line, "fallacy types"
            )
        self._gold("detection", gold, bool(record.types))
        metadata = self._metadata(record.record, options={}, candidate="", gold=gold)
        metadata["text_column"] = record.text_column
        if self.targets["labels"] is not None and record.types_cell.strip():
            metadata["gold_text"] = {self.targets["labels"].name: record.types_cell}
        return ItemDraft(
            line=record.line, external_id=record.id, text=record.text, metadata=metadata
        )

    def _columns(self, record: ItemRecord) -> ItemDraft:
        columns = self.columns
        assert columns is not None
        gold: dict[str, Any] = {}
        self._gold("answer", gold, record.answer)
        if record.label is not None and self.targets["label"] is not None:
            self._gold(
                "label", gold, self._label("label", record.label, record.line, columns.label)
            )
        if record.labels is not None:
            if self.targets["labels"] is not None:
                self._gold("labels", gold, self._ranked(record.labels, record.line, columns.labels))
            self._gold("detection", gold, bool(record.labels))
        self._gold("detection", gold, record.detection)
        if record.segments is not None and self.targets["segments"] is not None:
            gold[self.targets["segments"].name] = [
                [start, end, self._label("segments", label, record.line, columns.segments)]
                for start, end, label in record.segments
            ]
        self._gold("reference", gold, record.reference)
        return ItemDraft(
            line=record.line,
            external_id=record.id,
            text=record.text,
            metadata=self._metadata(
                record.record, options=record.options, candidate=record.candidate, gold=gold
            ),
        )

    def id_field(self) -> str:
        if self.format == "items" and self.columns is not None:
            return self.columns.id or "id"
        return "id"


class IdCheck:
    """Ids repeated in the file, and ids already taken in the project (checked in batches)."""

    def __init__(self, converter: ItemConverter) -> None:
        self.converter = converter
        self.lines: dict[str, int] = {}

    def repeated(self, draft: ItemDraft) -> DatasetFormatError | None:
        if not draft.external_id:
            return None
        if draft.external_id in self.lines:
            return self.converter.fail(
                draft.line,
                self.converter.id_field(),
                f"same id {draft.external_id!r} as line {self.lines[draft.external_id]}",
            )
        self.lines[draft.external_id] = draft.line
        return None

    def taken(self, drafts: Sequence[ItemDraft]) -> list[DatasetFormatError]:
        wanted = {d.external_id: d for d in drafts if d.external_id}
        taken = Document.objects.filter(
            project=self.converter.project, external_id__in=list(wanted)
        ).values_list("external_id", flat=True)
        errors = [
            self.converter.fail(
                wanted[external_id].line,
                self.converter.id_field(),
                f"id {external_id!r} is already an item of project"
                f" '{self.converter.project.name}': re-importing items is refused (it would"
                " duplicate them)",
            )
            for external_id in taken
        ]
        return sorted(errors, key=lambda error: error.line)


@transaction.atomic
def import_items(
    *,
    path: Source,
    project: Project,
    format: str,
    columns: ItemColumns | Mapping[str, Any] | str | None = None,
    name: str | None = None,
    text_column: str | None = None,
    set_metadata: Mapping[str, str] | Sequence[str] | None = None,
) -> ItemImportReport:
    """Import a FLUB, SmartyPat or column-mapped file into the item project (see the
    module docstring); ``name`` is the file name used in errors for an open file;
    ``text_column``: SmartyPat's text column (``formats.smartypat``); ``set_metadata``:
    keys written on every item (``{"split": "bench"}`` or ``["split=bench"]``)."""
    name = source_name(path, name)
    if columns is not None and not isinstance(columns, ItemColumns):
        columns = columns_from(columns)
    Project.objects.select_for_update().filter(pk=project.pk).first()
    converter = ItemConverter(
        project=project,
        format=format,
        name=name,
        columns=columns,
        text_column=text_column,
        set_metadata=parse_set_metadata(set_metadata),
    )
    ids = IdCheck(converter)
    report = ItemImportReport(format=format, file=name)
    position = next_position(project)
    for batch in batched(_drafts(converter, ids, path), BATCH_SIZE):
        taken = ids.taken(batch)
        if taken:
            raise taken[0]
        created, sentence_count = create_documents(
            project=project,
            texts=[
                NewDocument(
                    text=draft.text,
                    external_id=draft.external_id,
                    source=Path(name).name,
                    metadata=draft.metadata,
                )
                for draft in batch
            ],
            first_position=position,
        )
        position += len(created)
        _count_batch(report, batch, created=len(created), sentences=sentence_count)
    return report


def _drafts(converter: ItemConverter, ids: IdCheck, path: Source) -> Iterator[ItemDraft]:
    """The file's items, read and checked one by one; an id repeated in the file raises."""
    for record in converter.records(path):
        draft = converter.draft(record)
        error = ids.repeated(draft)
        if error is not None:
            raise error
        yield draft


def _count_batch(
    report: ItemImportReport, batch: Sequence[ItemDraft], *, created: int, sentences: int
) -> None:
    """A written batch's items, documents, sentences, gold answers and NaN values."""
    report.items += len(batch)
    report.documents_created += created
    report.sentences += sentences
    for draft in batch:
        for field_name in draft.metadata["gold"]:
            report.gold[field_name] = report.gold.get(field_name, 0) + 1
        report.nan_values += len(draft.metadata.get("nan_fields", ()))
