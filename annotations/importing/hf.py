"""Importing a Hugging Face dataset folder written by ``services.hf_exports``.

A span export becomes the project's next published gold version (texts not yet in the
project become documents with the exported sentence units; identical texts are reused),
each span with its alternatives and details. An item export adds its items (options,
candidate, answer key, the split in ``metadata["split"]``) to an item project; an id
already in the project is refused. Every row is checked before anything is written, and
the first problem raises ``HFFormatError`` naming the file, the row and the field; the
import is one transaction, so nothing is left behind.

A row's ``source``, ``position`` and ``metadata`` columns (``formats.hf``), when present,
give a new document back as it was exported: its metadata (an item's with its options,
candidate and answer key from their columns; the split as the exported metadata had it,
none where the row sits in the default split and had none), its source (else the
folder's name) and its place (new documents are created in ``position`` order). A folder
without them gets ``metadata`` ``{"split": ...}`` (items also ``"format": "hf"``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from django.db import transaction
from django.utils import timezone

from annotations.importing.formats.hf import (
    CARD,
    DEFAULT_SPLIT,
    PLATFORM_KEY,
    HFFolder,
    HFFormatError,
    HFSplit,
)
from annotations.importing.formats.storable import json_problem, text_problem
from annotations.importing.sentences import SentenceError, check_tiling
from annotations.importing.untrusted import answer_fields, hf_folder_from_path
from annotations.labels import LabelResolver
from annotations.models import Document, GoldDocument, GoldSpan, GoldStandard, Project, Taxonomy
from annotations.selectors.taxonomy import label_resolver
from annotations.services.documents import NewDocument, create_documents, next_position
from annotations.services.projects import create_project
from annotations.services.taxonomy import install_preset, load_taxonomy_file
from annotations.taxonomy_files import available_presets, read_taxonomy_file


@dataclass
class HFImportReport:
    folder: str
    kind: str
    rows: dict[str, int] = field(default_factory=dict)  # per split
    documents_created: int = 0
    documents_reused: int = 0
    sentences: int = 0
    spans: int = 0
    gold_version: int | None = None

    def as_dict(self) -> dict[str, Any]:
        """The import job's report: the figures the Import tab shows (an item export has
        no spans and no gold version)."""
        report = {**asdict(self), "format": "hf", "texts": sum(self.rows.values())}
        if self.kind == "items":
            for key in ("sentences", "spans", "gold_version"):
                del report[key]
        return report

    def summary(self) -> str:
        splits = ", ".join(f"{split} {n}" for split, n in self.rows.items())
        lines = [
            f"Imported {sum(self.rows.values())} rows from {self.folder} ({splits}):",
            f"  documents: {self.documents_created} created, {self.documents_reused} reused",
        ]
        if self.gold_version is not None:
            lines.append(
                f"  spans: {self.spans}; published gold standard version {self.gold_version}"
            )
        return "\n".join(lines)


def read_folder(path: Path) -> HFFolder:
    """The dataset folder at ``path``, read in a bounded child process."""
    return hf_folder_from_path(path=path)


class _Rows:
    """Checks of one row: ``fail(field, message)`` names the file and the row."""

    def __init__(self, path: str, number: int) -> None:
        self.path, self.number = path, number

    def fail(self, place: str, message: str) -> HFFormatError:
        return HFFormatError(self.path, self.number, place, message)

    def text(self, row: dict[str, Any], seen: dict[str, str]) -> str:
        text = row["text"]
        if not isinstance(text, str) or not text.strip():
            raise self.fail("text", "missing or blank")
        problem = text_problem(text)
        if problem:
            raise self.fail("text", problem)
        if text in seen:
            raise self.fail("text", f"same text as {seen[text]}")
        seen[text] = f"{self.path} row {self.number}"
        return text

    def metadata(self, row: dict[str, Any]) -> dict[str, Any] | None:
        """The ``metadata`` column's JSON object (None: no such column or null)."""
        raw = row.get("metadata")
        if raw is None:
            return None
        try:
            value = json.loads(raw, parse_constant=_no_constant)
        except (ValueError, RecursionError) as error:
            raise self.fail("metadata", f"not JSON: {error}") from None
        if not isinstance(value, dict):
            raise self.fail("metadata", "not a JSON object")
        problem = json_problem(value)
        if problem:
            place, message = problem
            raise self.fail(f"metadata.{place}" if place else "metadata", message)
        return value

    def source(self, row: dict[str, Any], default: str) -> str:
        """The ``source`` column's value (``default``: no such column or null)."""
        source = row.get("source")
        source = default if source is None else source
        problem = text_problem(source)
        if problem:
            raise self.fail("source", problem)
        if len(source) > SOURCE_LENGTH:
            raise self.fail("source", f"longer than {SOURCE_LENGTH} characters")
        return source


