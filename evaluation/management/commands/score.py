"""``manage.py score GOLD PRED``: score predictions against a gold standard.

A thin shell over ``evaluation.scoring``. GOLD and PRED are file paths, or stored sources
(``evaluation.runs.references``): ``gold:PROJECT[@VERSION]``, ``run:PROJECT/RUN``,
``annotator:PROJECT/USERNAME``. Resolvers in ``GOLD_RESOLVERS`` / ``PREDICTION_RESOLVERS``
take the argument string and return a ``Corpus`` / ``Predictions``, or ``None`` when the
string is not theirs; they are tried in order and the file reader comes last.

A stored gold version with a run or annotator of the same project is scored through the one
path of the leaderboard and the API (``evaluation.runs.scored.score_stored``): the project's
taxonomy and the coverage rule (a partial run scored on the texts it covers, ``coverage``
n/N beside the figures). A stored item run (``gold:PROJECT run:PROJECT/RUN`` on an item
project: its items' answer key) is scored by its run scorer (``evaluation.runs.scorers``),
as it is stored, under ``--profile`` (default ``definition``; ``items`` is the same).
Otherwise a stored side's project taxonomy gives the level mapping
and the parser; files alone are scored with MAFALDA's taxonomy, gold texts without a
prediction as empty predictions (the published scorer's rule).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotations.models import Project, Taxonomy
from evaluation.models import ModelRun
from evaluation.runs import stored
from evaluation.runs.references import (
    gold_reference,
    gold_version,
    prediction_reference,
    stored_work,
)
from evaluation.runs.scored import score_stored
from evaluation.runs.scorers import ITEMS, run_scorer, task_kind
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
from evaluation.scoring.item_profiles import DEFINITION
from evaluation.scoring.item_profiles import PROFILES as ITEM_PROFILES
from evaluation.scoring.scorer import Scoring

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


def format_table(report: Report, coverage: dict[str, int] | None = None) -> str:
    """A readable summary: one row per level, then the setting that produced it."""
    covered = ""
    if coverage is not None:
        covered = f"  coverage {coverage['texts']}/{coverage['of']} texts of the gold version"
    lines = [
        f"profile={report.profile}  parser={report.parser or '-'}"
        f"{'@' + report.parser_version if report.parser_version else ''}"
        f"  average={report.average}  mapping={report.mapping}",
        f"texts={report.texts} (without prediction: {report.texts_without_prediction})"
        f"  outputs={report.outputs}  unreadable_share={report.unreadable_share:.3f}"
        + (f"  dropped={report.dropped}" if report.dropped else "")
        + covered,
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
        parser.add_argument(
            "--profile",
            choices=[*PROFILES, *ITEM_PROFILES, "items"],
            default=None,
            help="spans: paper (default) or mafalda-2024; item runs: definition (default) "
            "or their benchmark's",
        )
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
            item_run = item_run_reference(options["gold"], options["pred"])
            if item_run is not None:
                self.write_items(score_item_run(item_run, options["profile"]), options)
                return
            options["profile"] = options["profile"] or "paper"
            report, coverage = score_references(options["gold"], options["pred"], levels, options)
        except ScoringInputError as error:
            raise CommandError(str(error)) from error
        if options["format"] == "json":
            data = report.to_dict(options["details"])
            if coverage is not None:
                data["coverage"] = coverage
            self.stdout.write(json.dumps(data, ensure_ascii=False))
        else:
            self.stdout.write(format_table(report, coverage))

    def write_items(self, scoring: Scoring, options: dict[str, Any]) -> None:
        if options["format"] == "json":
            data = {**scoring.report, "coverage": scoring.coverage.to_dict()}
            self.stdout.write(json.dumps(data, ensure_ascii=False))
        else:
            self.stdout.write(format_item_table(scoring))


def item_run_reference(gold: str, pred: str) -> ModelRun | None:
    """The item run PRED names when GOLD names an item project (``gold:PROJECT``: its items'
    answer key), which must be the run's; ``None`` otherwise (the span path says what is
    wrong with a reference)."""
    if not (gold.startswith("gold:") and pred.startswith("run:")):
        return None
    project = Project.objects.filter(name=gold.removeprefix("gold:"), kind="items").first()
    if project is None:
        return None
    run = stored_work(pred)
    if not isinstance(run, ModelRun) or task_kind(run.task) != ITEMS:
        return None
    if run.project_id != project.pk:
        raise ScoringInputError(
            f"{gold}: an item run is scored against its project's answer key: "
            f"gold:{run.project.name}"
        )
    return run


def score_item_run(run: ModelRun, profile: str | None) -> Scoring:
    """The item run's scoring as its run scorer stores it, under ``profile``."""
    return run_scorer(run).score(run, profile=profile or DEFINITION)


def format_item_table(scoring: Scoring) -> str:
    """An item scoring: the setting and coverage, then one row per figure (primary first)."""
    report, coverage = scoring.report, scoring.coverage
    lines = [
        f"profile={scoring.profile}  task={report.get('task', '-')}"
        f"  field={report.get('field') or '-'}"
        f"  coverage {coverage.scored}/{coverage.of} {coverage.unit}",
        "",
        f"{'metric':<24}  {'value':>9}",
    ]
    for figure in scoring.scores:
        value = "-" if figure.value is None else f"{figure.value:.4f}"
        lines.append(f"{figure.metric:<24}  {value:>9}")
    return "\n".join(lines)


def _taxonomy_of(work: Any, version: Any) -> Taxonomy | None:
    """The taxonomy of the stored side (the gold version's project first)."""
    if version is not None:
        return version.project.taxonomy
    if isinstance(work, ModelRun):
        return work.project.taxonomy
    return work[0].taxonomy if work is not None else None


def score_references(
    gold: str, pred: str, levels: tuple[int, ...], options: dict[str, Any]
) -> tuple[Report, dict[str, int] | None]:
    """The report of PRED against GOLD and its coverage (stored work on its own version)."""
    common = {
        "profile": options["profile"],
        "levels": levels,
        "average": options["average"],
        "bootstrap_resamples": options["bootstrap"],
        "seed": options["seed"],
    }
    version, work = gold_version(gold), stored_work(pred)
    if version is not None and work is not None:
        project = work.project_id if isinstance(work, ModelRun) else work[0].pk
        if project == version.project_id:
            run = work if isinstance(work, ModelRun) else None
            found = score_stored(
                gold_standard=version,
                run=run,
                annotator=None if run is not None else work[1],
                parser=options["parser"],
                **common,
            )
            return found.report, found.coverage
    taxonomy = _taxonomy_of(work, version)
    parser: Any = options["parser"]
    mapping = None
    if taxonomy is not None and options["profile"] != "mafalda-2024":
        mapping = stored.taxonomy_mapping(taxonomy)
        own = stored.parser_name(work) if isinstance(work, ModelRun) else "keyword"
        parser = stored.span_parser(taxonomy, parser or own)
    elif taxonomy is not None and not stored.is_mafalda_taxonomy(taxonomy):
        raise ScoringInputError(
            f"--profile: mafalda-2024 scores only MAFALDA's taxonomy, not {taxonomy}; use paper"
        )
    report = score(
        resolve_gold(gold), resolve_predictions(pred), parser=parser, mapping=mapping, **common
    )
    return report, None
