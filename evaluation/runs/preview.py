"""What a launch would send and how long it should take, read before launching.

The request count is the launch's own (``launch.gold_request_count``: one request per
sentence of the chosen texts, per model and variant). The estimate is this machine's
measured speed for the model (``progress.before_launch``): the seconds per request and
start-up and model load of the newest earlier run of the same backend and model that
generated anything. Before a first run of the built-in SmolLM2 (the demo's preselected
model) its typical figures on a 2-core CPU stand in (``TYPICAL``: pessimistic, so that the
first measured batch lowers the ETA rather than raises it; ``measured_by_run`` is then
None); any other model without an earlier run has no estimate. A queued or running run's
ETA starts from the same figures (``earlier_figures``, read by ``selectors.run_progress``)
until its first batch is measured.
"""

from __future__ import annotations

from dataclasses import dataclass

from annotations.models import GoldStandard
from evaluation.backends.registry import SMOLLM2_NAME
from evaluation.models import ModelRun
from evaluation.runs import progress
from evaluation.runs.launch import gold_request_count, gold_texts

#: Earlier runs read for a model's figures (the newest first).
EARLIER_RUNS = 5

#: (seconds per request, start-up and model load) of models never run here yet: SmolLM2
#: with the launch page's defaults (batches of 4, 24 new tokens) on a 2-core CPU shared with
#: other work (one prompt at a time alone: 6 s, ``backends.shared_prefix``'s figure).
TYPICAL: dict[tuple[str, str], tuple[float, float]] = {("transformers", SMOLLM2_NAME): (10.0, 60.0)}


@dataclass(frozen=True)
class ModelEstimate:
    backend: str
    model: str
    seconds: float | None
    per_request_seconds: float | None
    #: the runner's start-up and model load
    load_seconds: float | None
    measured_by_run: int | None


@dataclass(frozen=True)
class LaunchPreview:
    texts: int
    requests: int
    estimates: list[ModelEstimate]


def earlier_figures(
    backend: str, model: str, *, exclude: int | None = None
) -> tuple[float | None, float | None, int | None]:
    """Seconds per request, start-up and model load (``progress.ready_seconds_of``) and the
    run measured, from earlier runs of the model (``exclude``: a run's own pk), else its
    ``TYPICAL`` figures (no run measured)."""
    earlier = ModelRun.objects.filter(
        backend=backend, model_name=model, generated__gt=0, generation_seconds__gt=0
    )
    if exclude is not None:
        earlier = earlier.exclude(pk=exclude)
    rows = earlier.order_by("-created_at").values_list(
        "pk", "generated", "generation_seconds", "environment"
    )[:EARLIER_RUNS]
    per_request: float | None = None
    ready: float | None = None
    measured: int | None = None
    for pk, generated, seconds, environment in rows:
        if per_request is None:
            per_request, measured = seconds / generated, pk
        if ready is None:
            ready = progress.ready_seconds_of(environment or {})
    if per_request is None and (backend, model) in TYPICAL:
        per_request, ready = TYPICAL[backend, model]
    return per_request, ready, measured


def launch_preview(
    *, gold_standard: GoldStandard, limit: int | None, models: list[tuple[str, str]]
) -> LaunchPreview:
    """The texts and requests of one run over ``gold_standard`` and each model's estimate."""
    requests = gold_request_count(gold_standard, limit)
    estimates = []
    for backend, model in models:
        per_request, ready, measured = earlier_figures(backend, model)
        seconds = progress.before_launch(requests=requests, per_request=per_request, ready=ready)
        estimates.append(ModelEstimate(backend, model, seconds, per_request, ready, measured))
    return LaunchPreview(len(gold_texts(gold_standard, limit)), requests, estimates)