SOURCE_LENGTH = 255


def _no_constant(word: str) -> Any:
    raise ValueError(f"{word} is not JSON (the database cannot store it)")


def with_split(metadata: dict[str, Any] | None, split: str) -> dict[str, Any]:
    """``metadata`` (exported) with the row's split: as it was, or ``split`` where it moved;
    none where it had none and the row is in the default split."""
    if metadata is None:
        return {"split": split}
    out = dict(metadata)
    if "split" in out and str(out["split"]) == split:
        return out
    if split != DEFAULT_SPLIT or "split" in out:
        out["split"] = split
    return out


def in_position_order(rows: Sequence[Any], positions: Sequence[int | None]) -> list[Any]:
    """``rows`` sorted by their exported positions when every row has one (else as given)."""
    if any(position is None for position in positions):
        return list(rows)
    order = sorted(range(len(rows)), key=lambda index: (positions[index], index))
    return [rows[index] for index in order]


def _span_draft(
    check: _Rows, index: int, span: dict[str, Any], text: str, resolver: LabelResolver
) -> dict[str, Any]:
    place = f"spans[{index}]"
    start, end = span["start"], span["end"]
    if start is None or end is None or not 0 <= start < end:
        raise check.fail(place, f"[{start}, {end}) is not a range (0 <= start < end)")
    if end > len(text):
        raise check.fail(f"{place}.end", f"{end} is beyond the text (length {len(text)})")
    labels = []
    for number, raw in enumerate(span["labels"] or []):
        label = resolver.resolve(raw or "")
        if label is None:
            raise check.fail(f"{place}.labels[{number}]", f"unknown label {raw!r}")
        labels.append(label)
    if not labels:
        raise check.fail(f"{place}.labels", "a span needs at least one label")
    details = {}
    for number, detail in enumerate(span["details"] or []):
        label = resolver.resolve(detail["label"] or "")
        if label not in labels:
            raise check.fail(f"{place}.details[{number}].label", "not one of the span's labels")
        entry: dict[str, Any] = {"slots": {s["name"]: s["value"] for s in detail["slots"] or []}}
        if detail["explanation"]:
            entry["explanation"] = detail["explanation"]
        details[label] = entry
    return {"start": start, "end": end, "labels": sorted(set(labels)), "details": details}


@dataclass
class _SpanRow:
    split: str
    row: dict[str, Any]
    sentences: list[tuple[int, int]]
    spans: list[dict[str, Any]]
    metadata: dict[str, Any]
    source: str | None  # None: the folder's name


def _span_row(
    split: HFSplit, number: int, row: dict[str, Any], seen: dict[str, str], resolver: LabelResolver
) -> _SpanRow:
    check = _Rows(split.path, number)
    text = check.text(row, seen)
    sentences = [(s["start"], s["end"]) for s in row["sentences"] or []]
    try:
        check_tiling(text, sentences)
    except SentenceError as error:
        raise check.fail("sentences", str(error)) from None
    spans = [
        _span_draft(check, index, span, text, resolver)
        for index, span in enumerate(row["spans"] or [])
    ]
    metadata = with_split(check.metadata(row), split.name)
    source = None if row.get("source") is None else check.source(row, "")
    return _SpanRow(split.name, row, sentences, spans, metadata, source)


def _checked_span_rows(folder: HFFolder, resolver: LabelResolver) -> list[_SpanRow]:
    seen: dict[str, str] = {}
    return [_span_row(split, n, row, seen, resolver) for split, n, row in folder.rows()]


