"""The evaluation app's part of a project archive (``annotations.backups``): the project's
model runs, their shards, outputs and scores, and the prompt variants they use. Registered
in ``EvaluationConfig.ready()``.

A restore reuses an identical global (built-in) prompt variant; any other becomes the restored
project's own (one that differs from a variant with its task, name and version under the next
free version, reported).
"""

from __future__ import annotations

from django.db import models
from django.db.models import QuerySet

from annotations.backups.export import ExportError
from annotations.backups.format import PER_ITEM_DOCUMENTS, Part, table_of
from annotations.backups.restore import Importer
from annotations.models import Project
from evaluation import ownership
from evaluation.models import (
    VARIANT_CONTENT_FIELDS,
    ModelRun,
    PromptVariant,
    RunOutput,
    RunScore,
    RunShard,
)

BUILTIN_VARIANT_FIELDS = ("description", "created_by", "created_at")  # the migration's, not data

TABLES = (
    # the owner is the restore's to choose: an identical global variant, else the project
    table_of("prompt_variants", PromptVariant,
           "task name version kind template parser shots seed decoding unparseable "
           "description builtin created_by created_at", skipped="project",
           blank_if="builtin", blanked=BUILTIN_VARIANT_FIELDS),
    table_of("runs", ModelRun,
           "gold_standard name backend model_name task prompt_variant level field judged_run "
           "limit shards config environment status error cancel_requested total done "
           "generated generation_seconds created_by created_at started_at finished_at",
           implicit="project", skipped="scoring_heartbeat_at"),
    table_of("run_shards", RunShard,
           "run index status runner_pid worker attempts error started_at finished_at",
           skipped="heartbeat_at requeues node"),  # the process running it, and its liveness
    table_of("run_outputs", RunOutput,
           "run document unit_index unit_text raw_output prompt answer parsed_labels "
           "cache_key from_cache seconds created_at"),
    table_of("run_scores", RunScore, "run gold_standard profile parser report computed_at",
           json=(("report", PER_ITEM_DOCUMENTS),)),
)  # fmt: skip

NOT_ARCHIVED = (
    ("GenerationCache", "a cache keyed by request hash; run outputs keep every raw output"),
    ("AgreementResult", "a cache of computed figures, recomputed on demand"),
    ("StoredBoard", "stored result boards, computed again on the first read"),
    # archive format 1 predates suggestions: an accepted one is archived as its span; the
    # suggestions, the decisions and the assisted flag are not (a restore is unassisted)
    ("SuggestionSettings", "not in archive format 1: a restored project is unassisted"),
    ("Suggestion", "not in archive format 1: made again from the archived runs"),
    ("SuggestionDecision", "not in archive format 1: accepted ones are archived as spans"),
    ("DocumentDisagreement", "not in archive format 1: computed when suggestions are made"),
    ("SuggestionShown", "not in archive format 1: a restored project is unassisted"),
    # Prolog-checked generation: the items it made are archived as documents
    ("PrologRule", "not in archive format 1: the shipped versions are seeded again"),
    ("GenerationJob", "not in archive format 1: its items are archived as documents"),
    ("GeneratedItem", "not in archive format 1: the item's metadata keeps its generation"),
    ("GenerationRelease", "not in archive format 1: its gold project is archived as a project"),
)


def querysets(project: Project) -> dict[str, QuerySet]:
    return {
        "prompt_variants": PromptVariant.objects.filter(
            pk__in=ModelRun.objects.filter(project=project).values("prompt_variant_id")
        ),
        "runs": ModelRun.objects.filter(project=project),
        "run_shards": RunShard.objects.filter(run__project=project),
        "run_outputs": RunOutput.objects.filter(run__project=project),
        "run_scores": RunScore.objects.filter(run__project=project),
    }


def check(project: Project) -> None:
    """Runs that judge, or are scored against, rows of another project cannot be archived."""
    outside = ModelRun.objects.filter(project=project, judged_run__isnull=False).exclude(
        judged_run__project=project
    )
    if outside.exists():
        run = outside.first()
        raise ExportError(f"run {run.name!r} judges a run of another project")
    scores = RunScore.objects.filter(run__project=project, gold_standard__isnull=False).exclude(
        gold_standard__project=project
    )
    if scores.exists():
        raise ExportError("a run is scored against a gold version of another project")
    runs = ModelRun.objects.filter(project=project, gold_standard__isnull=False).exclude(
        gold_standard__project=project
    )
    if runs.exists():
        raise ExportError(f"run {runs.first().name!r} uses a gold version of another project")


def restore(importer: Importer, project: Project) -> None:
    _prompt_variants(importer, project)
    importer.bulk("runs", {"project": project}, deferred=("judged_run",))
    for name in ("run_shards", "run_outputs", "run_scores"):
        importer.bulk(name)
    active = ModelRun.objects.filter(project=project, status__in=ModelRun.ACTIVE).count()
    if active:
        importer.notes.append(
            f"{active} runs were not finished when exported: restored as they were "
            "(no worker has them here: resume or cancel them)"
        )


def _prompt_variants(importer: Importer, project: Project) -> None:
    """An identical global (built-in) variant is reused; any other becomes the restored
    project's own (a differing one under a version the project sees: the next one)."""
    table = TABLES[0]
    scope = ownership.variants_for(project)
    pks: list[int] = []
    importer.refs.pks[table.name] = pks
    count = 0
    for line, row in importer.rows(table):
        count = line
        skip = BUILTIN_VARIANT_FIELDS if row.get("builtin") is True else ()
        values = importer.decode(table, line, row, skip=skip)
        content = {name: values[name] for name in VARIANT_CONTENT_FIELDS}
        same_key = scope.filter(task=values["task"], name=values["name"], version=values["version"])
        if same_key:
            stored = [
                ({name: getattr(kept, name) for name in VARIANT_CONTENT_FIELDS}, kept.pk)
                for kept in same_key
            ]
            reused = next((pk for fields, pk in stored if fields == content), None)
            if reused is not None:
                pks.append(reused)
                continue
            last = scope.filter(task=values["task"], name=values["name"]).aggregate(
                last=models.Max("version")
            )["last"]
            importer.notes.append(
                f"prompt variant {values['task']}/{values['name']} v{values['version']} "
                f"differs here: created as v{last + 1}"
            )
            values["version"] = last + 1
        created_at = values.pop("created_at", None)
        variant = PromptVariant.objects.create(**values, project=project)
        if created_at is not None:
            PromptVariant.objects.filter(pk=variant.pk).update(created_at=created_at)
        pks.append(variant.pk)
    importer.counts[table.member] = count


PART = Part(
    name="evaluation",
    tables=TABLES,
    querysets=querysets,
    restore=restore,
    check=check,
    not_archived=NOT_ARCHIVED,
)
