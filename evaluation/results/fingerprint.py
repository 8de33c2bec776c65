"""The inputs fingerprint of a board: a sha256 that changes whenever an input changes.

Each part is one query, most of them an aggregate (count, id sum, revision sum, latest
timestamp) over the rows a board reads, so a read costs the same few queries whatever the
number of runs, outputs or annotations:

- runs: the finished runs (a run added, deleted, finished, rescored or failed changes
  their count, id sum or latest ``finished_at``); their stored reports (``RunScore``:
  count, id sum, latest ``computed_at``, which every ``update_or_create`` moves). A done
  run's outputs change only when it is scored again, which rewrites its reports;
- people: the submitted annotations (count, id sum, revision sum, annotator id sum, latest
  ``updated_at``) and, for a gold leaderboard, their spans (count, id sum, latest
  ``updated_at``);
- items: the project's documents (count, id sum, latest ``updated_at``: an answer key or
  position edited moves it);
- the project's name, kind, form and taxonomy (its nodes, read whole: a taxonomy has tens
  of nodes), and for a gold leaderboard the version's status and its documents (count, id
  sum, revision sum, latest ``updated_at``: every adjudication save bumps them) and spans;
- the names a board prints, read whole (one query each, a row per run or annotator): the
  finished runs' names, models and prompt variants, the annotators' usernames (an operator
  renaming one in the admin moves no timestamp).

``BOARD_VERSION`` is part of every fingerprint: bump it when a board's body changes shape,
so that boards stored by an older version are recomputed.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Count, Max, QuerySet, Sum

from annotations.models import (
    Annotation,
    Document,
    GoldDocument,
    GoldSpan,
    GoldStandard,
    Project,
    Span,
    TaxonomyNode,
)
from evaluation.models import ModelRun, RunScore

BOARD_VERSION = "boards-2026-11-29"


def _state(queryset: QuerySet, **extra: Any) -> list[Any]:
    """Count, id sum and the given aggregates of a queryset (one query), as JSON values."""
    found = queryset.aggregate(n=Count("id"), ids=Sum("id"), **extra)
    return [
        value.isoformat() if hasattr(value, "isoformat") else value
        for _, value in sorted(found.items())
    ]


def _taxonomy(project: Project) -> list[Any]:
    nodes = TaxonomyNode.objects.filter(taxonomy_id=project.taxonomy_id).order_by("id")
    rows = nodes.values_list("id", "parent_id", "level", "name", "aliases", "position")
    return [project.taxonomy.name if project.taxonomy_id else None, list(rows)]


def _project(project: Project) -> dict[str, Any]:
    documents = Document.objects.filter(project=project)
    submitted = Annotation.objects.filter(
        document__project=project, status=Annotation.Status.SUBMITTED
    )
    annotators = (
        get_user_model()
        .objects.filter(pk__in=submitted.values("annotator_id"))
        .order_by("pk")
        .values_list("pk", "username")
    )
    return {
        "project": [project.pk, project.name, project.kind, project.form],
        "taxonomy": _taxonomy(project),
        "documents": _state(documents, last=Max("updated_at")),
        "annotations": _state(
            submitted,
            revisions=Sum("revision"),
            annotators=Sum("annotator_id"),
            last=Max("updated_at"),
        ),
        "annotator_names": [list(row) for row in annotators],
    }


def _run_names(finished: QuerySet) -> list[list[Any]]:
    rows = finished.order_by("pk").values_list(
        "pk",
        "name",
        "model_name",
        "prompt_variant__name",
        "prompt_variant__version",
        "prompt_variant__kind",
        "prompt_variant__shots",
    )
    return [list(row) for row in rows]


def _digest(parts: dict[str, Any]) -> str:
    payload = json.dumps({"version": BOARD_VERSION, **parts}, sort_keys=True, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()


def item_inputs(project: Project) -> str:
    """The fingerprint of an item project's results (7 queries)."""
    finished = ModelRun.objects.filter(project=project, status=ModelRun.Status.DONE)
    scores = RunScore.objects.filter(run__project=project)
    return _digest(
        {
            **_project(project),
            "runs": _state(finished, last=Max("finished_at")),
            "run_names": _run_names(finished),
            "scores": _state(scores, last=Max("computed_at")),
        }
    )


def gold_inputs(gold: GoldStandard) -> str:
    """The fingerprint of a gold version's leaderboard (11 queries)."""
    project = gold.project
    finished = ModelRun.objects.filter(gold_standard=gold, status=ModelRun.Status.DONE)
    scores = RunScore.objects.filter(gold_standard=gold)
    spans = Span.objects.filter(
        annotation__document__project=project, annotation__status=Annotation.Status.SUBMITTED
    )
    status = GoldStandard.objects.filter(pk=gold.pk).values_list("status", "version").first()
    return _digest(
        {
            **_project(project),
            "gold": [gold.pk, status],
            "gold_documents": _state(
                GoldDocument.objects.filter(gold_standard=gold),
                revisions=Sum("revision"),
                last=Max("updated_at"),
            ),
            "gold_spans": _state(GoldSpan.objects.filter(gold_standard=gold)),
            "spans": _state(spans, last=Max("updated_at")),
            "runs": _state(finished, last=Max("finished_at")),
            "run_names": _run_names(finished),
            "scores": _state(scores, last=Max("computed_at")),
        }
    )