@transaction.atomic
def import_hf_gold(
    *, folder: HFFolder, path: Path, project: Project, name: str | None = None
) -> HFImportReport:
    """A span export as the project's next published gold version (``name``: the source
    recorded, by default the folder's name)."""
    report = HFImportReport(folder=name or path.name, kind="spans")
    Project.objects.select_for_update().filter(pk=project.pk).first()
    rows = _checked_span_rows(folder, label_resolver(project.taxonomy))
    existing = dict(
        Document.objects.filter(project=project, text__in=[r.row["text"] for r in rows])
        .order_by("-pk")
        .values_list("text", "pk")
    )
    new = [r for r in rows if r.row["text"] not in existing]
    new = in_position_order(new, [r.row.get("position") for r in new])
    created, _ = create_documents(
        project=project,
        texts=[
            NewDocument(
                text=r.row["text"],
                external_id=r.row["id"] or "",
                source=report.folder if r.source is None else r.source,
                metadata=r.metadata,
                sentences=r.sentences,
            )
            for r in new
        ],
        first_position=next_position(project),
    )
    ids = {**existing, **{document.text: document.pk for document in created}}
    version = (
        project.gold_standards.order_by("-version").values_list("version", flat=True).first() or 0
    ) + 1
    gold = GoldStandard.objects.create(
        project=project,
        version=version,
        source=report.folder,
        note=f"imported from {report.folder}",
    )
    GoldDocument.objects.bulk_create(
        GoldDocument(
            gold_standard=gold, document_id=ids[r.row["text"]], comments=r.row["comments"] or []
        )
        for r in rows
    )
    GoldSpan.objects.bulk_create(
        GoldSpan(gold_standard=gold, document_id=ids[r.row["text"]], **span)
        for r in rows
        for span in r.spans
    )
    gold.status, gold.published_at = GoldStandard.Status.PUBLISHED, timezone.now()
    gold.save(update_fields=["status", "published_at"])
    for split in folder.splits:
        report.rows[split.name] = len(split.rows)
    report.documents_created, report.documents_reused = len(created), len(rows) - len(new)
    report.sentences = sum(len(r.sentences) for r in new)
    report.spans, report.gold_version = sum(len(r.spans) for r in rows), gold.version
    return report


def _gold(check: _Rows, row: dict[str, Any], fields: list[tuple[str, str]]) -> dict[str, Any]:
    options = {option["key"]: option["text"] for option in row["options"] or []}
    gold = {}
    for name, kind in fields:
        value = (row.get("gold") or {}).get(name)
        if value is None:
            continue
        if kind == "multiple-choice" and value not in options:
            raise check.fail(f"gold.{name}", f"{value!r} is not an option key")
        if kind == "segmentation":
            for index, segment in enumerate(value):
                if not 0 <= segment["start"] < segment["end"] <= len(row["text"]):
                    raise check.fail(f"gold.{name}[{index}]", "segment outside the text")
            value = [[s["start"], s["end"], s["label"]] for s in value]
        gold[name] = value
    return gold


def _item_fields(folder: HFFolder, project: Project) -> list[tuple[str, str]]:
    """The project's answer fields the folder's form also has (same kind, else an error)."""
    fields = answer_fields(project.form)
    wanted = dict(answer_fields(folder.platform.get("form")))
    for name, kind in fields:
        if name in wanted and wanted[name] != kind:
            raise HFFormatError(
                CARD,
                0,
                f"{PLATFORM_KEY}.form",
                f"field {name!r} is {wanted[name]}, the project's is {kind}",
            )
    return [f for f in fields if f[0] in wanted]


@dataclass
class _ItemRows:
    """Per-row checks of an item export: texts and ids repeated, ids already taken."""

    fields: list[tuple[str, str]]
    taken: set[str]
    source: str
    own: set[str]  # the project's answer fields
    seen: dict[str, str] = field(default_factory=dict)

    def draft(self, split: HFSplit, number: int, row: dict[str, Any]) -> NewDocument:
        check = _Rows(split.path, number)
        text = check.text(row, self.seen)
        if row["id"] and row["id"] in self.taken:
            raise check.fail("id", f"id {row['id']!r} is already an item of the project")
        self.taken.add(row["id"] or "")
        metadata = self.metadata(check, split, row)
        return NewDocument(
            text=text,
            external_id=row["id"] or "",
            source=check.source(row, self.source),
            metadata=metadata,
        )

    def metadata(self, check: _Rows, split: HFSplit, row: dict[str, Any]) -> dict[str, Any]:
        """The item's metadata: the exported one (else ``format`` ``hf`` and the split) with
        the options, candidate and answer key of the row's columns; the exported ``gold``
        keeps only the entries of fields that are not the project's answer fields."""
        exported = check.metadata(row)
        options = {o["key"]: o["text"] for o in row["options"] or []}
        gold = _gold(check, row, self.fields)
        if exported is None:
            metadata: dict[str, Any] = {"format": "hf", "options": options, "gold": gold}
            metadata["split"] = split.name
        else:
            metadata = with_split(exported, split.name)
            if options:
                metadata["options"] = options
            kept = metadata.pop("gold", None)
            if isinstance(kept, dict) or gold:
                kept = kept if isinstance(kept, dict) else {}
                metadata["gold"] = {k: v for k, v in kept.items() if k not in self.own} | gold
        if row["candidate"]:
            metadata["candidate"] = row["candidate"]
        return metadata


