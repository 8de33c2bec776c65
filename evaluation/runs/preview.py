"""What a launch would send and how long it should take, read before launching.

The request count is the launch's own (``launch.gold_request_count``: one request per
sentence of the chosen texts, per model and variant). The estimate is this machine's
measured speed for the model (``progress.before_launch``): the seconds per request and
model load of the newest earlier run of the same backend and model that generated
anything; no such run, no estimate.
"""

from __future__ import annotations

from dataclasses import dataclass

from annotations.models import GoldStandard
from evaluation.models import ModelRun
from evaluation.runs import progress
from evaluation.runs.launch import gold_request_count, gold_texts

#: Earlier runs read for a model's figures (the newest first).
EARLIER_RUNS = 5


@dataclass(frozen=True)
class ModelEstimate:
    backend: str
    model: str
    seconds: float | None
    per_request_seconds: float | None
    load_seconds: float | None
    measured_by_run: int | None


@dataclass(frozen=True)
class LaunchPreview:
    texts: int
    requests: int
    estimates: list[ModelEstimate]


def earlier_figures(backend: str, model: str) -> tuple[float | None, float | None, int | None]:
    """Seconds per request, model load and the run measured, from earlier runs of the model."""
    earlier = (
        ModelRun.objects.filter(
            backend=backend, model_name=model, generated__gt=0, generation_seconds__gt=0
        )
        .order_by("-created_at")
        .values_list("pk", "generated", "generation_seconds", "environment")[:EARLIER_RUNS]
    )
    per_request: float | None = None
    load: float | None = None
    measured: int | None = None
    for pk, generated, seconds, environment in earlier:
        if per_request is None:
            per_request, measured = seconds / generated, pk
        if load is None:
            load = progress.load_seconds_of(environment or {})
    return per_request, load, measured


def launch_preview(
    *, gold_standard: GoldStandard, limit: int | None, models: list[tuple[str, str]]
) -> LaunchPreview:
    """The texts and requests of one run over ``gold_standard`` and each model's estimate."""
    requests = gold_request_count(gold_standard, limit)
    estimates = []
    for backend, model in models:
        per_request, load, measured = earlier_figures(backend, model)
        seconds = progress.before_launch(requests=requests, per_request=per_request, load=load)
        estimates.append(ModelEstimate(backend, model, seconds, per_request, load, measured))
    return LaunchPreview(len(gold_texts(gold_standard, limit)), requests, estimates)
