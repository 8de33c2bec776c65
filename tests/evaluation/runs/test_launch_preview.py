"""``GET /api/evaluation/launch-preview/``: the requests a launch would send and each
model's estimated time on this machine, before launching (``tests.support.runs``' world: a
two-text gold version, three sentences, the first text two of them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluation.backends.registry import SMOLLM2_NAME
from evaluation.models import ModelRun
from evaluation.runs.preview import TYPICAL
from tests.support.runs import BASE, World, build_world, client_for, launched

pytestmark = pytest.mark.django_db

PREVIEW = f"{BASE}/launch-preview/"


@pytest.fixture
def world(tmp_path: Path) -> World:
    return build_world(tmp_path)


def test_requests_are_the_sentences_of_the_chosen_texts(world: World) -> None:
    client = client_for(world.admin)
    whole = client.get(PREVIEW, {"gold_standard": world.gold.pk}).json()
    assert (whole["texts"], whole["requests"]) == (2, 3)
    first = client.get(PREVIEW, {"gold_standard": world.gold.pk, "limit": 1}).json()
    assert (first["texts"], first["requests"]) == (1, 2)
    # the launch counts the same requests
    assert launched(world, limit=1).total == first["requests"]


def test_no_estimate_before_a_first_run_of_the_model(world: World) -> None:
    answer = client_for(world.admin).get(
        PREVIEW, {"gold_standard": world.gold.pk, "model": "transformers:SmolLM2-135M"}
    )
    assert answer.status_code == 200
    [estimate] = answer.json()["estimates"]
    assert estimate["backend"] == "transformers"
    assert estimate["model"] == "SmolLM2-135M"
    assert estimate["seconds"] is None
    assert estimate["measured_by_run"] is None


def test_estimate_from_the_models_measured_speed_and_load(world: World) -> None:
    earlier = launched(world)
    ModelRun.objects.filter(pk=earlier.pk).update(
        status=ModelRun.Status.DONE,
        generated=4,
        generation_seconds=2.0,
        environment={"shard 0": {"phase": "generating", "load_seconds": 1.5}},
    )
    answer = client_for(world.reviewer).get(
        PREVIEW, {"gold_standard": world.gold.pk, "model": ["random:", "silent:"]}
    )
    assert answer.status_code == 200
    random, silent = answer.json()["estimates"]
    # 3 requests x 0.5 s + the 1.5 s load
    assert random["seconds"] == pytest.approx(3.0)
    assert random["per_request_seconds"] == pytest.approx(0.5)
    assert random["load_seconds"] == pytest.approx(1.5)
    assert random["measured_by_run"] == earlier.pk
    assert silent["seconds"] is None


def test_the_demo_model_has_a_typical_estimate_before_its_first_run(world: World) -> None:
    """The launch page's preselected SmolLM2: its typical figures, marked as not measured."""
    model = f"transformers:{SMOLLM2_NAME}"
    answer = client_for(world.admin).get(PREVIEW, {"gold_standard": world.gold.pk, "model": model})
    [estimate] = answer.json()["estimates"]
    per_request, ready = TYPICAL["transformers", SMOLLM2_NAME]
    assert estimate["seconds"] == pytest.approx(3 * per_request + ready)
    assert estimate["measured_by_run"] is None


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({}, "gold_standard"),
        ({"limit": "0"}, "limit"),
        ({"limit": "two"}, "limit"),
        ({"model": "gpu:smol"}, "model[0]"),
    ],
)
def test_bad_queries_name_the_parameter(world: World, query: dict, field: str) -> None:
    params = {"gold_standard": world.gold.pk, **query} if field != "gold_standard" else {}
    answer = client_for(world.admin).get(PREVIEW, params)
    assert answer.status_code == 400
    assert field in answer.json()


@pytest.mark.parametrize("who", ["annotator", "outsider"])
def test_a_gold_version_not_reviewed_is_404(world: World, who: str) -> None:
    answer = client_for(getattr(world, who)).get(PREVIEW, {"gold_standard": world.gold.pk})
    assert answer.status_code == 404
