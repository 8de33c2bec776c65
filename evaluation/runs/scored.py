"""One scoring path for stored work: a run's outputs or an annotator's submitted spans
against a gold version. Every entry point that gives a run's figures goes through
``score_stored``: ``manage.py score`` on stored sources, ``manage.py results`` and the
leaderboard (through the stored ``RunScore`` reports, ``runs.services.score_and_store``),
``POST /api/evaluation/score/`` and ``manage.py evaluate``'s table.

Taxonomy: the gold's project's. Its tree gives the level mapping (profile ``paper``), its
labels the parser of raw outputs (``stored.span_parser``; MAFALDA's registered parsers on
MAFALDA's taxonomy); ``mafalda-2024`` scores only MAFALDA's taxonomy, with the published
table. A run's parser defaults to the one it was generated or imported with
(``stored.parser_name``).

Coverage rule (``covered_documents``): a work is scored on the texts it was asked for or
gave, never on texts it was not given:

- a run limited to N texts of its own gold version: the version's first N texts;
- an imported run (published outputs, a harness log): the texts it has outputs for;
- any other run: every text of the version (a text it was asked for and has no output for
  counts as an empty prediction);
- an annotator: the version's texts they submitted.

``Scored.coverage`` says how many texts of the version that is: ``{"texts": n, "of": N}``,
shown beside every figure of a partial work.

The figures come from the span scorer of the scorer interface
(``evaluation.scoring.span_scorer``); ``SpanRunScorer`` is the span runs' ``RunScorer``
(``runs.scorers``), which stores them (``runs.services.score_and_store``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from annotations.models import GoldStandard
from evaluation.models import ModelRun, RunScore
from evaluation.runs import stored
from evaluation.runs.scorers import RunNotScorable
from evaluation.scoring import Corpus, Report, ScoringInputError, as_predictions
from evaluation.scoring.scorer import Scoring
from evaluation.scoring.span_scorer import SpanScorer

LEVELS: tuple[int, ...] = (0, 1, 2)
MAFALDA_2024 = "mafalda-2024"


@dataclass(frozen=True)
class Scored:
    """A span scoring and the version's documents it was scored on (gold order)."""

    scoring: Scoring
    documents: list[int]

    @property
    def report(self) -> Report:
        report: Report = self.scoring.detail
        return report

    @property
    def coverage(self) -> dict[str, int]:
        return self.scoring.coverage.to_dict()

    @property
    def partial(self) -> bool:
        return self.scoring.coverage.partial

    def per_text(self) -> dict[str, Any]:
        """``{"documents": [ids], "f1": {level: [F1 of each text]}}`` in document order
        (what the leaderboard's paired tests compare)."""
        return {
            "documents": list(self.documents),
            "f1": {
                str(level): [f1 for _, _, f1 in scores.per_text]
                for level, scores in self.report.levels.items()
            },
        }

    def to_dict(self, *, per_text: bool = False, text_scores: bool = False) -> dict[str, Any]:
        """``Report.to_dict`` (each text's P/R/F1 per level with ``text_scores``) with
        ``coverage``, and the ``per_text`` F1 of the paired tests when asked."""
        data = {**self.report.to_dict(text_scores), "coverage": self.coverage}
        if per_text:
            data["per_text"] = self.per_text()
        return data


def covered_documents(
    gold_standard: GoldStandard,
    *,
    run: ModelRun | None = None,
    annotator: AbstractBaseUser | None = None,
) -> tuple[list[tuple[int, str]], int]:
    """The (document id, text) pairs the work is scored on, in gold order, and the number
    of the version's documents (the coverage rule of the module docstring)."""
    documents = stored.gold_document_ids_in_order(gold_standard)
    total = len(documents)
    if annotator is not None:
        submitted = set(
            stored.submitted_annotations(
                gold_standard.project, annotator, gold_standard=gold_standard
            ).values_list("document_id", flat=True)
        )
        return [(pk, text) for pk, text in documents if pk in submitted], total
    assert run is not None
    if run.limit and run.gold_standard_id == gold_standard.pk:
        return documents[: run.limit], total
    if run.imported:
        covered = stored.covered_document_ids(run)
        return [(pk, text) for pk, text in documents if pk in covered], total
    return documents, total


