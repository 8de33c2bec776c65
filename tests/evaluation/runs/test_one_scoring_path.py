"""One scoring path: ``manage.py score``, ``manage.py results``, the leaderboard API and
``POST /api/evaluation/score/`` give the same figures and the same coverage for a full run,
a run limited to part of the gold, an imported run covering part of it and a run on a
project's own (non-MAFALDA) taxonomy; the paired test under ``authors-smartypat`` runs over
the items its S is scored on; ``results --compare`` takes a run's name or id."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from evaluation.models import ModelRun
from evaluation.runs.imports import import_run
from evaluation.runs.leaderboard import leaderboard, to_latex
from tests.support.runs import (
    BASE,
    LEADERBOARD,
    answered_run,
    client_for,
    custom_taxonomy_project,
    numbered_text,
    twenty_text_world,
    write_jsonl,
)
from tests.support.scoring_entry_points import LEVELS, command_json, level_figures

pytestmark = pytest.mark.django_db
SCORE = f"{BASE}/score/"


def _four_ways(project: str, gold: Any, run: ModelRun, admin: Any) -> list[tuple[Any, Any]]:
    """(figures, coverage) of the run from the four entry points."""
    scored = command_json("score", f"gold:{project}@{gold.version}", f"run:{project}/{run.name}")
    [row] = [r for r in command_json("results", "--project", project) if r["id"] == run.pk]
    client = client_for(admin)
    board = client.get(LEADERBOARD, {"gold_standard": gold.pk}).json()
    [api_row] = [r for r in board["rows"] if r["kind"] == "run" and r["id"] == run.pk]
    posted = client.post(SCORE, {"gold_standard": gold.pk, "run": run.pk}, format="json")
    assert posted.status_code == 200, posted.content
    posted = posted.json()
    return [
        (level_figures(scored["levels"]), scored["coverage"]),
        (level_figures(row["levels"]), row["coverage"]),
        (level_figures(api_row["levels"]), api_row["coverage"]),
        (level_figures(posted["levels"]), posted["coverage"]),
    ]


def _same(ways: list[tuple[Any, Any]]) -> tuple[dict[str, tuple[float, ...]], Any]:
    (figures, coverage), *others = ways
    for other_figures, other_coverage in others:
        assert other_coverage == coverage
        for level in LEVELS:
            assert other_figures[level] == pytest.approx(figures[level]), level
    return figures, coverage


def _imported_partial(
    folder: Path, project: Any, gold: Any, texts: list[int], answer: str
) -> ModelRun:
    """An imported run answering ``answer`` on the numbered texts ``texts`` only."""
    path = folder / "partial.jsonl"
    records = [{"text": numbered_text(i), "prediction": {numbered_text(i): answer}} for i in texts]
    return import_run(
        project=project,
        path=write_jsonl(path, records),
        name="four texts",
        model_name="m",
        gold_standard=gold,
    )


def test_full_limited_and_imported_partial_runs_agree_everywhere(tmp_path: Path) -> None:
    world = twenty_text_world(tmp_path)
    project, gold, admin, _ = world
    full = answered_run(world, "full", correct=set(range(0, 20, 3)))
    limited = answered_run(world, "first five", correct={0, 1}, limit=5)
    # the case: 4 of 20 texts answered, all of them wrongly (F1 0 on each)
    imported = _imported_partial(tmp_path, project, gold, [0, 2, 4, 6], "slippery slope")

    figures, coverage = _same(_four_ways(project.name, gold, full, admin))
    assert coverage == {"texts": 20, "of": 20}
    assert figures["2"][2] == pytest.approx(7 / 20)  # texts 0, 3, …, 18 right
    figures, coverage = _same(_four_ways(project.name, gold, limited, admin))
    assert coverage == {"texts": 5, "of": 20}
    assert figures["2"][2] == pytest.approx(2 / 5)
    figures, coverage = _same(_four_ways(project.name, gold, imported, admin))
    assert coverage == {"texts": 4, "of": 20}
    # scored on the 4 texts it answered, not with 16 empty predictions (which would give 0.4)
    assert figures["2"][2] == 0.0 and figures["0"][2] == pytest.approx(1.0)

    out = io.StringIO()
    args = (f"gold:{project.name}", f"run:{project.name}/four texts", "--bootstrap", "0")
    call_command("score", *args, stdout=out)
    assert "coverage 4/20 texts" in out.getvalue()
    out = io.StringIO()
    call_command("results", "--project", project.name, stdout=out)
    assert "four texts  texts 4/20" in out.getvalue()
    # the LaTeX export bolds the best F1 among complete model rows: never the partial one's 1.000
    latex = to_latex(leaderboard(gold_standard=gold)).splitlines()
    [line] = [line for line in latex if line.startswith("four texts (4/20 texts)")]
    assert "1.000" in line and r"\textbf" not in line
    # the complete row is the random backend's: a baseline, marked and never bold either
    # (a complete model row's bold: test_leaderboard_api)
    [line] = [line for line in latex if line.startswith("full (baseline)")]
    assert "0.350" in line and r"\textbf" not in line


def test_a_run_on_a_custom_taxonomy_agrees_everywhere(tmp_path: Path) -> None:
    project, gold, run, admin = custom_taxonomy_project(tmp_path)
    figures, coverage = _same(_four_ways(project.name, gold, run, admin))
    assert coverage == {"texts": 3, "of": 3}
    for level in LEVELS:  # see test_custom_taxonomy_runs: (1 + 1 + 0) / 3 at each level
        assert figures[level][2] == pytest.approx(2 / 3)
    scored = command_json("score", f"gold:{project.name}", f"run:{project.name}/own")
    assert scored["mapping"] == "taxonomy:greek-latin@1"
    with pytest.raises(CommandError, match="mafalda-2024 scores only MAFALDA's taxonomy"):
        command_json("score", f"gold:{project.name}", "run:Own/own", "--profile", "mafalda-2024")


def test_an_annotator_agrees_between_the_command_and_the_apis(tmp_path: Path) -> None:
    from django.contrib.auth.models import User

    from tests.support.runs import annotate_texts

    world = twenty_text_world(tmp_path)
    project, gold, admin, _ = world
    person = User.objects.create_user("person")
    annotate_texts(tmp_path, project, person, {0: "ad hominem", 1: None, 2: "straw man"})
    scored = command_json("score", f"gold:{project.name}", f"annotator:{project.name}/person")
    assert scored["coverage"] == {"texts": 3, "of": 20}
    board = client_for(admin).get(LEADERBOARD, {"gold_standard": gold.pk}).json()
    [row] = [r for r in board["rows"] if r["kind"] == "annotator"]
    body = {"gold_standard": gold.pk, "annotator": person.pk}
    posted = client_for(admin).post(SCORE, body, format="json").json()
    _same(
        [
            (level_figures(scored["levels"]), scored["coverage"]),
            (level_figures(row["levels"]), row["coverage"]),
            (level_figures(posted["levels"]), posted["coverage"]),
        ]
    )
    assert scored["levels"]["2"]["f1"] == pytest.approx(2 / 3)


def test_results_compare_takes_a_run_name_or_id_on_span_projects(tmp_path: Path) -> None:
    world = twenty_text_world(tmp_path)
    one = answered_run(world, "one", correct=set(range(10)))
    two = answered_run(world, "two", correct=set(range(5)))
    by_key = command_json("results", "--project", "Twenty", "--compare", f"run:{one.pk}", "two")
    by_id = command_json("results", "--project", "Twenty", "--compare", str(one.pk), str(two.pk))
    assert by_key == by_id
    assert (by_id["a"]["name"], by_id["b"]["name"]) == ("one", "two")
    assert by_id["test"]["difference"] == pytest.approx(0.25)


def test_item_results_compare_takes_a_run_name_and_smartypat_s_is_tested_on_its_items() -> None:
    from annotations.models import Project
    from tests.e2e import seed_smartypat_results as seed

    project = Project.objects.get(pk=seed.build()["project"])
    runs = {run.name: run for run in ModelRun.objects.filter(project=project)}
    one, two = sorted(name for name in runs if name.endswith(" types"))
    found = command_json("results", "--project", project.name, "--compare", one, two)
    by_id = command_json(
        "results", "--project", project.name, "--compare", str(runs[one].pk), str(runs[two].pk)
    )
    assert found == by_id
    assert (found["a"]["name"], found["b"]["name"]) == ("model-one", "model-two")
    tests = {(t["profile"], t["field"]): t for t in found["tests"]}
    # S under the authors' profile covers the 4 fallacious Bench items, not the 2 benign ones
    authors = tests[("authors-smartypat", "types")]
    assert authors["common_items"] == 4 and authors["test"]["units"] == 4
    # their per-item S: -1, -1, 1, -3.18 and (1 - 1/2), -1, -1, 1 (see the smartypat tests)
    assert authors["test"]["difference"] == pytest.approx((-4.18 - -0.5) / 4)
    assert tests[("definition", "types")]["common_items"] == 6  # sound items score there
