"""Reads for evaluation: scores of stored runs and annotators (who sees which run:
``evaluation.access``).

Agreement between the annotators of a gold version (``annotator_agreement``):
- the *annotators* are the users with at least one submitted annotation on a document the
  version covers (any membership role), ordered by username;
- the *compared documents* are the version's documents that every one of them submitted,
  so every number of the table is over the same texts;
- each annotator in turn is the reference and every other one is scored against it
  (``scoring.pairwise_agreement``: n annotators give n x (n - 1) pairs), and each
  annotator is scored against the gold version on the same documents.
Humans produce spans, not per-sentence outputs, so only the ``paper`` profile applies.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, QuerySet
from django.utils import timezone

from annotations.models import Annotation, GoldStandard
from evaluation.models import ModelRun, RunShard
from evaluation.runs import progress, stored
from evaluation.scoring import (
    Corpus,
    Report,
    ScoringInputError,
    pairwise_agreement,
    score,
    score_annotator,
)

LEVELS: tuple[int, ...] = (0, 1, 2)
HEADLINE = ("precision", "recall", "f1")


def with_counts(runs: QuerySet[ModelRun]) -> QuerySet[ModelRun]:
    """Annotate ``outputs_count`` and ``documents_count`` (one query for a page)."""
    return runs.select_related("created_by").annotate(
        outputs_count=Count("outputs"),
        documents_count=Count("outputs__document", distinct=True),
    )


def run_gold(gold_standard: GoldStandard, run: ModelRun) -> tuple[Corpus, list[int]]:
    """The gold texts a run is scored on and their document ids, in gold order: a run
    limited to the version's first N texts covers those N; an imported run covers the
    documents it has outputs for; any other run, every document of the version."""
    gold = stored.gold_corpus(gold_standard)
    documents = stored.gold_document_ids_in_order(gold_standard)
    if run.limit and run.gold_standard_id == gold_standard.pk:
        documents = documents[: run.limit]
    elif run.imported:
        covered = stored.covered_document_ids(run)
        documents = [(pk, text) for pk, text in documents if pk in covered]
    if len(documents) != len(gold.texts):
        gold = stored.restrict(gold, [text for _, text in documents])
    return gold, [pk for pk, _ in documents]


def score_run(
    *,
    gold_standard: GoldStandard,
    run: ModelRun,
    profile: str = "paper",
    levels: Sequence[int] = LEVELS,
    parser: str | None = None,
    average: str = "text",
) -> Report:
    """A stored run scored against a gold version on the texts it covers (``run_gold``;
    documents outside the version are ignored; covered documents without an output count
    as empty predictions)."""
    return _score_on(
        gold_standard, run, run_gold(gold_standard, run)[0], profile, levels, parser, average
    )


def _score_on(
    gold_standard: GoldStandard,
    run: ModelRun,
    gold: Corpus,
    profile: str,
    levels: Sequence[int],
    parser: str | None,
    average: str,
) -> Report:
    mapping = (
        None
        if profile == "mafalda-2024"
        else stored.taxonomy_mapping(gold_standard.project.taxonomy)
    )
    taxonomy = gold_standard.project.taxonomy
    if profile == "mafalda-2024" and not stored.is_mafalda_taxonomy(taxonomy):
        raise ScoringInputError(
            f"profile: mafalda-2024 scores only MAFALDA's taxonomy, not {taxonomy}; use paper"
        )
    return score(
        gold,
        stored.run_predictions(run, gold_standard=gold_standard),
        profile=profile,
        levels=levels,
        parser=stored.span_parser(taxonomy, parser or "keyword"),
        average=average,
        mapping=mapping,
    )


def per_text_f1(report: Report, documents: Sequence[int]) -> dict[str, Any]:
    """``{"documents": [ids], "f1": {level: [F1 of each text]}}`` of a report scored on
    those documents, in their order (what the leaderboard's paired tests compare)."""
    return {
        "documents": list(documents),
        "f1": {str(level): [f1 for _, _, f1 in lr.per_text] for level, lr in report.levels.items()},
    }


def score_run_report(
    *,
    gold_standard: GoldStandard,
    run: ModelRun,
    profile: str,
    levels: Sequence[int] = LEVELS,
    parser: str | None = None,
) -> dict[str, Any]:
    """``score_run``'s report as stored (``Report.to_dict``) with its ``per_text`` F1."""
    gold, documents = run_gold(gold_standard, run)
    report = _score_on(gold_standard, run, gold, profile, levels, parser, "text")
    return {**report.to_dict(), "per_text": per_text_f1(report, documents)}


def score_stored_annotator(
    *,
    gold_standard: GoldStandard,
    annotator: AbstractBaseUser,
    levels: Sequence[int] = LEVELS,
    average: str = "text",
) -> Report:
    """An annotator's submitted annotations scored against a gold version, on the
    version's documents they submitted (profile ``paper``)."""
    return _score_annotator(gold_standard, annotator, levels, average)[0]


def score_stored_annotator_report(
    *, gold_standard: GoldStandard, annotator: AbstractBaseUser, levels: Sequence[int] = LEVELS
) -> dict[str, Any]:
    """``score_stored_annotator``'s report (``text`` average) with its ``per_text`` F1."""
    report, documents = _score_annotator(gold_standard, annotator, levels, "text")
    return {**report.to_dict(), "per_text": per_text_f1(report, documents)}


def _score_annotator(
    gold_standard: GoldStandard, annotator: AbstractBaseUser, levels: Sequence[int], average: str
) -> tuple[Report, list[int]]:
    project = gold_standard.project
    work = stored.annotator_corpus(project, annotator, gold_standard)
    texts = {text.text for text in work.texts}
    documents = [
        pk for pk, text in stored.gold_document_ids_in_order(gold_standard) if text in texts
    ]
    gold = stored.restrict(stored.gold_corpus(gold_standard), texts)
    report = score_annotator(
        gold,
        work,
        levels=levels,
        average=average,
        mapping=stored.taxonomy_mapping(project.taxonomy),
    )
    return report, documents


def annotators_of(gold_standard: GoldStandard) -> list[AbstractBaseUser]:
    """Users with a submitted annotation on a document of the version, by username."""
    submitted = Annotation.objects.filter(
        status=Annotation.Status.SUBMITTED,
        document_id__in=stored.gold_document_ids(gold_standard),
    ).values("annotator_id")
    return list(get_user_model().objects.filter(pk__in=submitted).order_by("username"))


def common_documents(gold_standard: GoldStandard, annotator_ids: Sequence[int]) -> list[int]:
    """The version's documents that every one of the annotators submitted."""
    if not annotator_ids:
        return []
    rows = (
        Annotation.objects.filter(
            status=Annotation.Status.SUBMITTED,
            annotator_id__in=annotator_ids,
            document_id__in=stored.gold_document_ids(gold_standard),
        )
        .values("document_id")
        .annotate(n=Count("annotator_id", distinct=True))
        .filter(n=len(set(annotator_ids)))
        .order_by("document_id")
    )
    return [row["document_id"] for row in rows]


def _headline(report: Report) -> dict[str, dict[str, float]]:
    return {
        str(level): {metric: getattr(scores, metric) for metric in HEADLINE}
        for level, scores in sorted(report.levels.items())
    }


def annotator_agreement(
    *,
    gold_standard: GoldStandard,
    levels: Sequence[int] = LEVELS,
    average: str = "text",
) -> dict[str, Any]:
    """Annotators against each other and against the gold (see the module docstring)."""
    project = gold_standard.project
    mapping = stored.taxonomy_mapping(project.taxonomy)
    annotators = annotators_of(gold_standard)
    document_ids = common_documents(gold_standard, [user.pk for user in annotators])
    result: dict[str, Any] = {
        "gold_standard": gold_standard.pk,
        "profile": "paper",
        "average": average,
        "mapping": mapping.name,
        "annotators": [{"id": user.pk, "username": user.get_username()} for user in annotators],
        "documents": len(document_ids),
        "pairs": [],
        "vs_gold": [],
    }
    if not document_ids:
        return result
    corpora = {
        user.get_username(): stored.annotator_corpus(project, user, document_ids=document_ids)
        for user in annotators
    }
    ids = {user.get_username(): user.pk for user in annotators}
    # headline figures only: no per-label tables, no bootstrap interval in a request
    options = {
        "levels": levels,
        "average": average,
        "mapping": mapping,
        "details": False,
        "bootstrap_resamples": 0,
    }
    if len(corpora) > 1:
        agreement = pairwise_agreement(corpora, **options)
        result["pairs"] = [
            {
                "reference": {"id": ids[reference], "username": reference},
                "scored": {"id": ids[scored], "username": scored},
                "levels": _headline(report),
            }
            for reference, row in agreement.reports.items()
            for scored, report in row.items()
        ]
    texts = [gold.text for gold in next(iter(corpora.values())).texts]
    gold = stored.restrict(stored.gold_corpus(gold_standard), texts)
    result["vs_gold"] = [
        {
            "annotator": {"id": ids[name], "username": name},
            "levels": _headline(score_annotator(gold, corpus, **options)),
        }
        for name, corpus in corpora.items()
    ]
    return result


def run_progress(run: ModelRun) -> progress.Progress:
    """A running run's phase and ETA (``runs.progress``); earlier runs of the same backend
    and model give the figures it has not measured yet (its load, its time per request)."""
    if run.status != ModelRun.Status.RUNNING or not run.total:
        return progress.Progress(None, None)
    earlier = (
        ModelRun.objects.filter(backend=run.backend, model_name=run.model_name, generated__gt=0)
        .exclude(pk=run.pk)
        .order_by("-created_at")
        .values_list("generated", "generation_seconds", "environment")[:5]
    )
    per_request: float | None = None
    load: float | None = None
    for generated, seconds, environment in earlier:
        if per_request is None and seconds > 0:
            per_request = seconds / generated
        if load is None:
            load = progress.load_seconds_of(environment or {})
    running = run.run_shards.filter(status=RunShard.Status.RUNNING).count()
    return progress.estimate(
        environment=run.environment or {},
        remaining=run.total - run.done,
        generated=run.generated,
        generation_seconds=run.generation_seconds,
        running_shards=running,
        now=timezone.now(),
        earlier_per_request=per_request,
        earlier_load=load,
    )
