"""The liveness of a run's scoring and of Prolog generation jobs, on the database (the
pattern of ``tests/evaluation/runs/test_run_liveness.py``): the sweep fails the ones whose
worker stopped writing heartbeats, leaves live and still-queued ones alone, a redelivered task does
not revive a failed one, and the way back works (Resume scores the run; the generation job
launched again sends only what the dead one had no answer for)."""

from __future__ import annotations

import shutil
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone
from fallacy_platform.liveness import sweep

from evaluation.backends import ModelSpec
from evaluation.models import GenerationJob, ModelRun, RunScore
from evaluation.prolog import parse_rule_file
from evaluation.runs.services import complete_scoring, resume_run
from evaluation.synthesis.generation import FACT_PARAMS, _Client, run_job
from evaluation.synthesis.liveness import claim_generation_job
from evaluation.synthesis.prompts import facts_prompt
from evaluation.synthesis.services import launch_generation
from tests.support.generation import TYPE, answer_for, seed
from tests.support.openai_server import openai_server
from tests.support.runs import S1, World, build_world, finish, launched

pytestmark = pytest.mark.django_db
STALE = 90.0


@pytest.fixture
def world(tmp_path: Path) -> World:
    """A project with a two-text gold version (``tests.support.runs``)."""
    return build_world(tmp_path)


@pytest.fixture(autouse=True)
def stale_after(settings) -> None:
    settings.JOB_STALE_SECONDS = STALE


def ago(seconds: float):
    return timezone.now() - timedelta(seconds=seconds)


# --- the scoring stage of a run --------------------------------------------------------------


def scoring_run(world: World, *, beat_seconds_ago: float | None) -> ModelRun:
    """A run whose outputs are all stored, in ``scoring``: its scorer's last heartbeat that
    long ago (None: its scoring task has not started yet)."""
    run = finish(launched(world), {S1: "ad hominem"})
    RunScore.objects.filter(run=run).delete()
    beat = None if beat_seconds_ago is None else ago(beat_seconds_ago)
    ModelRun.objects.filter(pk=run.pk).update(
        status=ModelRun.Status.SCORING, finished_at=None, scoring_heartbeat_at=beat
    )
    return ModelRun.objects.get(pk=run.pk)


def test_the_sweep_fails_a_dead_scoring_and_resume_scores_the_run(
    world: World, django_capture_on_commit_callbacks
) -> None:
    dead = scoring_run(world, beat_seconds_ago=STALE + 5)
    live = scoring_run(world, beat_seconds_ago=1)
    waiting = scoring_run(world, beat_seconds_ago=None)
    sweep()
    sweep()  # idempotent
    dead.refresh_from_db()
    assert dead.status == "failed" and dead.finished_at is not None
    assert "the worker scoring it died" in dead.error and "Resume queues the scoring" in dead.error
    assert ModelRun.objects.get(pk=live.pk).status == "scoring"
    assert ModelRun.objects.get(pk=waiting.pk).status == "scoring"

    # the dead worker's task, redelivered by the broker, does not score a failed run
    assert complete_scoring(run_id=dead.pk).status == "failed"
    assert not RunScore.objects.filter(run=dead).exists()
    # nor one that a live worker scores
    beat = ModelRun.objects.get(pk=live.pk).scoring_heartbeat_at
    assert complete_scoring(run_id=live.pk).status == "scoring"
    assert ModelRun.objects.get(pk=live.pk).scoring_heartbeat_at == beat
    assert not RunScore.objects.filter(run=live).exists()

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        resumed = resume_run(run=dead)
    assert resumed.status == "scoring" and len(callbacks) == 1  # the scoring is queued
    sweep()  # still waiting for its scoring task: left alone
    assert ModelRun.objects.get(pk=dead.pk).status == "scoring"
    scored = complete_scoring(run_id=dead.pk)  # what the queued task does
    assert (scored.status, scored.error, scored.scoring_heartbeat_at) == ("done", "", None)
    report = RunScore.objects.get(run=dead, profile="paper").report
    assert report["levels"]["2"]["f1"] == 1.0


def test_a_redelivered_scoring_task_takes_over_from_a_dead_scorer(world: World) -> None:
    dead = scoring_run(world, beat_seconds_ago=STALE + 5)  # before any sweep found it
    assert complete_scoring(run_id=dead.pk).status == "done"
    assert RunScore.objects.filter(run=dead, profile="paper").exists()


# --- Prolog generation jobs ------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("swipl") is None, reason="SWI-Prolog (swipl) is not installed")
def test_the_sweep_fails_a_dead_generation_job_and_launching_it_again_finishes(tmp_path) -> None:
    seed()
    with openai_server(answer=answer_for(tmp_path / "m")) as server:
        spec = ModelSpec("openai", "test-model", {"base_url": server.base_url})

        def launch() -> GenerationJob:
            return launch_generation(
                project_name="Generated", type_name=TYPE, model=spec, n=20, enqueue=False
            )

        dead, live, queued = launch(), launch(), launch()
        for job in (dead, live):
            assert claim_generation_job(job_id=job.pk)
        dead.refresh_from_db()
        # the dead worker's first request was answered (and cached) before it was killed
        _Client(dead).ask([facts_prompt(parse_rule_file(dead.rule.source), dead.n)], FACT_PARAMS)
        GenerationJob.objects.filter(pk=dead.pk).update(heartbeat_at=ago(STALE + 5))
        sweep()
        sweep()  # idempotent
        dead.refresh_from_db()
        assert dead.status == "failed" and dead.finished_at is not None
        assert "the worker running it died" in dead.error and "launch it again" in dead.error
        assert GenerationJob.objects.get(pk=live.pk).status == "running"
        assert GenerationJob.objects.get(pk=queued.pk).status == "queued"

        # redelivered tasks: a failed job stays failed, a live one is left to its worker
        assert run_job(dead.pk).status == "failed"
        assert run_job(live.pk).status == "running"
        assert len(server.completion_requests()) == 1

        again = run_job(launch().pk)  # launched again
        assert again.status == "done", again.error
        assert (again.from_cache, again.requests_sent) == (1, 2 + 6)
        assert again.items_kept == 2

        # a task redelivered before the sweep found its worker dead takes the job over
        GenerationJob.objects.filter(pk=live.pk).update(heartbeat_at=ago(STALE + 5))
        taken = run_job(live.pk)
        assert taken.status == "done" and taken.requests_sent == 0
