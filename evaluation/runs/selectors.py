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
from django.db.models import Count, Max, QuerySet
from django.utils import timezone

from annotations.models import Annotation, GoldStandard
from evaluation.backends.registry import SMOLLM2_NAME, registry
from evaluation.models import ModelRun, RunShard
from evaluation.runs import preview, progress, stored
from evaluation.runs.scored import score_stored
from evaluation.scoring import Report, pairwise_agreement, score_annotator

LEVELS: tuple[int, ...] = (0, 1, 2)
HEADLINE = ("precision", "recall", "f1")


def with_counts(runs: QuerySet[ModelRun]) -> QuerySet[ModelRun]:
    """Annotate ``outputs_count`` and ``documents_count`` (one query for a page)."""
    return runs.select_related("created_by").annotate(
        outputs_count=Count("outputs"),
        documents_count=Count("outputs__document", distinct=True),
    )


def score_run(
    *,
    gold_standard: GoldStandard,
    run: ModelRun,
    profile: str = "paper",
    levels: Sequence[int] = LEVELS,
    parser: str | None = None,
    average: str = "text",
) -> Report:
    """A stored run scored against a gold version (``scored.score_stored``: the project's
    taxonomy, the texts the coverage rule gives)."""
    return score_stored(
        gold_standard=gold_standard,
        run=run,
        profile=profile,
        levels=levels,
        parser=parser,
        average=average,
    ).report


def score_stored_annotator(
    *,
    gold_standard: GoldStandard,
    annotator: AbstractBaseUser,
    levels: Sequence[int] = LEVELS,
    average: str = "text",
) -> Report:
    """An annotator's submitted annotations scored against a gold version, on the
    version's documents they submitted (profile ``paper``)."""
    return score_stored(
        gold_standard=gold_standard, annotator=annotator, levels=levels, average=average
    ).report


def score_stored_annotator_report(
    *, gold_standard: GoldStandard, annotator: AbstractBaseUser, levels: Sequence[int] = LEVELS
) -> dict[str, Any]:
    """``score_stored_annotator``'s report (``text`` average) with ``coverage`` and its
    ``per_text`` F1."""
    found = score_stored(gold_standard=gold_standard, annotator=annotator, levels=levels)
    return found.to_dict(per_text=True)


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
    """A queued or running run's phase and ETA (``runs.progress``); before its first batch
    the figures of the launch preview (``preview.earlier_figures``) stand for what it has not
    measured yet."""
    if run.status not in ModelRun.ACTIVE or run.status == ModelRun.Status.SCORING or not run.total:
        return progress.Progress(None, None)
    per_request, ready, _ = preview.earlier_figures(run.backend, run.model_name, exclude=run.pk)
    running = run.run_shards.filter(status=RunShard.Status.RUNNING).count()
    last_batch = None
    if run.generated:
        last_batch = run.outputs.filter(from_cache=False).aggregate(at=Max("created_at"))["at"]
    return progress.estimate(
        environment=run.environment or {},
        remaining=run.total - run.done,
        generated=run.generated,
        generation_seconds=run.generation_seconds,
        running_shards=running or (run.shards if run.status != ModelRun.Status.RUNNING else 1),
        now=timezone.now(),
        started_at=run.started_at,
        last_batch_at=last_batch,
        earlier_per_request=per_request,
        earlier_ready=ready,
        batch_size=batch_size_of(run),
    )


def batch_size_of(run: ModelRun) -> int | None:
    """The requests a batch of the run sends, when its settings say (else the backend's
    default, unknown here)."""
    size = ((run.config or {}).get("settings") or {}).get("batch_size")
    return size if isinstance(size, int) and size > 0 else None


def suggested_models() -> list[dict[str, Any]]:
    """Models to offer: the operator's registered models by name (``backends.registry``:
    the packaged SmolLM2 first, when installed), each on its first backend, then the two
    baselines. No path is shown; nothing is imported (no torch)."""
    entries = sorted(registry().values(), key=lambda e: (e.name != SMOLLM2_NAME, e.name))
    models = [
        {
            "label": f"{entry.name} ({entry.backends[0]})",
            "backend": entry.backends[0],
            "model": entry.name,
            # small batches: on a laptop's CPU the progress bar moves every few seconds
            "settings": {"batch_size": 4} if entry.name == SMOLLM2_NAME else {},
        }
        for entry in entries
    ]
    models += [
        {"label": "Random baseline", "backend": "random", "model": "", "settings": {}},
        {"label": "Silent baseline (no answer)", "backend": "silent", "model": "", "settings": {}},
    ]
    return models
