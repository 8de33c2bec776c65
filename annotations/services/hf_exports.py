"""Exporting a gold version (span project) or an item project's answer key as a Hugging Face
dataset folder (``annotations.importing.formats.hf``). Reads only.

Rows go to the split named by the document's ``metadata["split"]``, else ``test``. The
card's body describes the taxonomy (definitions, templates and slots as stored), the gold
version (span projects) with its agreement figures when the agreement page has computed
them, the scoring profile the platform scores it under, the licence (``services.hf_card``:
the one given, else the one the project declares) and what the folder does not carry.

Every row also carries its document's ``source``, ``position`` and ``metadata`` (a JSON
object string; an item's without the ``options``, ``candidate`` and answer key its own
columns hold), so that importing the folder gives the documents back as they were.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.apps import apps

from annotations.importing.formats.hf import (
    DEFAULT_SPLIT,
    SPAN_SCHEMA,
    card_metadata,
    item_schema,
    write_hf_folder,
)
from annotations.items import ANSWER_KINDS, parse_form
from annotations.languages import text_languages
from annotations.models import Document, GoldDocument, GoldSpan, GoldStandard, Project, Sentence
from annotations.selectors.taxonomy import taxonomy_spec
from annotations.services.exports import ExportError, published_gold
from annotations.services.hf_card import License, not_carried, resolve_license

CHUNK_SIZE = 500
SPLIT_NAME = re.compile(r"\w+(\.\w+)*")
SPAN_PROFILE = (
    "paper",
    "the disjunctive precision, recall and F1 of the MAFALDA paper (levels 0 to 2); a gold "
    "span's labels are alternatives, any one of them predicted is right",
)


def _split(metadata: Mapping[str, Any] | None) -> str:
    value = (metadata or {}).get("split")
    return str(value) if isinstance(value, str | int) and str(value).strip() else DEFAULT_SPLIT


def _document_columns(document: Document, metadata: Mapping[str, Any]) -> dict[str, Any]:
    """The document's stored fields the other columns do not hold."""
    return {
        "source": document.source,
        "position": document.position,
        # keys sorted: the same bytes whichever database stored them (PostgreSQL's jsonb
        # reorders keys); an imported record's own order is kept in its record_keys
        "metadata": json.dumps(dict(metadata), ensure_ascii=False, sort_keys=True),
    }


def _details(details: Any) -> list[dict[str, Any]]:
    if not isinstance(details, Mapping):
        return []
    out = []
    for label, detail in sorted(details.items()):
        detail = detail if isinstance(detail, Mapping) else {}
        slots = detail.get("slots") if isinstance(detail.get("slots"), Mapping) else {}
        out.append(
            {
                "label": label,
                "slots": [{"name": k, "value": str(v)} for k, v in slots.items()],
                "explanation": str(detail.get("explanation") or ""),
            }
        )
    return out


def span_rows(gold: GoldStandard) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(split, row)`` for every document of the gold version, in document order."""
    entries = (
        GoldDocument.objects.filter(gold_standard=gold)
        .select_related("document")
        .order_by("document__position", "document_id")
    )
    offset = 0
    while chunk := list(entries[offset : offset + CHUNK_SIZE]):
        offset += CHUNK_SIZE
        ids = [entry.document_id for entry in chunk]
        spans: dict[int, list[GoldSpan]] = {}
        for span in GoldSpan.objects.filter(gold_standard=gold, document_id__in=ids):
            spans.setdefault(span.document_id, []).append(span)
        sentences: dict[int, list[dict[str, int]]] = {}
        for sentence in Sentence.objects.filter(document_id__in=ids).order_by("index"):
            sentences.setdefault(sentence.document_id, []).append(
                {"start": sentence.start, "end": sentence.end}
            )
        for entry in chunk:
            document = entry.document
            yield (
                _split(document.metadata),
                {
                    "id": document.external_id or str(document.pk),
                    "text": document.text,
                    "sentences": sentences.get(document.pk, []),
                    "spans": [
                        {
                            "start": span.start,
                            "end": span.end,
                            "labels": list(span.labels),
                            "details": _details(span.details),
                        }
                        for span in spans.get(document.pk, [])
                    ],
                    "comments": [str(comment) for comment in entry.comments or []],
                    **_document_columns(document, document.metadata or {}),
                },
            )


def answer_fields(project: Project) -> list[tuple[str, str]]:
    """The form's answer fields ``(name, kind)`` (rating fields have no answer key)."""
    return [(f.name, f.kind) for f in parse_form(project.form).fields if f.kind in ANSWER_KINDS]


def _gold_value(kind: str, value: Any) -> Any:
    if value is None:
        return None
    if kind == "segmentation":
        return [{"start": s, "end": e, "label": label} for s, e, label in value]
    return value


