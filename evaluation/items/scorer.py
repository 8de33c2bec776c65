"""The ``RunScorer`` of item runs (``evaluation.runs.scorers``, registered when the app
loads): a run's stored outputs read with their items into gold units and predictions,
scored through ``evaluation.scoring.item_scorer`` (judge runs: their task's own scorer),
stored as one ``RunScore`` per profile (no gold version).

Reading (``read_run``): every stored answer is parsed again with its item (segmentation
passages are located in the item text); what it read is stored with the reports
(``RunOutput.parsed_labels``). The items scored are ``items.runs.covered_items``'s (an
imported run: those it has outputs for; a launched run's items without an output count as
wrong). Reports (``evaluation.scoring.items`` documents their shapes): ``definition``
(stored under the profile column ``items``) from the parsed answers, with the ranked
field's ``unreadable_labels`` and the ``contradictory`` answers of a SmartyPat output;
the project's benchmark profiles from the answers as given. Every report carries the
run's ``task``, ``field`` and ``missing`` (items without an output) and, for an imported
run, ``coverage`` (``{"items", "of"}``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from django.db import transaction

from evaluation.benchmarks import TaskItem, get_task
from evaluation.items.runs import (
    PROFILE,
    covered_items,
    field_labels,
    is_judge,
    label_aliases,
    merged_parser,
    profile_column,
    profile_of_column,
    run_field,
    run_items,
    run_profiles,
    run_spec,
)
from evaluation.models import ModelRun, RunOutput, RunScore
from evaluation.scoring.core import ScoringInputError
from evaluation.scoring.item_profiles import DEFINITION
from evaluation.scoring.item_scorer import (
    ItemGold,
    ItemPredictions,
    ItemScorer,
    NoFigures,
    item_scoring,
)
from evaluation.scoring.label_answers import (
    contradictory_summary,
    read_labels,
    unreadable_summary,
)
from evaluation.scoring.scorer import ITEMS, Coverage, Scoring

#: field kinds whose SmartyPat output records can contradict themselves (``label_answers``)
CONTRADICTABLE = ("ranked", "detection")


@dataclass
class ReadRun:
    """A run's outputs read with their items: per covered item the parsed answer (a judge
    run: every repeat's, in unit order) and the first answer as given."""

    task: Any
    all_items: list[TaskItem]
    items: list[TaskItem]
    labels: list[str]
    spellings: dict[str, str]
    aliases: dict[str, str]
    ranks: int
    predictions: list[Any] = field(default_factory=list)
    answers: list[Any] = field(default_factory=list)
    changed: list[RunOutput] = field(default_factory=list)
    answered: set[int] = field(default_factory=set)

    def gold(self) -> ItemGold:
        return ItemGold(
            kind=self.task.answers,
            golds=[item.gold for item in self.items],
            labels=self.labels,
            options=[list(item.options) for item in self.items],
            references=[item.reference for item in self.items],
            gold_texts=[item.extra.get("gold_text") for item in self.items],
            aliases=self.aliases,
            ranks=self.ranks,
        )

    def stored_extra(self, run: ModelRun) -> dict[str, Any]:
        """What every report of the run carries beside its figures."""
        extra: dict[str, Any] = {
            "task": run.task,
            "field": run.field,
            "missing": sum(item.id not in self.answered for item in self.all_items),
        }
        if run.imported:
            extra["coverage"] = self.coverage().to_dict()
        return extra

    def coverage(self) -> Coverage:
        return Coverage(ITEMS, len(self.items), len(self.all_items))


def read_run(run: ModelRun) -> ReadRun:
    """Parse every stored answer of the run with its item (see the module docstring)."""
    task = get_task(run.task)
    all_items = run_items(run)
    form_field = run_field(run)
    labels = [label.name for label in field_labels(run.project, form_field)]
    aliases = label_aliases(run.project, labels) if not (form_field and form_field.labels) else {}
    read = merged_parser(task, form_field, labels, aliases)
    by_item: dict[int, list[RunOutput]] = {}
    for output in RunOutput.objects.filter(run=run).order_by("document_id", "unit_index"):
        by_item.setdefault(output.document_id, []).append(output)
    found = ReadRun(
        task=task,
        all_items=all_items,
        items=covered_items(run, all_items, by_item),
        labels=labels,
        spellings={**aliases, **(dict(form_field.merge) if form_field else {})},
        aliases=label_aliases(run.project, labels),
        ranks=form_field.max if form_field and form_field.kind == "ranked" else 3,
        answered=set(by_item),
    )
    for item in found.items:
        parsed, raw = [], []
        for output in by_item.get(item.id, []):
            answer = output.answer if output.answer is not None else output.raw_output
            value = read(answer, item)
            if value != output.parsed_labels:
                output.parsed_labels = value
                found.changed.append(output)
            parsed.append(value)
            raw.append(answer)
        if is_judge(run):
            found.predictions.append(parsed)  # every repeat, in unit order
        else:
            found.predictions.append(parsed[0] if parsed else None)
            found.answers.append(raw[0] if raw else None)
    return found


