"""``manage.py agreement NAME=SOURCE …``: annotators against each other, each in turn as
the reference (the MAFALDA user-study table), and optionally against a gold standard.

SOURCE is an annotation file (doccano export or MAFALDA JSONL) or a stored
``annotator:PROJECT/USERNAME``; ``--gold`` takes a file or ``gold:PROJECT[@VERSION]`` and
adds the gold as one more reference row. Texts are matched exactly; every source must
cover the reference's texts. Profile ``paper``.

Beside the F1 matrix, ``--format json`` gives Krippendorff's α over sentence units (MASI and
Jaccard), per-label α and Cohen's / Fleiss' κ at each level (``evaluation.scoring.iaa``),
over the annotator sources only (never the gold) and the texts every one of them covers;
the table format prints α, one line per level. Units: for stored sources, the stored
``Sentence`` rows of the document; for files, the gold's sentence units (MAFALDA
``sentences_with_labels`` located in the text); else the importers' sentence splitter
(``units_from`` says which). An annotator's value for a unit is the set of the level's
labels of their spans overlapping it by at least one character, {⊥} when none does.

Provenance, as in the project's cached figures (``evaluation.agreement.jobs``): each level's
F1 matrix, its α, each per-label α, each Cohen's κ and its Fleiss' κ record their ``metric``,
``library`` (with its version) and ``level`` (the matrix also its ``profile``), and the
output carries ``hash``: sha256 of the inputs the figures come from (every source's texts
and spans, the gold's sentence labels, the levels, the average and the code version).
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotations.importing.sentences import split_sentences
from annotations.models import Sentence
from evaluation.agreement.data import CODE_VERSION
from evaluation.agreement.jobs import ALPHA_LIBRARY, OWN_LIBRARY, PROFILE, library, provenance
from evaluation.runs.references import annotator_reference, gold_reference
from evaluation.scoring import (
    AVERAGES,
    Corpus,
    ScoringInputError,
    TextGold,
    iaa,
    mafalda_mapping,
    pairwise_agreement,
    read_gold,
)
from evaluation.scoring.agreement import PairwiseAgreement

GOLD_NAME = "gold"
STORED_ORIGIN = re.compile(r"\bdocument (\d+)$")


def read_source(reference: str) -> Corpus:
    return gold_reference(reference) or annotator_reference(reference) or read_gold(reference)


def _fmt(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.3f}"


def format_matrix(agreement: PairwiseAgreement, level: int, names: list[str]) -> str:
    """F1 matrix; the gold is a reference row only (it is never the one scored)."""
    table = agreement.table(level, "f1")
    width = max(10, *(len(name) for name in names)) + 2
    columns = [name for name in names if name != GOLD_NAME]
    lines = [f"level {level} F1 (rows: reference, columns: scored)"]
    lines.append(" " * width + "".join(f"{name:>{width}}" for name in columns))
    for reference in names:
        cells = [
            "—".rjust(width) if scored == reference else f"{table[reference][scored]:>{width}.3f}"
            for scored in columns
        ]
        lines.append(f"{reference:<{width}}" + "".join(cells))
    return "\n".join(lines)


def _located(text: str, sentences: list[str]) -> list[tuple[int, int]] | None:
    """The gold file's sentence units as ranges of the text (None if one is not found)."""
    bounds, cursor = [], 0
    for sentence in sentences:
        start = text.find(sentence, cursor)
        if start < 0:
            return None
        bounds.append((start, start + len(sentence)))
        cursor = start + len(sentence)
    return bounds


def _stored_document(origin: str) -> int | None:
    """The document id of a text read from the database (``evaluation.runs.stored`` origins)."""
    found = STORED_ORIGIN.search(origin)
    return int(found.group(1)) if found else None


def sentence_units(
    texts: list[str], sources: list[dict[str, TextGold]], gold: Corpus | None
) -> tuple[dict[str, list[tuple[int, int]]], str]:
    """``({text: [(start, end), ...]}, units_from)`` (see the module docstring)."""
    gold_by_text = {item.text: item for item in (gold.texts if gold else [])}
    documents: dict[str, int] = {}
    for text in texts:
        items = [source[text] for source in sources]
        if text in gold_by_text:
            items.append(gold_by_text[text])
        found = [d for d in map(_stored_document, (item.origin for item in items)) if d]
        if found:
            documents[text] = found[0]
    stored: dict[int, list[tuple[int, int]]] = {}
    for document_id, start, end in (
        Sentence.objects.filter(document_id__in=set(documents.values()))
        .order_by("document_id", "index")
        .values_list("document_id", "start", "end")
    ):
        stored.setdefault(document_id, []).append((start, end))
    units, used = {}, set()
    for text in texts:
        item = gold_by_text.get(text)
        from_gold = None
        if item is not None and item.sentence_labels:
            from_gold = _located(text, [sentence for sentence, _ in item.sentence_labels])
        if stored.get(documents.get(text, 0)):
            units[text], source = stored[documents[text]], "stored sentences"
        elif from_gold:
            units[text], source = from_gold, "gold file"
        else:
            units[text], source = split_sentences(text), "sentence splitter"
        used.add(source)
    return units, " + ".join(sorted(used))