def item_rows(project: Project) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(split, row)`` for every item of the project, in position order."""
    fields = answer_fields(project)
    documents = (
        Document.objects.filter(project=project)
        .order_by("position", "pk")
        .only("id", "text", "external_id", "metadata", "source", "position")
        .iterator(chunk_size=CHUNK_SIZE)
    )
    names = {name for name, _ in fields}
    for document in documents:
        metadata = document.metadata or {}
        gold = metadata.get("gold") or {}
        rest = {k: v for k, v in metadata.items() if k not in ("options", "candidate", "gold")}
        if isinstance(gold, Mapping) and "gold" in metadata:
            rest["gold"] = {k: v for k, v in gold.items() if k not in names}
        yield (
            _split(metadata),
            {
                "id": document.external_id or str(document.pk),
                "text": document.text,
                "options": [
                    {"key": str(k), "text": str(v)}
                    for k, v in (metadata.get("options") or {}).items()
                ],
                "candidate": str(metadata.get("candidate") or ""),
                "gold": {name: _gold_value(kind, gold.get(name)) for name, kind in fields},
                **_document_columns(document, rest),
            },
        )


def _agreement(gold: GoldStandard) -> dict[str, Any] | None:
    """The latest computed agreement payload against this gold version, if any (read through
    the app registry: the agreement figures belong to the evaluation app)."""
    if not apps.is_installed("evaluation"):
        return None
    result = (
        apps.get_model("evaluation", "AgreementResult")
        .objects.filter(gold_standard=gold, status="done")
        .order_by("-finished_at", "-pk")
        .first()
    )
    return result.payload if result is not None else None


def _number(value: Any) -> str:
    return f"{value:.3f}" if isinstance(value, int | float) else "n/a"


def agreement_lines(payload: Mapping[str, Any] | None) -> list[str]:
    if not payload:
        return ["No agreement figures were computed against this version."]
    lines = [
        f"Computed on {payload.get('documents', '?')} documents and "
        f"{len(payload.get('annotators') or [])} annotators.",
        "",
        "| level | α (MASI) | α (Jaccard) | Fleiss' κ |",
        "|---|---|---|---|",
    ]
    for level, figures in sorted((payload.get("levels") or {}).items()):
        alpha = figures.get("alpha") or {}
        lines.append(
            f"| {level} | {_number((alpha.get('masi') or {}).get('value'))} "
            f"| {_number((alpha.get('jaccard') or {}).get('value'))} "
            f"| {_number((figures.get('fleiss_kappa') or {}).get('value'))} |"
        )
    return lines


def taxonomy_lines(project: Project) -> list[str]:
    spec = taxonomy_spec(project.taxonomy)
    lines = [f"## Taxonomy: {spec.title or spec.name} ({spec.name} {spec.version})", ""]
    if spec.description:
        lines += [spec.description, ""]
    for category in spec.categories:
        lines += [f"### {category.name}", ""]
        if category.definition:
            lines += [category.definition, ""]
        for node in category.types:
            entry = f"- **{node.name}**: {node.definition or '(no definition)'}"
            if node.template:
                entry += f" Template: `{node.template}`"
                if node.slots:
                    entry += f" (slots {', '.join(node.slots)})"
            lines.append(entry)
        lines.append("")
    return lines


#: The item scoring profiles of a benchmark name (``None``: none of its own), as
#: ``(name, description)``; registered by the evaluation app (this app imports none of it).
_item_profiles: Callable[[str | None], list[tuple[str, str]]] | None = None


def register_item_profiles(describe: Callable[[str | None], list[tuple[str, str]]]) -> None:
    global _item_profiles
    _item_profiles = describe


def profile_lines(project: Project, gold: GoldStandard | None) -> list[str]:
    """The profile the platform scores the dataset under (item benchmarks: also their own)."""
    if gold is not None:
        return [f"`{SPAN_PROFILE[0]}`: {SPAN_PROFILE[1]}."]
    if _item_profiles is None:
        return []
    form = project.form if isinstance(project.form, dict) else {}
    benchmark = form.get("benchmark") or project.taxonomy.name
    return [f"- `{name}`: {description}" for name, description in _item_profiles(benchmark)]


def _columns_note(items: bool) -> str:
    what = (
        "the item's metadata without its options, candidate and answer key (their own "
        "columns): a FLUB item's `record` keeps `is_question` and the raw `type`"
        if items
        else "the document's metadata"
    )
    return (
        "Besides the columns above, every row has its document's `source`, `position` and "
        f"`metadata` (a JSON object string: {what}), so that importing this folder into the "
        "platform gives the texts back as they were."
    )


def _card_body(
    project: Project,
    gold: GoldStandard | None,
    counts: Mapping[str, int],
    rows: str,
    tail: list[str],
) -> str:
    splits = ", ".join(f"{split} ({n} {rows})" for split, n in counts.items())
    lines = [f"# {project.name}", ""]
    if project.description:
        lines += [project.description, ""]
    lines += [f"Splits: {splits}.", ""]
    if gold is not None:
        lines += [
            f"## Gold version {gold.version}",
            "",
            f"Published {gold.published_at:%Y-%m-%d}" + (f": {gold.note}" if gold.note else "."),
            "",
            "Each span lists its alternative labels: a prediction of any one of them is right.",
            "",
            "### Agreement",
            "",
            *agreement_lines(_agreement(gold)),
            "",
        ]
    lines += ["## Scoring profile", "", *profile_lines(project, gold), ""]
    return "\n".join([*lines, *tail, *taxonomy_lines(project)])


def _tail(license: License, dropped: list[str], items: bool) -> list[str]:
    """The card's sections on the columns, the licence and what the folder does not carry."""
    kept = "options, candidate and answer key" if items else "gold spans and comments"
    return [
        "## Columns",
        "",
        _columns_note(items),
        "",
        "## Licence",
        "",
        *license.card_lines(),
        "",
        "## Not carried",
        "",
        f"Importing this folder gives back every text with its id, source, sentences, "
        f"metadata, {kept}; it does not give back:",
        "",
        *[f"- {line}" for line in dropped],
        "",
    ]


