"""Importing UIMA CAS XMI (``annotations.importing.formats.uima``): an INCEpTION project
export's ``annotation/`` folder, one annotator per user file, and its ``curation/`` folder
as the project's next published gold version; or one XMI file with its ``TypeSystem.xml``.

Every file is read and checked before anything is written (labels resolved with the
project's taxonomy, template slots checked against the label's type); the first problem
raises ``UimaFormatError`` naming the file and the annotation's offsets. A document's text
is its CAS's sofa: a text already in the project (identical) is reused with its sentences;
a new one gets the CAS's ``Sentence`` annotations when they tile its text as the platform's
sentences must, else the platform's own split. ``INITIAL_CAS`` files add their texts only.

A file's annotations become spans in two steps:

1. stacked annotations (identical offsets) merge: the values of a single-valued ``label``
   feature (INCEpTION stacks one annotation per value) and annotations whose only label is
   ``NO_FALLACY`` are alternatives of one span, joined to each ``labels``-array annotation
   there (an array holds one span's alternatives; two arrays on one range are two spans,
   as the export writes two required labels);
2. spans are snapped to whole sentences (the report counts those that moved and by how many
   characters); a moved span joins, as alternatives, the first span over the same sentences.

A span left with ``NO_FALLACY`` alone is refused (it would annotate nothing). Re-importing
an annotator's file replaces their annotation of that document.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from annotations.adjudication import snap
from annotations.importing.formats.uima import (
    CURATION_USER,
    FALLACY,
    INITIAL_CAS,
    CasDocument,
    CasFile,
    CasSpan,
    UimaFormatError,
    find_cas_files,
    read_cas_files,
)
from annotations.importing.sentences import Range, SentenceError, check_tiling, split_sentences
from annotations.labels import NO_FALLACY
from annotations.models import (
    Annotation,
    Assignment,
    Document,
    GoldDocument,
    GoldSpan,
    GoldStandard,
    Membership,
    Project,
    Sentence,
    Span,
)
from annotations.services.documents import NewDocument, create_documents, next_position
from annotations.spans import LabelIndex, canonical_details, canonical_labels, label_index


@dataclass
class UimaImportReport:
    source: str
    files: int = 0
    initial_cas: int = 0  # INITIAL_CAS files, read for their texts only
    documents_created: int = 0
    documents_reused: int = 0
    sentences_from_cas: int = 0  # new documents whose CAS sentences were kept
    annotators: list[str] = field(default_factory=list)
    annotations_created: int = 0
    annotations_replaced: int = 0
    spans: int = 0
    spans_moved: int = 0  # snapped to sentence boundaries
    characters_moved: int = 0  # over all moved spans, both ends
    stacked_merged: int = 0  # annotations merged into another over the same offsets
    spans_merged: int = 0  # moved into another span of the same sentences
    gold_version: int | None = None
    gold_documents: int = 0

    def summary(self) -> str:
        lines = [
            f"Imported {self.files} CAS files from {self.source} (xmi):",
            f"  documents: {self.documents_created} created ({self.sentences_from_cas} with"
            f" the CAS's sentences), {self.documents_reused} reused",
            f"  spans: {self.spans}; stacked annotations merged: {self.stacked_merged};"
            f" snapped to sentences: {self.spans_moved} moved ({self.characters_moved}"
            f" characters), {self.spans_merged} merged as alternatives",
        ]
        if self.initial_cas:
            lines.append(f"  INITIAL_CAS files: {self.initial_cas} (texts only, no annotator)")
        if self.annotators:
            lines.append(
                f"  annotations: {self.annotations_created} submitted"
                f" ({self.annotations_replaced} replaced) by {', '.join(self.annotators)}"
            )
        if self.gold_version is not None:
            lines.append(
                f"  published gold standard version {self.gold_version}"
                f" ({self.gold_documents} documents)"
            )
        return "\n".join(lines)


# canonical_labels' refusal of NO_FALLACY alone, postponed until stacked and snapped spans
# are merged (a stacked "no fallacy" is an alternative of the span it lies on).
_ALONE = f'"{NO_FALLACY}" alone'


@dataclass(frozen=True)
class _SpanDraft:
    start: int
    end: int
    labels: list[str]
    details: dict[str, Any]
    origins: tuple[Range, ...] = ()  # the offsets of the annotations it was made of
    feature: str = "labels"

    def joined(self, other: _SpanDraft) -> _SpanDraft:
        """This span with ``other``'s labels as further alternatives (its own details win)."""
        return replace(
            self,
            labels=sorted({*self.labels, *other.labels}),
            details={**other.details, **self.details},
            origins=self.origins + other.origins,
        )


@dataclass
class _Checked:
    file: CasFile
    cas: CasDocument
    spans: list[_SpanDraft]

    @property
    def name(self) -> str:
        return self.file.document or self.cas.title


