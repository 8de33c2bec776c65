"""``manage.py score GOLD PRED``: score predictions against a gold standard.

A thin shell over ``evaluation.scoring``. GOLD and PRED are file paths, or stored sources
(``evaluation.runs.references``): ``gold:PROJECT[@VERSION]``, ``run:PROJECT/RUN``,
``annotator:PROJECT/USERNAME``. Resolvers in ``GOLD_RESOLVERS`` / ``PREDICTION_RESOLVERS``
take the argument string and return a ``Corpus`` / ``Predictions``, or ``None`` when the
string is not theirs; they are tried in order and the file reader comes last.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from evaluation.runs.references import gold_reference, prediction_reference
from evaluation.scoring import (
    AVERAGES,
    PARSER_NAMES,
    PROFILES,
    Corpus,
    Predictions,
    Report,
    ScoringInputError,
    read_gold,
    read_predictions,
    score,
)

GoldResolver = Callable[[str], Corpus | None]
PredictionResolver = Callable[[str], Predictions | None]
GOLD_RESOLVERS: list[GoldResolver] = [gold_reference]
PREDICTION_RESOLVERS: list[PredictionResolver] = [prediction_reference]


def resolve_gold(reference: str) -> Corpus:
    for resolver in GOLD_RESOLVERS:
        corpus = resolver(reference)
        if corpus is not None:
            return corpus
    return read_gold(reference)


def resolve_predictions(reference: str) -> Predictions:
    for resolver in PREDICTION_RESOLVERS:
        predictions = resolver(reference)
        if predictions is not None:
            return predictions
    return read_predictions(reference)


def format_table(report: Report) -> str:
    """A readable summary: one row per level, then the setting that produced it."""
    lines = [
        f"profile={report.profile}  parser={report.parser or '-'}"
        f"{'@' + report.parser_version if report.parser_version else ''}"
        f"  average={report.average}  mapping={report.mapping}",
        f"texts={report.texts} (without prediction: {report.texts_without_prediction})"
        f"  outputs={report.outputs}  unreadable_share={report.unreadable_share:.3f}"
        + (f"  dropped={report.dropped}" if report.dropped else ""),
        "",
        f"{'level':>5}  {'precision':>9}  {'recall':>9}  {'F1':>9}  {'F1 95% CI':>17}"
        f"  {'pred spans':>10}  {'gold spans':>10}",
    ]
    for level, scores in sorted(report.levels.items()):
        interval = f"[{scores.f1_ci95[0]:.4f}, {scores.f1_ci95[1]:.4f}]" if scores.f1_ci95 else "-"
        lines.append(
            f"{level:>5}  {scores.precision:>9.4f}  {scores.recall:>9.4f}  {scores.f1:>9.4f}"
            f"  {interval:>17}  {scores.predicted_spans:>10}  {scores.gold_spans:>10}"
        )
    return "\n".join(lines)


class Command(BaseCommand):
    help = "Score span predictions or raw per-sentence outputs against a gold standard."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "gold", help="gold standard: MAFALDA JSONL path, or gold:PROJECT[@VERSION]"
        )
        parser.add_argument(
            "pred",
            help="predictions: span JSONL or raw per-sentence outputs path, "
            "or run:PROJECT/RUN, or annotator:PROJECT/USERNAME",
        )
        parser.add_argument("--level", choices=["0", "1", "2", "all"], default="all")
        parser.add_argument("--profile", choices=PROFILES, default="paper")
        parser.add_argument(
            "--parser",
            choices=PARSER_NAMES,
            default=None,
            help="parser for raw outputs (default: keyword)",
        )
        parser.add_argument("--average", choices=AVERAGES, default="text")
        parser.add_argument("--format", choices=["json", "table"], default="table")
        parser.add_argument("--bootstrap", type=int, default=1000, help="resamples (0: none)")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--details", action="store_true", help="JSON: include per-text scores")

    def handle(self, *args: Any, **options: Any) -> None:
        levels = (0, 1, 2) if options["level"] == "all" else (int(options["level"]),)
        try:
            corpus = resolve_gold(options["gold"])
            predictions = resolve_predictions(options["pred"])
            report = score(
                corpus,
                predictions,
                profile=options["profile"],
                levels=levels,
                parser=options["parser"],
                average=options["average"],
                bootstrap_resamples=options["bootstrap"],
                seed=options["seed"],
            )
        except ScoringInputError as error:
            raise CommandError(str(error)) from error
        if options["format"] == "json":
            self.stdout.write(json.dumps(report.to_dict(options["details"]), ensure_ascii=False))
        else:
            self.stdout.write(format_table(report))