def definition_report(run: ModelRun, found: ReadRun) -> dict[str, Any]:
    """The ``definition`` report from the parsed answers (a judge run: its task's scorer)."""
    spec = run_spec(run)
    if is_judge(run):
        return found.task.score(
            found.items,
            found.predictions,
            labels=found.labels,
            policy=spec.unparseable,
            seed=spec.seed,
            ranks=found.ranks,
        )
    scorer = ItemScorer(policy=spec.unparseable, seed=spec.seed)
    report = {
        "task": found.task.name,
        **scorer.report(found.gold(), _predictions(found), DEFINITION),
    }
    if found.task.answers == "ranked":
        readings = [
            read_labels(a, found.labels, found.spellings) if a is not None else None
            for a in found.answers
        ]
        report["unreadable_labels"] = unreadable_summary(
            [r.unreadable if r is not None else [] for r in readings]
        )
    if found.task.answers in CONTRADICTABLE:
        contradictory = contradictory_summary(found.answers)
        if contradictory["items"]:  # logic_error against the labels: it wins
            report["contradictory"] = contradictory
    return report


def _predictions(found: ReadRun) -> ItemPredictions:
    return ItemPredictions(parsed=found.predictions, raw=found.answers)


def profile_scoring(run: ModelRun, found: ReadRun, name: str) -> Scoring:
    """The run's scoring under the item profile ``name`` (``NoFigures``: none for its
    kind; judge runs have ``definition`` only), its report as stored."""
    if name == DEFINITION:
        report = definition_report(run, found)
    elif is_judge(run):
        raise NoFigures(f"profile {name!r}: judge runs are scored under definition only")
    else:
        report = ItemScorer().report(found.gold(), _predictions(found), name)
    scoring = item_scoring({**report, **found.stored_extra(run)})
    return replace(scoring, coverage=found.coverage())


class ItemRunScorer:
    """Item runs scored under ``definition`` (column ``items``) and their project's
    benchmark profiles (``items.runs.run_profiles``)."""

    def profiles(self, run: ModelRun) -> list[str]:
        names = [DEFINITION] if is_judge(run) else run_profiles(run)
        return [profile_column(name) for name in names]

    def score(self, run: ModelRun, *, profile: str) -> Scoring:
        """``profile``: a column of ``profiles`` or its profile name (``definition``)."""
        columns = self.profiles(run)
        if profile_column(profile) not in columns:
            raise ScoringInputError(
                f"profile {profile!r}: run {run.name!r} is scored under {', '.join(columns)}"
            )
        return profile_scoring(run, read_run(run), profile_of_column(profile))

    def store(self, run: ModelRun) -> list[RunScore]:
        found = read_run(run)
        reports: dict[str, dict[str, Any]] = {}
        for column in self.profiles(run):
            try:
                scoring = profile_scoring(run, found, profile_of_column(column))
            except NoFigures:
                continue
            reports[column] = dict(scoring.report)
        with transaction.atomic():
            if found.changed:
                RunOutput.objects.bulk_update(found.changed, ["parsed_labels"], batch_size=500)
            return [
                RunScore.objects.update_or_create(
                    run=run,
                    gold_standard=None,
                    profile=column,
                    defaults={"parser": found.task.name[:32], "report": body},
                )[0]
                for column, body in reports.items()
            ]


ITEM_RUN_SCORER = ItemRunScorer()


def score_item_run(run: ModelRun) -> list[RunScore]:
    """Score the run's stored outputs and store one report per profile."""
    return ITEM_RUN_SCORER.store(run)


__all__ = ["ITEM_RUN_SCORER", "PROFILE", "ItemRunScorer", "read_run", "score_item_run"]