def _checked_span(index: LabelIndex, span: CasSpan, name: str) -> _SpanDraft:
    labels, errors = canonical_labels(index, span.labels)
    errors = [error for error in errors if not error.startswith(_ALONE)]
    if errors:
        raise UimaFormatError(name, f"{span.place}: {span.feature}", "; ".join(errors))
    raw_details = {
        label: {"slots": span.slots.get(label) or {}, "explanation": span.explanations.get(label)}
        for label in {*span.slots, *span.explanations}
    }
    for detail in raw_details.values():
        if detail["explanation"] is None:
            del detail["explanation"]
    details, errors = canonical_details(index, labels, raw_details)
    if errors:
        raise UimaFormatError(name, f"{span.place}: slots", "; ".join(errors))
    return _SpanDraft(
        span.start, span.end, labels, details, ((span.start, span.end),), span.feature
    )


def _stacked(
    index: LabelIndex, spans: list[CasSpan], name: str, report: UimaImportReport
) -> list[_SpanDraft]:
    """The file's annotations checked, those stacked over the same offsets merged: single
    values and ``NO_FALLACY``-only annotations become one span, joined to each span of a
    ``labels`` array there (see the module docstring)."""
    arrays: dict[Range, list[_SpanDraft]] = {}  # in file order
    stacks: dict[Range, _SpanDraft] = {}
    for span in spans:
        draft = _checked_span(index, span, name)
        key = (span.start, span.end)
        arrays.setdefault(key, [])
        if span.single or draft.labels == [NO_FALLACY]:
            same = stacks.get(key)
            stacks[key] = draft if same is None else same.joined(draft)
        else:
            arrays[key].append(draft)
    out: list[_SpanDraft] = []
    for key, own in arrays.items():
        stack = stacks.get(key)
        merged = [d.joined(stack) for d in own] if stack and own else own or [stack]
        out.extend(d for d in merged if d is not None)
    report.stacked_merged += len(spans) - len(out)
    return out


def _read_all(
    files: list[CasFile], root: Path, index: LabelIndex, report: UimaImportReport
) -> list[_Checked]:
    """Every file read and checked; a user's two files of one text, or two texts under one
    document name, are refused."""
    checked: list[_Checked] = []
    texts: dict[str, tuple[str, str]] = {}  # document name -> (text, file)
    owners: dict[tuple[str, str], str] = {}  # (user, text) -> file
    for cas_file, cas in zip(files, read_cas_files(files, root), strict=True):
        item = _Checked(cas_file, cas, _stacked(index, cas.spans, cas_file.name, report))
        if item.name:
            text, first = texts.setdefault(item.name, (cas.text, cas_file.name))
            if text != cas.text:
                raise UimaFormatError(
                    cas_file.name, "sofa", f"the text differs from that of {first} (same document)"
                )
        other = owners.setdefault((cas_file.user, cas.text), cas_file.name)
        if other != cas_file.name:
            raise UimaFormatError(
                cas_file.name, "sofa", f"same text as {other}, of the same user {cas_file.user!r}"
            )
        checked.append(item)
    return checked


def _cas_sentences(cas: CasDocument) -> list[Range] | None:
    ranges = sorted(cas.sentences)
    try:
        check_tiling(cas.text, ranges)
    except SentenceError:
        return None
    return ranges or None


def _documents(
    project: Project, items: list[_Checked], report: UimaImportReport
) -> tuple[dict[str, int], dict[int, list[Range]]]:
    """{text: document id} for every CAS text (identical texts reused, others created) and
    each of those documents' sentence bounds."""
    texts = list(dict.fromkeys(item.cas.text for item in items))
    ids = dict(
        Document.objects.filter(project=project, text__in=texts)
        .order_by("-pk")
        .values_list("text", "pk")
    )
    bounds: dict[int, list[Range]] = {}
    for document_id, start, end in Sentence.objects.filter(
        document_id__in=ids.values()
    ).values_list("document_id", "start", "end"):
        bounds.setdefault(document_id, []).append((start, end))
    taken = set(
        Document.objects.filter(project=project)
        .exclude(external_id="")
        .values_list("external_id", flat=True)
    )
    new: list[NewDocument] = []
    seen = set(ids)
    for item in items:
        if item.cas.text in seen:
            continue
        seen.add(item.cas.text)
        sentences = _cas_sentences(item.cas)
        report.sentences_from_cas += sentences is not None
        name = item.name[:255]
        external_id = name if name and name not in taken else ""
        taken.add(external_id)
        new.append(
            NewDocument(
                text=item.cas.text,
                external_id=external_id,
                source=Path(report.source).name,
                sentences=sentences or split_sentences(item.cas.text),
            )
        )
    created, _ = create_documents(project=project, texts=new, first_position=next_position(project))
    for document, draft in zip(created, new, strict=True):
        ids[document.text] = document.pk
        bounds[document.pk] = list(draft.sentences or [])
    report.documents_created += len(created)
    report.documents_reused += len(texts) - len(created)
    return ids, {pk: sorted(ranges) for pk, ranges in bounds.items()}


