"""What a runner process writes while it generates.

Concurrency contract: every write is idempotent, so shards working on one run at the same
time, and a runner restarted after a crash, never duplicate or lose an output:
- ``GenerationCache`` rows are inserted with ``ignore_conflicts`` on their unique key (the
  first writer wins; both wrote the same request's output);
- ``RunOutput`` rows likewise on (run, document, unit);
- counters are recomputed from the rows (``done``) or added atomically (``generated``,
  ``generation_seconds`` with ``F()``), never read-modify-written.
Each batch is one transaction: a runner killed mid-batch leaves the previous batches
whole and nothing of the current one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import F

from evaluation.backends import GenerationResult
from evaluation.benchmarks import UnitPrompt
from evaluation.models import GenerationCache, ModelRun, RunOutput


@dataclass(frozen=True)
class PendingUnit:
    """A request of the run with its key and how its answer will be read."""

    unit: UnitPrompt
    key: str


def outputs_for(
    run: ModelRun,
    units: Sequence[PendingUnit],
    outputs: dict[str, tuple[str, float]],
    *,
    from_cache: bool,
    answer_of,
    labels_of,
) -> list[RunOutput]:
    rows = []
    for pending in units:
        if pending.key not in outputs:
            continue
        raw, seconds = outputs[pending.key]
        answer = answer_of(raw)
        rows.append(
            RunOutput(
                run=run,
                document_id=pending.unit.document_id,
                unit_index=pending.unit.unit_index,
                unit_text=pending.unit.unit_text,
                raw_output=raw,
                prompt=pending.unit.prompt,
                answer=None if answer == raw else answer,
                parsed_labels=labels_of(answer),
                cache_key=pending.key,
                from_cache=from_cache,
                seconds=seconds,
            )
        )
    return rows


def _refresh_done(run: ModelRun) -> None:
    ModelRun.objects.filter(pk=run.pk).update(done=RunOutput.objects.filter(run=run).count())


@transaction.atomic
def record_cached(*, run: ModelRun, rows: Iterable[RunOutput]) -> int:
    """Outputs served from the cache (no request sent)."""
    created = RunOutput.objects.bulk_create(list(rows), ignore_conflicts=True, batch_size=500)
    _refresh_done(run)
    return len(created)


def cache_results(
    *,
    results: Sequence[GenerationResult],
    backend: str,
    model_name: str,
    run: ModelRun | None = None,
) -> None:
    """Fresh generations into the cache (the first writer of a key wins)."""
    GenerationCache.objects.bulk_create(
        [
            GenerationCache(
                key=result.key,
                output=result.output,
                backend=backend,
                model_name=model_name[:255],
                seconds=result.seconds,
                run=run,
            )
            for result in results
        ],
        ignore_conflicts=True,
        batch_size=500,
    )


@transaction.atomic
def record_generated(
    *,
    run: ModelRun,
    results: Sequence[GenerationResult],
    rows: Iterable[RunOutput],
    backend: str,
    model_name: str,
) -> None:
    """One batch of fresh generations: the cache rows, the run's outputs, the counters."""
    cache_results(results=results, backend=backend, model_name=model_name, run=run)
    RunOutput.objects.bulk_create(list(rows), ignore_conflicts=True, batch_size=500)
    ModelRun.objects.filter(pk=run.pk).update(
        generated=F("generated") + len(results),
        generation_seconds=F("generation_seconds") + sum(r.seconds for r in results),
    )
    _refresh_done(run)


@transaction.atomic
def record_environment(*, run: ModelRun, shard: int, environment: dict[str, Any]) -> None:
    """Merge one runner's environment into the run's record (keyed by shard)."""
    run = ModelRun.objects.select_for_update().get(pk=run.pk)
    run.environment = {**run.environment, f"shard {shard}": environment}
    run.save(update_fields=["environment"])
