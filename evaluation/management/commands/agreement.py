"""``manage.py agreement NAME=SOURCE …``: annotators against each other, each in turn as
the reference (the MAFALDA user-study table), and optionally against a gold standard.

SOURCE is an annotation file (doccano export or MAFALDA JSONL) or a stored
``annotator:PROJECT/USERNAME``; ``--gold`` takes a file or ``gold:PROJECT[@VERSION]`` and
adds the gold as one more reference row. Texts are matched exactly; every source must
cover the reference's texts. Profile ``paper``.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from evaluation.references import annotator_reference, gold_reference
from evaluation.scoring import AVERAGES, Corpus, ScoringInputError, pairwise_agreement, read_gold
from evaluation.scoring.agreement import PairwiseAgreement

GOLD_NAME = "gold"


def read_source(reference: str) -> Corpus:
    return gold_reference(reference) or annotator_reference(reference) or read_gold(reference)


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


class Command(BaseCommand):
    help = "Pairwise agreement between annotators (each in turn as the gold), profile paper."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("sources", nargs="+", metavar="NAME=SOURCE")
        parser.add_argument("--gold", help="gold standard file or gold:PROJECT[@VERSION]")
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
        except (ScoringInputError, OSError) as error:
            raise CommandError(str(error)) from error
        if options["format"] == "json":
            payload = {"profile": "paper", "average": options["average"], **agreement.to_dict()}
            self.stdout.write(json.dumps(payload, indent=2))
            return
        names = list(corpora)
        self.stdout.write(f"profile=paper  average={options['average']}")
        for level in levels:
            self.stdout.write("\n" + format_matrix(agreement, level, names))