def _snapped(item: _Checked, bounds: list[Range], report: UimaImportReport) -> list[_SpanDraft]:
    """The file's spans snapped to whole sentences; a span that moved joins the first span
    of the same sentences; a span of ``NO_FALLACY`` alone refused."""
    kept: list[_SpanDraft] = []
    moved: list[_SpanDraft] = []
    for span in item.spans:
        if not any(s < span.end and span.start < e for s, e in bounds):
            raise UimaFormatError(
                item.file.name, f"{FALLACY} at {span.start}–{span.end}", "covers no sentence"
            )
        start, end = snap(bounds, span.start, span.end)
        if (start, end) == (span.start, span.end):
            kept.append(span)
            continue
        report.spans_moved += 1
        report.characters_moved += (span.start - start) + (end - span.end)
        moved.append(replace(span, start=start, end=end))
    first: dict[Range, int] = {}
    for position, span in enumerate(kept):
        first.setdefault((span.start, span.end), position)
    for span in moved:
        position = first.setdefault((span.start, span.end), len(kept))
        if position == len(kept):
            kept.append(span)
        else:
            report.spans_merged += 1
            kept[position] = kept[position].joined(span)
    for span in kept:
        if span.labels == [NO_FALLACY]:
            start, end = span.origins[0]
            raise UimaFormatError(
                item.file.name,
                f"{FALLACY} at {start}–{end}: {span.feature}",
                f'"{NO_FALLACY}" alone is not a span: no fallacy is stacked over the same'
                " offsets nor annotated over the same sentences (a span needs one)",
            )
    report.spans += len(kept)
    return sorted(kept, key=lambda s: (s.start, s.end))


def _write_annotations(
    project: Project,
    items: list[_Checked],
    spans: list[list[_SpanDraft]],
    ids: dict[str, int],
    report: UimaImportReport,
) -> None:
    """One submitted annotation per user file, replacing the user's on that document."""
    users = {}
    for username in sorted({item.file.user for item in items}):
        users[username], _ = get_user_model().objects.get_or_create(username=username)
        Membership.objects.get_or_create(
            project=project, user=users[username], defaults={"role": Membership.Role.ANNOTATOR}
        )
    report.annotators = sorted(users)
    now = timezone.now()
    for item, drafts in zip(items, spans, strict=True):
        user, document_id = users[item.file.user], ids[item.cas.text]
        _, deleted = Annotation.objects.filter(annotator=user, document_id=document_id).delete()
        report.annotations_replaced += deleted.get(Annotation._meta.label, 0)
        annotation = Annotation.objects.create(
            document_id=document_id,
            annotator=user,
            status=Annotation.Status.SUBMITTED,
            submitted_at=now,
            comments=item.cas.comments,
        )
        Span.objects.bulk_create(
            Span(
                annotation=annotation, start=s.start, end=s.end, labels=s.labels, details=s.details
            )
            for s in drafts
        )
        Assignment.objects.get_or_create(document_id=document_id, annotator=user)
        report.annotations_created += 1


def _write_gold(
    project: Project,
    items: list[_Checked],
    spans: list[list[_SpanDraft]],
    ids: dict[str, int],
    report: UimaImportReport,
) -> None:
    """The curated CASes as the project's next published gold version."""
    last = project.gold_standards.order_by("-version").values_list("version", flat=True).first()
    gold = GoldStandard.objects.create(
        project=project,
        version=(last or 0) + 1,
        source=Path(report.source).name,
        note=f"imported from {report.source}",
    )
    GoldDocument.objects.bulk_create(
        GoldDocument(gold_standard=gold, document_id=ids[item.cas.text], comments=item.cas.comments)
        for item in items
    )
    GoldSpan.objects.bulk_create(
        GoldSpan(
            gold_standard=gold,
            document_id=ids[item.cas.text],
            start=s.start,
            end=s.end,
            labels=s.labels,
            details=s.details,
        )
        for item, drafts in zip(items, spans, strict=True)
        for s in drafts
    )
    gold.status, gold.published_at = GoldStandard.Status.PUBLISHED, timezone.now()
    gold.save(update_fields=["status", "published_at"])
    report.gold_version, report.gold_documents = gold.version, len(items)


@transaction.atomic
def import_uima(*, path: Path, project: Project, user: str | None = None) -> UimaImportReport:
    """Import an export folder, an ``annotation/`` or ``curation/`` folder, or one XMI file
    (``user``: its annotator, default the file's stem) into ``project``."""
    root, files = find_cas_files(path, user=user)
    report = UimaImportReport(source=path.name or str(path), files=len(files))
    items = _read_all(files, root, label_index(project.taxonomy), report)
    Project.objects.select_for_update().filter(pk=project.pk).first()
    ids, bounds = _documents(project, items, report)
    curated = [item for item in items if item.file.user == CURATION_USER]
    annotated = [item for item in items if item.file.user not in (CURATION_USER, INITIAL_CAS)]
    report.initial_cas = sum(item.file.user == INITIAL_CAS for item in items)
    for group, write in ((annotated, _write_annotations), (curated, _write_gold)):
        if group:
            spans = [_snapped(i, bounds[ids[i.cas.text]], report) for i in group]
            write(project, group, spans, ids, report)
    return report
