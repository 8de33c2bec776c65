"""The scorer interface (``evaluation.scoring.scorer``): a span run and an item run give the
same figures, coverage and profile through every entry point: the report stored by
``runs.services.score_and_store``, the run's scorer (``runs.scorers.run_scorer``),
``manage.py score``, ``POST /api/evaluation/score/``, the Results boards (the leaderboard,
the item leaderboard) and ``manage.py results``. The pure scorers type what they return."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User

from annotations.services.projects import create_project
from evaluation.items.leaderboard import item_leaderboard
from evaluation.models import ModelRun, RunScore
from evaluation.runs.leaderboard import leaderboard
from evaluation.runs.scorers import ITEMS, SPANS, run_scorer, task_kind
from evaluation.runs.services import score_and_store
from evaluation.scoring import Corpus, Predictions, TextGold, TextPrediction
from evaluation.scoring.item_scorer import ItemGold, ItemPredictions, ItemScorer, NoFigures
from evaluation.scoring.scorer import Coverage, Score
from evaluation.scoring.span_scorer import SpanScorer
from tests.support import item_results
from tests.support.item_results import FORM
from tests.support.runs import BASE, answered_run, client_for, twenty_text_world
from tests.support.scoring_entry_points import LEVELS, METRICS, command_json, level_figures

pytestmark = pytest.mark.django_db
SCORE = f"{BASE}/score/"


def test_a_span_run_scores_the_same_through_every_entry_point(tmp_path: Path) -> None:
    world = twenty_text_world(tmp_path)
    project, gold, admin, _ = world
    run = answered_run(world, "full", correct=set(range(0, 20, 3)))
    assert task_kind(run.task) == SPANS
    [stored] = [score.report for score in score_and_store(run=run) if score.profile == "paper"]
    assert RunScore.objects.get(run=run, profile="paper").report == stored

    scoring = run_scorer(run).score(run, profile="paper")
    assert (scoring.profile, scoring.unit, scoring.primary) == ("paper", "texts", "f1")
    assert scoring.coverage == Coverage("texts", 20, 20)
    assert dict(scoring.report) == stored
    assert scoring.value("f1", level=2) == pytest.approx(7 / 20)
    assert Score("f1", scoring.value("f1", 2), "texts", 2) in scoring.scores

    command = command_json(
        "score", f"gold:{project.name}@{gold.version}", f"run:{project.name}/full"
    )
    posted = client_for(admin).post(SCORE, {"gold_standard": gold.pk, "run": run.pk}).json()
    [board_row] = [r for r in leaderboard(gold_standard=gold)["rows"] if r.get("id") == run.pk]
    [results_row] = [
        r for r in command_json("results", "--project", project.name) if r["id"] == run.pk
    ]
    expected = level_figures(stored["levels"])
    for name, report in {
        "manage.py score": command,
        "score API": posted,
        "leaderboard": board_row,
        "manage.py results": results_row,
    }.items():
        assert report["coverage"] == {"texts": 20, "of": 20}, name
        for level in LEVELS:
            assert level_figures(report["levels"])[level] == pytest.approx(expected[level]), name
    for level in LEVELS:
        assert [scoring.value(m, int(level)) for m in METRICS] == list(expected[level][:3])


def _item_world() -> tuple[Any, dict[str, ModelRun], User]:
    built = item_results.build()
    runs = {name: ModelRun.objects.get(pk=pk) for name, pk in built["runs"].items()}
    return built["project"], runs, User.objects.get(username=item_results.REVIEWER)


@pytest.mark.parametrize(
    ("run_key", "field", "metric"),
    [("A/types", "types", "mean_s"), ("A/fallacious", "fallacious", "f1")],
)
def test_an_item_run_scores_the_same_through_every_entry_point(
    run_key: str, field: str, metric: str
) -> None:
    project, runs, reviewer = _item_world()
    run = runs[run_key]
    assert task_kind(run.task) == ITEMS
    [stored] = [score.report for score in score_and_store(run=run) if score.profile == "items"]
    assert RunScore.objects.get(run=run, profile="items").report == stored

    scoring = run_scorer(run).score(run, profile="definition")
    assert (scoring.profile, scoring.unit, scoring.primary) == ("definition", "items", metric)
    assert scoring.coverage == Coverage("items", 6, 6)
    assert dict(scoring.report) == stored
    assert scoring.value() == stored["primary"]["value"] == stored["metrics"][metric]

    command = command_json("score", f"gold:{project.name}", f"run:{project.name}/{run.name}")
    posted = client_for(reviewer).post(SCORE, {"run": run.pk}, format="json")
    assert posted.status_code == 200, posted.content
    for name, report in {"manage.py score": command, "score API": posted.json()}.items():
        assert report["coverage"] == {"items": 6, "of": 6}, name
        assert {k: v for k, v in report.items() if k != "coverage"} == stored, name

    board = item_leaderboard(project=project)
    [figure] = [f for f in board["figures"] if (f["field"], f["metric"]) == (field, metric)]
    [board_value] = [r["value"] for r in figure["rows"] if r["row"] == "vllm|A|zero-shot"]
    results = command_json("results", "--project", project.name)
    [row] = [r for r in results if r["model"] == "A" and r["profile"] == "definition"]
    assert board_value == pytest.approx(stored["metrics"][metric])
    assert row["figures"][f"{field}:{metric}"] == pytest.approx(stored["metrics"][metric])


def test_the_score_entry_points_refuse_what_an_item_run_is_not_scored_with() -> None:
    from django.core.management.base import CommandError

    project, runs, reviewer = _item_world()
    run = runs["A/types"]
    create_project(name="Other items", taxonomy=project.taxonomy, kind="items", form=FORM)
    with pytest.raises(CommandError, match="answer key: gold:SmartyPat results"):
        command_json("score", "gold:Other items", f"run:{project.name}/{run.name}")
    with pytest.raises(CommandError, match="is scored under items"):
        command_json(
            "score", f"gold:{project.name}", f"run:{project.name}/{run.name}", "--profile", "paper"
        )
    client = client_for(reviewer)
    refused = client.post(SCORE, {"run": run.pk, "profile": "authors-smartypat"}, format="json")
    assert refused.status_code == 400 and "is scored under items" in refused.json()["detail"]


def test_the_pure_scorers_type_their_figures_units_coverage_and_profile() -> None:
    text = "You are wrong because you are stupid. Everyone knows it."
    gold = Corpus([TextGold.from_triples(text, [[0, 37, "ad hominem"]])])
    predictions = Predictions([TextPrediction.from_triples(text, [[0, 37, "ad hominem"]])])
    spans = SpanScorer(levels=(2,), bootstrap_resamples=0).score(gold, predictions, of=4)
    assert spans.coverage == Coverage("texts", 1, 4) and spans.coverage.partial
    assert spans.report["coverage"] == {"texts": 1, "of": 4}
    assert spans.figures() == {"2/precision": 1.0, "2/recall": 1.0, "2/f1": 1.0}
    corpus = SpanScorer(levels=(2,), average="corpus", bootstrap_resamples=0)
    assert {s.unit for s in corpus.score(gold, predictions).scores} == {"spans"}

    answers = ItemGold(kind="detection", golds=[True, False, True])
    items = ItemScorer().score(answers, ItemPredictions([True, True, None]))
    assert (items.profile, items.unit, items.primary) == ("definition", "items", "f1")
    assert items.coverage == Coverage("items", 3, 3)
    assert items.value() == items.report["primary"]["value"] == pytest.approx(0.5)
    assert all(score.unit == "items" for score in items.scores)
    with pytest.raises(NoFigures, match="no figures for free-text"):
        free = ItemGold(kind="free-text", golds=["a"])
        ItemScorer().score(free, ItemPredictions(["a"]), profile="authors-smartypat")