def _item_rows(folder: HFFolder, project: Project, source: str) -> _ItemRows:
    taken = set(Document.objects.filter(project=project).values_list("external_id", flat=True))
    own = {name for name, _ in answer_fields(project.form)}
    return _ItemRows(_item_fields(folder, project), taken, source, own)


@transaction.atomic
def import_hf_items(
    *, folder: HFFolder, path: Path, project: Project, name: str | None = None
) -> HFImportReport:
    """An item export's items added to an item project."""
    report = HFImportReport(folder=name or path.name, kind="items")
    Project.objects.select_for_update().filter(pk=project.pk).first()
    rows = _item_rows(folder, project, report.folder)
    drafts, positions = [], []
    for split, number, row in folder.rows():
        drafts.append(rows.draft(split, number, row))
        positions.append(row.get("position"))
        report.rows[split.name] = report.rows.get(split.name, 0) + 1
    created, _ = create_documents(
        project=project,
        texts=in_position_order(drafts, positions),
        first_position=next_position(project),
    )
    report.documents_created = len(created)
    return report


def check_kind(folder: HFFolder, project: Project) -> None:
    """The folder's kind (spans or items) must be the project's."""
    kind = folder.platform["kind"]
    if project.kind != kind:
        raise HFFormatError(
            CARD,
            0,
            f"{PLATFORM_KEY}.kind",
            f"the folder holds {kind}; project {project.name!r} is of kind {project.kind}",
        )


def row_problems(*, folder: HFFolder, project: Project) -> Iterator[HFFormatError | None]:
    """One entry per row of every split, in order: ``None`` for a good row, else its first
    problem (the browser's import lists them all before importing anything). A problem of
    the whole folder (its kind, its form) is raised."""
    check_kind(folder, project)
    spans = folder.platform["kind"] == "spans"
    seen: dict[str, str] = {}
    resolver = label_resolver(project.taxonomy)
    items = None if spans else _item_rows(folder, project, "")
    for split, number, row in folder.rows():
        try:
            if items is not None:
                items.draft(split, number, row)
            else:
                _span_row(split, number, row, seen, resolver)
        except HFFormatError as error:
            yield error
        else:
            yield None


def _taxonomy(platform: dict[str, Any], given: str | None) -> Taxonomy:
    """``given`` (a preset name or a taxonomy file), else the card's taxonomy when installed
    or a preset of that name."""
    if given:
        if given in available_presets():
            return install_preset(name=given)
        spec = read_taxonomy_file(given)
        existing = Taxonomy.objects.filter(name=spec.name, version=spec.version).first()
        return existing or load_taxonomy_file(path=Path(given))
    named = platform.get("taxonomy") if isinstance(platform.get("taxonomy"), dict) else {}
    name, version = str(named.get("name") or ""), str(named.get("version") or "")
    found = Taxonomy.objects.filter(name=name, version=version).first()
    if found is None and name in available_presets():
        found = install_preset(name=name)
    if found is None:
        raise HFFormatError(
            CARD,
            0,
            f"{PLATFORM_KEY}.taxonomy",
            f"taxonomy {name!r} {version!r} is not installed; pass --taxonomy",
        )
    return found


def import_hf_folder(
    *, path: Path, project_name: str | None = None, taxonomy: str | None = None
) -> HFImportReport:
    """Read and check the folder, then import it into ``project_name`` (default: the card's
    project), created when missing (kind and form from the card)."""
    folder = read_folder(path)
    platform = folder.platform
    name = project_name or str(platform.get("project") or "")
    if not name:
        raise HFFormatError(CARD, 0, f"{PLATFORM_KEY}.project", "missing; pass --project")
    kind = platform["kind"]
    project = Project.objects.filter(name=name).first()
    if project is None:
        extra = {"kind": "items", "form": platform.get("form")} if kind == "items" else {}
        project = create_project(name=name, taxonomy=_taxonomy(platform, taxonomy), **extra)
    check_kind(folder, project)
    if kind == "spans":
        return import_hf_gold(folder=folder, path=path, project=project)
    return import_hf_items(folder=folder, path=path, project=project)
