"""Exporting a span project as UIMA CAS XMI in an INCEpTION project export's layout
(``annotations.importing.formats.uima``). Reads only.

The annotators' annotations (any status) go to ``annotation/<document>/<user>.xmi``, a
published gold version to ``curation/<document>/CURATION_USER.xmi``; ``TypeSystem.xml`` is
written at the folder's root. Each CAS holds the document's text, its sentence units, its
spans (``webanno.custom.Fallacy``: alternatives, slots, explanations) and comments. A
document's name is its external id when that is a usable file name, else ``document-<id>``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cassis import TypeSystem

from annotations.importing.formats.uima import (
    ANNOTATION_DIR,
    CURATION_DIR,
    CURATION_USER,
    TYPE_SYSTEM,
    CasDocument,
    CasSpan,
    cas_xmi,
    type_system,
)
from annotations.models import Annotation, Document, GoldDocument, GoldSpan, Project, Sentence, Span
from annotations.services.exports import ExportError, published_gold

CHUNK_SIZE = 200
SAFE_NAME = re.compile(r"[\w][\w .,()+@=-]{0,199}")


@dataclass(frozen=True)
class UimaExportCounts:
    documents: int
    files: int
    gold_version: int | None = None


def document_names(documents: Iterable[tuple[int, str]]) -> dict[int, str]:
    """{document id: file name} for ``(id, external id)`` pairs, every name distinct."""
    names: dict[int, str] = {}
    used: set[str] = set()
    for pk, external_id in documents:
        name = external_id if SAFE_NAME.fullmatch(external_id or "") else f"document-{pk}"
        if name in used:
            name = f"document-{pk}"
        used.add(name)
        names[pk] = name
    return names


def _cas_spans(spans: Iterable[Any]) -> list[CasSpan]:
    out = []
    for span in spans:
        details = span.details if isinstance(span.details, dict) else {}
        slots = {label: dict((d or {}).get("slots") or {}) for label, d in details.items()}
        explanations = {
            label: str(d["explanation"])
            for label, d in details.items()
            if isinstance(d, dict) and d.get("explanation")
        }
        out.append(CasSpan(span.start, span.end, list(span.labels), slots, explanations))
    return out


def _chunks(ids: list[int]) -> Iterator[list[int]]:
    for offset in range(0, len(ids), CHUNK_SIZE):
        yield ids[offset : offset + CHUNK_SIZE]


def _sentences(ids: list[int]) -> dict[int, list[tuple[int, int]]]:
    bounds: dict[int, list[tuple[int, int]]] = {}
    rows = Sentence.objects.filter(document_id__in=ids).order_by("document_id", "index")
    for document_id, start, end in rows.values_list("document_id", "start", "end"):
        bounds.setdefault(document_id, []).append((start, end))
    return bounds


def _write(path: Path, document: CasDocument, ts: TypeSystem) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(cas_xmi(document, ts), encoding="utf-8")


def _export_annotations(project: Project, out: Path, ts: TypeSystem, names: dict) -> int:
    files = 0
    ids = list(
        Annotation.objects.filter(document__project=project)
        .order_by("document__position", "document_id", "annotator__username")
        .values_list("pk", flat=True)
    )
    for chunk in _chunks(ids):
        annotations = list(
            Annotation.objects.filter(pk__in=chunk)
            .select_related("document", "annotator")
            .order_by("document__position", "document_id", "annotator__username")
        )
        spans: dict[int, list[Span]] = {}
        for span in Span.objects.filter(annotation_id__in=chunk).order_by("start", "end", "id"):
            spans.setdefault(span.annotation_id, []).append(span)
        sentences = _sentences([a.document_id for a in annotations])
        for annotation in annotations:
            name = names[annotation.document_id]
            document = CasDocument(
                text=annotation.document.text,
                sentences=sentences.get(annotation.document_id, []),
                spans=_cas_spans(spans.get(annotation.pk, [])),
                comments=list(annotation.comments or []),
                title=name,
            )
            user = annotation.annotator.get_username()
            _write(out / ANNOTATION_DIR / name / f"{user}.xmi", document, ts)
            files += 1
    return files


def _export_gold(project: Project, out: Path, ts: TypeSystem, names: dict, version: int) -> int:
    gold = published_gold(project, version)
    entries = list(
        GoldDocument.objects.filter(gold_standard=gold)
        .select_related("document")
        .order_by("document__position", "document_id")
    )
    for chunk in _chunks([entry.document_id for entry in entries]):
        spans: dict[int, list[GoldSpan]] = {}
        rows = GoldSpan.objects.filter(gold_standard=gold, document_id__in=chunk)
        for span in rows.order_by("start", "end", "id"):
            spans.setdefault(span.document_id, []).append(span)
        sentences = _sentences(chunk)
        for entry in (e for e in entries if e.document_id in set(chunk)):
            name = names[entry.document_id]
            document = CasDocument(
                text=entry.document.text,
                sentences=sentences.get(entry.document_id, []),
                spans=_cas_spans(spans.get(entry.document_id, [])),
                comments=list(entry.comments or []),
                title=name,
            )
            _write(out / CURATION_DIR / name / f"{CURATION_USER}.xmi", document, ts)
    return len(entries)


def export_uima(
    *, project: Project, out: Path, gold_version: int | None = None
) -> UimaExportCounts:
    """Write the annotators' CASes, or with ``gold_version`` that published gold version's,
    and the type system into ``out`` (a new or empty folder)."""
    if project.kind == "items":
        raise ExportError(f"project {project.name!r} is an item project: it has no spans")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ExportError(f"{out}: expected a new or empty folder")
    names = document_names(
        Document.objects.filter(project=project)
        .order_by("position", "pk")
        .values_list("pk", "external_id")
    )
    ts = type_system()
    if gold_version is not None:
        published_gold(project, gold_version)  # refused before anything is written
    out.mkdir(parents=True, exist_ok=True)
    (out / TYPE_SYSTEM).write_text(ts.to_xml(), encoding="utf-8")
    if gold_version is not None:
        files = _export_gold(project, out, ts, names, gold_version)
        return UimaExportCounts(documents=files, files=files, gold_version=gold_version)
    files = _export_annotations(project, out, ts, names)
    documents = len({p.parent.name for p in (out / ANNOTATION_DIR).glob("*/*.xmi")})
    return UimaExportCounts(documents=documents, files=files)
