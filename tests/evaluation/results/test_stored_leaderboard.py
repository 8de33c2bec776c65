"""Stored gold leaderboards: served from the stored board while the inputs are unchanged,
computed again (equal to a fresh computation) when a run, a score or a person's work
changes; warmed when a run is scored (a failure to warm never fails the run)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from fallacy_platform import celery_app

from annotations.models import Span
from evaluation import results
from evaluation.models import ModelRun, RunScore, StoredBoard
from evaluation.results import gold_results_json
from evaluation.results.store import render
from evaluation.runs import services
from evaluation.runs.leaderboard import leaderboard
from tests.support.runs import LEADERBOARD, S1, World, build_world, client_for, finish, launched

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(tmp_path: Path) -> World:
    return build_world(tmp_path)


@pytest.fixture
def computed(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The gold versions whose leaderboard was computed, in order."""
    calls: list[int] = []
    compute = results.leaderboard

    def counting(*, gold_standard, **query: object) -> dict:
        calls.append(gold_standard.pk)
        return compute(gold_standard=gold_standard, **query)

    monkeypatch.setattr(results, "leaderboard", counting)
    return calls


def served(world: World, profile: str = "paper") -> dict:
    return json.loads(gold_results_json(gold_standard=world.gold, profile=profile))


def fresh(world: World, profile: str = "paper") -> dict:
    return json.loads(render(leaderboard(gold_standard=world.gold, profile=profile)))


def names(board: dict) -> list[str]:
    return [row["name"] for row in board["rows"]]


def test_the_stored_leaderboard_equals_a_fresh_one(world: World, computed: list[int]) -> None:
    served(world)  # may score the imported run on first sight: then its inputs moved
    settled = served(world)
    assert set(names(settled)) == {"published", "annotator"}
    assert settled == fresh(world)
    count = len(computed)
    assert served(world) == settled
    assert len(computed) == count and set(computed) == {world.gold.pk}
    assert served(world, "mafalda-2024") == fresh(world, "mafalda-2024")


def test_runs_scores_and_people_are_inputs(world: World, computed: list[int]) -> None:
    served(world), served(world)
    count = len(computed)

    def recomputed() -> dict:
        nonlocal count
        board = served(world)
        assert len(computed) == count + 1 and board == fresh(world)
        count += 1
        return board

    run = finish(launched(world), {S1: "ad hominem"})
    assert run.name in names(recomputed())
    RunScore.objects.filter(run=run).delete()
    assert run.name not in names(recomputed())
    span = Span.objects.filter(annotation__annotator=world.annotator).first()
    span.labels = ["appeal to fear"]
    span.save()
    recomputed()
    Span.objects.filter(annotation__annotator=world.annotator).delete()
    recomputed()


def test_another_projects_run_does_not_recompute(world: World, computed: list[int]) -> None:
    served(world), served(world)
    stored = StoredBoard.objects.get(scope=world.gold.pk, kind="gold")
    other = ModelRun.objects.create(
        project=world.other, gold_standard=world.other_gold, name="elsewhere", status="done"
    )
    RunScore.objects.create(run=other, gold_standard=world.other_gold, profile="paper", report={})
    served(world)
    assert len(computed) == 2
    assert StoredBoard.objects.get(pk=stored.pk).computed_at == stored.computed_at


def test_a_warm_read_costs_a_few_queries(world: World) -> None:
    client = client_for(world.reviewer)
    url = f"{LEADERBOARD}?gold_standard={world.gold.pk}"

    def warm() -> int:
        client.get(url), client.get(url)
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url)
        assert response.status_code == 200
        assert response.json() == fresh(world)
        return len(queries)

    before = warm()
    for _ in range(3):
        finish(launched(world), {S1: "ad hominem"})
    assert warm() == before <= 20
    csv = client.get(url + "&format=csv")
    assert csv.status_code == 200 and csv.content.decode().count("\n") == 6  # header + 5 rows


def scoring(world: World) -> ModelRun:
    run = finish(launched(world), {S1: "ad hominem"})
    ModelRun.objects.filter(pk=run.pk).update(status=ModelRun.Status.SCORING)
    return run


def test_scoring_a_run_warms_its_leaderboard(
    world: World, computed: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(services, "warm_boards", results.warm_run_boards)
    run = scoring(world)
    assert services.complete_scoring(run_id=run.pk).status == ModelRun.Status.DONE
    warmed = len(computed)
    assert warmed >= 1
    assert run.name in names(served(world))
    assert len(computed) == warmed  # the first read after scoring is the stored board


@pytest.fixture
def eager_celery():
    """Tasks sent through ``dispatch`` run in-process (this test only; no broker)."""
    before = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True
    yield
    celery_app.conf.task_always_eager = before


def test_the_scoring_task_queues_the_warming_task(
    world: World, computed: list[int], eager_celery: None
) -> None:
    run = scoring(world)
    assert services.complete_scoring(run_id=run.pk).status == ModelRun.Status.DONE
    stored = StoredBoard.objects.get(kind="gold", scope=world.gold.pk, query_text__contains="paper")
    warmed = len(computed)
    assert served(world) == json.loads(stored.body) == fresh(world)
    assert len(computed) == warmed


def test_a_failure_to_warm_never_fails_the_run(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(run: ModelRun) -> None:
        raise RuntimeError("no boards today")

    monkeypatch.setattr(results, "_warm", broken)
    monkeypatch.setattr(services, "warm_boards", results.warm_run_boards)
    run = scoring(world)
    assert services.complete_scoring(run_id=run.pk).status == ModelRun.Status.DONE
    assert served(world) == fresh(world)  # and the database is still usable


def test_a_renamed_run_or_annotator_is_seen(world: World, computed: list[int]) -> None:
    run = finish(launched(world), {S1: "ad hominem"})
    served(world), served(world)
    count = len(computed)
    ModelRun.objects.filter(pk=run.pk).update(name="renamed run")
    assert "renamed run" in names(served(world)) and len(computed) == count + 1
    type(world.annotator).objects.filter(pk=world.annotator.pk).update(username="renamed")
    board = served(world)
    assert "renamed" in names(board) and len(computed) == count + 2
    assert board == fresh(world)