def agreement_figures(
    corpora: dict[str, Corpus], gold: Corpus | None, levels: tuple[int, ...]
) -> dict[str, Any]:
    """α, per-label α and κ of the annotator sources (see the module docstring)."""
    by_text = {name: {t.text: t for t in corpus.texts} for name, corpus in corpora.items()}
    common = [t for t in next(iter(by_text.values())) if all(t in m for m in by_text.values())]
    bounds, units_from = sentence_units(common, list(by_text.values()), gold)
    mapping = mafalda_mapping()
    out: dict[str, Any] = {"units_from": units_from, "alpha": {}, "labels": {}, "kappa": {}}
    for level in levels:
        units: dict[tuple[int, int], dict[str, frozenset[str]]] = {}
        for number, text in enumerate(common):
            for name, texts in by_text.items():
                spans = [(s.start, s.end, s.labels) for s in texts[text].spans]
                for index, value in enumerate(iaa.unit_values(bounds[text], spans, mapping, level)):
                    units.setdefault((number, index), {})[name] = value
        masi, jaccard = iaa.alpha(units, "masi"), iaa.alpha(units, "jaccard")
        key = str(level)
        out["alpha"][key] = {
            "masi": masi.value,
            "jaccard": jaccard.value,
            "units": masi.units,
            **provenance("krippendorff_alpha", ALPHA_LIBRARY, level),
            "distances": list(iaa.DISTANCES),
            "annotators": masi.annotators,
            "documents": len(common),
        }
        krippendorff = provenance("krippendorff_alpha", library("krippendorff"), level)
        out["labels"][key] = {
            label: {
                "alpha": result.value,
                "units": result.units,
                **krippendorff,
                "distance": "nominal",
            }
            for label, result in iaa.label_alphas(units, sorted(mapping.labels_at(level))).items()
        }
        statsmodels = library("statsmodels")
        out["kappa"][key] = {
            "cohen": [
                {**provenance("cohen_kappa", statsmodels, level), **entry}
                for entry in iaa.cohen_kappas(units)
            ],
            "fleiss": {**provenance("fleiss_kappa", statsmodels, level), **iaa.fleiss_kappa(units)},
        }
    return out


def inputs_hash(corpora: dict[str, Corpus], levels: tuple[int, ...], average: str) -> str:
    """sha256 of what the figures come from (see the module docstring)."""
    sources = {
        name: [
            [
                text.text,
                sorted([span.start, span.end, sorted(span.labels)] for span in text.spans),
                [[sentence, sorted(labels)] for sentence, labels in text.sentence_labels or ()],
            ]
            for text in sorted(corpus.texts, key=lambda t: t.text)
        ]
        for name, corpus in corpora.items()
    }
    payload = {"code": CODE_VERSION, "levels": list(levels), "average": average, "sources": sources}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


class Command(BaseCommand):
    help = (
        "Pairwise agreement between annotators (each in turn as the gold), profile paper; "
        "--format json adds Krippendorff's alpha (MASI, Jaccard), per-label alpha and "
        "Cohen's / Fleiss' kappa over sentence units, computed over the annotator sources "
        "only (never --gold)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("sources", nargs="+", metavar="NAME=SOURCE")
        parser.add_argument(
            "--gold",
            help="gold standard file or gold:PROJECT[@VERSION]: one more reference row of the "
            "F1 matrix and the source of sentence units; not a coder for alpha and kappa",
        )
        parser.add_argument("--level", choices=["0", "1", "2", "all"], default="all")
        parser.add_argument("--average", choices=AVERAGES, default="text")
        parser.add_argument("--format", choices=["json", "table"], default="table")

    def handle(self, *args: Any, **options: Any) -> None:
        references: dict[str, str] = {}
        if options["gold"]:
            references[GOLD_NAME] = options["gold"]
        for item in options["sources"]:
            name, found, reference = item.partition("=")
            if not found or not name or not reference:
                raise CommandError(f"{item!r}: expected NAME=SOURCE")
            if name in references:
                raise CommandError(f"{item!r}: the name {name!r} is used twice")
            references[name] = reference
        if len(references) < 2:
            raise CommandError("give at least two sources (or one and --gold)")
        levels = (0, 1, 2) if options["level"] == "all" else (int(options["level"]),)
        try:
            corpora = {name: read_source(reference) for name, reference in references.items()}
            agreement = pairwise_agreement(
                corpora, levels=levels, average=options["average"], bootstrap_resamples=0
            )
            annotators = {name: corpus for name, corpus in corpora.items() if name != GOLD_NAME}
            figures = agreement_figures(annotators, corpora.get(GOLD_NAME), levels)
        except (ScoringInputError, OSError) as error:
            raise CommandError(str(error)) from error
        if options["format"] == "json":
            matrix = {
                key: {
                    **provenance("disjunctive_f1", OWN_LIBRARY, int(key)),
                    "profile": PROFILE,
                    **tables,
                }
                for key, tables in agreement.to_dict().items()
            }
            payload = {
                "profile": PROFILE,
                "average": options["average"],
                **matrix,
                **figures,
                "libraries": iaa.LIBRARIES,
                "hash": inputs_hash(corpora, levels, options["average"]),
            }
            self.stdout.write(json.dumps(payload, indent=2))
            return
        names = list(corpora)
        self.stdout.write(f"profile=paper  average={options['average']}")
        for level in levels:
            self.stdout.write("\n" + format_matrix(agreement, level, names))
            alpha = figures["alpha"][str(level)]
            self.stdout.write(
                f"level {level} Krippendorff's alpha over {alpha['units']} sentences "
                f"({figures['units_from']}): MASI {_fmt(alpha['masi'])}, "
                f"Jaccard {_fmt(alpha['jaccard'])}"
            )
