"""What a Hugging Face export's card and report say about its licence and about what the
folder does not carry (``services.hf_exports``). Reads only.

The licence is the one given at export (``--license``), else the one the project declares:
a ``license`` key in the exported documents' metadata (``--set-metadata license=...`` at
import) or a licence its description names ("CC BY-NC 4.0", "cc-by-sa-4.0", "MIT License",
"Apache 2.0", "CC0"), as the Hub's licence id; ``unknown`` only when nothing declares one.
A licence given that differs from the declared one, or two declared ones with none given,
is an ``ExportError``: the card's YAML and its text must agree.

``not_carried`` lists, with counts, what an import of the folder will not give back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from annotations.models import Annotation, Document, GoldSpan, GoldStandard, Project
from annotations.services.exports import ExportError

UNKNOWN = "unknown"
_CREATIVE_COMMONS = re.compile(r"\bCC[ -]BY((?:-(?:NC|SA|ND))*)[ -]v?(\d\.\d)\b", re.IGNORECASE)
_OTHERS = [
    (re.compile(r"\bCC0\b|\bCC[ -]zero\b", re.IGNORECASE), "cc0-1.0"),
    (re.compile(r"\bMIT[ -]licen[cs]e\b", re.IGNORECASE), "mit"),
    (
        re.compile(r"\bApache(?:[ -]License)?,?[ -](?:version[ -])?2\.0\b", re.IGNORECASE),
        "apache-2.0",
    ),
]


def named_licenses(text: str) -> list[str]:
    """The Hub licence ids of the licences ``text`` names, in order of first mention."""
    found: list[tuple[int, str]] = [
        (m.start(), f"cc-by{m.group(1).lower()}-{m.group(2)}")
        for m in _CREATIVE_COMMONS.finditer(text)
    ]
    for pattern, hub_id in _OTHERS:
        found += [(m.start(), hub_id) for m in pattern.finditer(text)]
    out: list[str] = []
    for _, hub_id in sorted(found):
        if hub_id not in out:
            out.append(hub_id)
    return out


@dataclass(frozen=True)
class License:
    id: str
    source: str  # where it was declared, as the card and the report say it

    def card_lines(self) -> list[str]:
        if self.id == UNKNOWN:
            return [
                "`unknown`: neither the export nor the project declares a licence (a "
                "`license` in the documents' metadata, or one its description names); the "
                "texts' own licence applies."
            ]
        return [f"`{self.id}`: {self.source}."]


def _declared(project: Project) -> dict[str, str]:
    """``{licence id: where declared}`` from the documents' metadata and the description."""
    declared: dict[str, str] = {}
    queryset = Document.objects.filter(project=project, metadata__has_key="license")
    for value in queryset.values_list("metadata__license", flat=True).distinct():
        if isinstance(value, str) and value.strip():
            ids = named_licenses(value) or [value.strip().lower()]
            for hub_id in ids:
                declared.setdefault(hub_id, "the `license` its documents' metadata declares")
    for hub_id in named_licenses(project.description or ""):
        declared.setdefault(hub_id, "the licence the project's description names")
    return declared


def resolve_license(project: Project, given: str | None) -> License:
    """The card's licence (see the module docstring)."""
    declared = _declared(project)
    if given:
        given = given.strip()
        if declared and given not in declared:
            raise ExportError(
                f"--license {given}: the project declares {', '.join(declared)} "
                f"({'; '.join(sorted(set(declared.values())))}); export it under that licence"
            )
        return License(given, declared.get(given, "the licence given at export"))
    if len(declared) > 1:
        raise ExportError(
            f"the project declares several licences ({', '.join(declared)}): pass --license"
        )
    if declared:
        ((hub_id, source),) = declared.items()
        return License(hub_id, source)
    return License(UNKNOWN, "")


@dataclass
class NotCarried:
    """What an import of the folder will not give back, one line each."""

    lines: list[str] = field(default_factory=list)

    def add(self, count: int, line: str) -> None:
        if count:
            self.lines.append(line.format(n=count))


def _annotations(project: Project, not_carried: NotCarried, what: str) -> None:
    annotations = Annotation.objects.filter(document__project=project)
    annotators = annotations.values("annotator").distinct().count()
    not_carried.add(
        annotations.count(),
        f"{{n}} annotations by {annotators} annotators (their {what}): the folder holds the "
        "answer key only",
    )


def not_carried(project: Project, gold: GoldStandard | None, exported: int) -> list[str]:
    """The lines of the card's "Not carried" section and of the export's report."""
    found = NotCarried()
    documents = Document.objects.filter(project=project)
    if gold is None:
        _annotations(project, found, "responses")
    else:
        _annotations(project, found, "spans, answers and comments")
        others = project.gold_standards.exclude(pk=gold.pk).count()
        found.add(others, f"{{n}} other gold versions (only v{gold.version} is exported)")
        found.add(
            documents.count() - exported,
            f"{{n}} documents of the project that are not in gold version v{gold.version}",
        )
        proposed = GoldSpan.objects.filter(gold_standard=gold).exclude(proposed_by={})
        found.add(
            proposed.count(),
            "which annotators proposed each label (`proposed_by`) of {n} gold spans",
        )
        found.lines.append(
            f"the gold version's number (v{gold.version}), note, dates and authors: an "
            "import makes the importing project's next published version"
        )
    found.add(
        documents.filter(external_id="").count(),
        "{n} texts without an id of their own: their `id` is the platform's database id, "
        "which an import keeps as their id",
    )
    found.lines.append(
        "the project's description, members, assignments, guidelines and settings other "
        "than its kind, form and taxonomy; positions are renumbered from the importing "
        "project's next one, in the same order"
    )
    return found.lines
