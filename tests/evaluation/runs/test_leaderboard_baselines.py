"""Baselines (the random and silent backends) are tagged ``baseline`` on the leaderboard of a
gold version and on an item project's results, so pages never present them as models."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotations.models import Project
from evaluation.backends import ModelSpec
from evaluation.items.leaderboard import item_leaderboard
from evaluation.models import ModelRun
from evaluation.runs.launch import launch_runs
from tests.e2e import seed_item_results as seed
from tests.support.runs import LEADERBOARD, S1, build_world, client_for, finish, launched

pytestmark = pytest.mark.django_db


def test_leaderboard_tags_baseline_runs(tmp_path: Path) -> None:
    world = build_world(tmp_path)
    drawn = finish(launched(world), {S1: "ad hominem"})
    [silent] = launch_runs(
        project=world.project,
        gold_standard=world.gold,
        models=[ModelSpec("silent", "")],
        variants=[world.zero_shot],
        created_by=world.admin,
        enqueue=False,
    )
    silent = finish(silent, {})
    rows = client_for(world.reviewer).get(LEADERBOARD, {"gold_standard": world.gold.pk}).json()
    tags = {(row["kind"], row["name"]): row["baseline"] for row in rows["rows"]}
    assert tags == {
        ("run", drawn.name): True,  # random labels
        ("run", silent.name): True,  # no answer
        ("run", "published"): False,  # an imported model's outputs
        ("annotator", "annotator"): False,
    }


def test_item_results_tag_baseline_runs() -> None:
    flub = seed.build()
    project = Project.objects.get(pk=flub["project"])
    before = item_leaderboard(project=project)["rows"]
    assert not any(row["baseline"] for row in before)
    ModelRun.objects.filter(pk=flub["runs"]["answer/zero-shot"]).update(backend="silent")
    rows = item_leaderboard(project=project)["rows"]
    silent = [row for row in rows if row["backend"] == "silent"]
    assert silent and all(row["baseline"] for row in silent)
    assert not any(row["baseline"] for row in rows if row["backend"] != "silent")