def _gold_on(gold_standard: GoldStandard, documents: list[tuple[int, str]], total: int) -> Corpus:
    gold = stored.gold_corpus(gold_standard)
    if len(documents) == total:
        return gold
    return stored.restrict(gold, [text for _, text in documents])


def score_stored(
    *,
    gold_standard: GoldStandard,
    run: ModelRun | None = None,
    annotator: AbstractBaseUser | None = None,
    profile: str = "paper",
    levels: Sequence[int] = LEVELS,
    parser: str | None = None,
    average: str = "text",
    bootstrap_resamples: int = 1000,
    seed: int = 0,
) -> Scored:
    """A stored run (or an annotator's submitted work: profile ``paper`` only) scored
    against a gold version with its project's taxonomy, on the texts the coverage rule gives
    (see the module docstring). ``ScoringInputError`` for a profile the taxonomy cannot
    take or an annotator under another profile than ``paper``."""
    if (run is None) == (annotator is None):
        raise ScoringInputError("score one run or one annotator")
    taxonomy = gold_standard.project.taxonomy
    if profile == MAFALDA_2024 and annotator is not None:
        raise ScoringInputError(
            "profile: annotators are scored with profile paper only "
            "(mafalda-2024 scores per-sentence model outputs)"
        )
    if profile == MAFALDA_2024 and not stored.is_mafalda_taxonomy(taxonomy):
        raise ScoringInputError(
            f"profile: mafalda-2024 scores only MAFALDA's taxonomy, not {taxonomy}; use paper"
        )
    documents, total = covered_documents(gold_standard, run=run, annotator=annotator)
    gold = _gold_on(gold_standard, documents, total)
    scorer = SpanScorer(
        levels=levels,
        mapping=stored.taxonomy_mapping(taxonomy) if profile != MAFALDA_2024 else None,
        average=average,
        bootstrap_resamples=bootstrap_resamples,
        seed=seed,
    )
    if annotator is not None:
        work = stored.annotator_corpus(
            gold_standard.project, annotator, gold_standard=gold_standard
        )
        scoring = scorer.score(gold, as_predictions(work), profile=profile, of=total)
    else:
        assert run is not None
        scorer = replace(
            scorer, parser=stored.span_parser(taxonomy, parser or stored.parser_name(run))
        )
        predictions = stored.run_predictions(run, gold_standard=gold_standard)
        scoring = scorer.score(gold, predictions, profile=profile, of=total)
    return Scored(scoring, [pk for pk, _ in documents])


class SpanRunScorer:
    """The ``RunScorer`` of span runs (``runs.scorers``): a run against its own gold
    version, at every level up to its own, with the parser it was generated or imported
    with, under each profile its taxonomy takes; reports with ``coverage`` and ``per_text``."""

    def gold(self, run: ModelRun) -> GoldStandard:
        if run.gold_standard is None:
            raise RunNotScorable(f"run {run.name!r} has no gold version to be scored against")
        return run.gold_standard

    def profiles(self, run: ModelRun) -> list[str]:
        return list(stored.span_profiles(self.gold(run).project.taxonomy, run.level))

    def score(self, run: ModelRun, *, profile: str) -> Scoring:
        found = score_stored(
            gold_standard=self.gold(run),
            run=run,
            profile=profile,
            levels=list(range(run.level + 1)),
            parser=stored.parser_name(run),
        )
        return replace(found.scoring, report=found.to_dict(per_text=True))

    def store(self, run: ModelRun) -> list[RunScore]:
        gold = self.gold(run)
        parser = stored.parser_name(run)
        reports = {profile: self.score(run, profile=profile) for profile in self.profiles(run)}
        with transaction.atomic():
            return [
                RunScore.objects.update_or_create(
                    run=run,
                    gold_standard=gold,
                    profile=profile,
                    defaults={"parser": parser, "report": dict(scoring.report)},
                )[0]
                for profile, scoring in reports.items()
            ]


SPAN_RUN_SCORER = SpanRunScorer()