@dataclass
class HFExport:
    """What ``export_hf`` wrote: rows per split, the card's licence, what is not carried."""

    counts: dict[str, int]
    license: License
    not_carried: list[str] = field(default_factory=list)

    def summary(self, out: Path) -> str:
        splits = ", ".join(f"{split} {n}" for split, n in self.counts.items())
        where = f" ({self.license.source})" if self.license.source else ""
        lines = [
            f"Wrote a Hugging Face dataset folder to {out} ({splits}).",
            f"  licence: {self.license.id}{where}",
            "  not carried:",
            *[f"    - {line}" for line in self.not_carried],
        ]
        return "\n".join(lines)


def card_languages(project: Project, splits: Mapping[str, list[dict[str, Any]]]) -> tuple[str, ...]:
    """The languages of the exported texts: the ``language`` their documents' metadata
    declares, else the one their script suggests (``annotations.languages``)."""
    declared = dict(
        Document.objects.filter(project=project, metadata__has_key="language").values_list(
            "text", "metadata__language"
        )
    )
    return text_languages(
        (row["text"], code if isinstance(code := declared.get(row["text"]), str) else None)
        for rows in splits.values()
        for row in rows
    )


def export_hf(
    *,
    project: Project,
    out: Path,
    gold_version: int | None = None,
    license: str | None = None,
    languages: tuple[str, ...] | None = None,
) -> HFExport:
    """Write the dataset folder ``out``; returns rows per split, the licence and what the
    folder does not carry. A span project exports a published gold version (the latest by
    default); an item project its items. The card's licence is ``license``, else the one
    the project declares (``hf_card.resolve_license``); its languages are ``languages``,
    else those of the texts (``card_languages``)."""
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ExportError(f"{out}: exists and is not an empty folder")
    taxonomy = {"name": project.taxonomy.name, "version": project.taxonomy.version}
    card_license = resolve_license(project, license)
    if project.kind == "items":
        if gold_version is not None:
            raise ExportError("--gold-version: an item project's answer key has no versions")
        gold, schema, rows = None, item_schema(answer_fields(project)), item_rows(project)
        platform: dict[str, Any] = {"kind": "items", "form": project.form}
        tasks = ["multiple-choice", "text-classification"]
    else:
        gold = published_gold(project, gold_version)
        schema, rows = SPAN_SCHEMA, span_rows(gold)
        platform = {"kind": "spans", "gold_version": gold.version}
        tasks = ["token-classification", "text-classification"]
    splits: dict[str, list[dict[str, Any]]] = {}
    for split, row in rows:
        if not SPLIT_NAME.fullmatch(split):
            raise ExportError(
                f"item {row['id']!r}: split {split!r} is not a split name the Hub accepts "
                "(letters, digits and _, parts joined by .)"
            )
        splits.setdefault(split, []).append(row)
    if not splits:
        raise ExportError(f"project {project.name!r}: nothing to export (no texts)")
    counts = {split: len(r) for split, r in splits.items()}
    metadata = card_metadata(
        schema=schema,
        counts=counts,
        hub={
            "license": card_license.id,
            "language": list(languages or card_languages(project, splits)),
            "task_categories": tasks,
            "pretty_name": project.name,
        },
        platform={"project": project.name, **platform, "taxonomy": taxonomy},
    )
    dropped = not_carried(project, gold, sum(counts.values()))
    tail = _tail(card_license, dropped, gold is None)
    body = _card_body(project, gold, counts, "items" if gold is None else "texts", tail)
    written = write_hf_folder(out, schema=schema, splits=splits, metadata=metadata, body=body)
    return HFExport(written, card_license, dropped)
