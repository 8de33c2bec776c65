"""The results of an item project: a FLUB-like project with finished runs of one model under
three prompt variants, a judged explanation run and one annotator's submitted responses
(``tests/e2e/seed_item_results.py`` builds it; the runs are scored by ``score_item_run``).

Figures checked by hand from the table in the seed module's docstring.
"""

from __future__ import annotations

import csv
import io
import math

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from annotations.models import Membership, Project
from annotations.services.projects import add_member, create_project
from evaluation.items.leaderboard import delta_mark, item_leaderboard
from evaluation.models import ModelRun, RunScore
from tests.e2e import seed_item_results as seed

pytestmark = pytest.mark.django_db

MODEL = seed.MODEL
ZERO, COT, FEW = (f"{seed.BACKEND}|{MODEL}|{name}" for name in seed.VARIANTS)
HUMAN_ACCURACY = 2 / 3  # A, B, D against A, B, C
ZERO_TYPE_F1 = 2 / 3  # 歧义: P 1 R 1/2; 悖论: P 1/2 R 1 -> F1 2/3 each
FEW_TYPE_F1 = 0.25  # 歧义: F1 0; 悖论: P 1/3 R 1 -> F1 1/2


@pytest.fixture
def flub() -> dict:
    return seed.build()


def board_of(flub: dict) -> dict:
    return item_leaderboard(project=Project.objects.get(pk=flub["project"]))


def rows_by_key(board: dict) -> dict[str, dict]:
    return {row["key"]: row for row in board["rows"]}


def test_rows_group_runs_by_model_and_variant_with_per_task_figures(flub: dict) -> None:
    board = board_of(flub)
    rows = rows_by_key(board)
    assert board["aggregate"] == "geometric"
    assert [t["field"] for t in board["tasks"]] == ["answer", "type", "explanation"]
    assert board["skills"] == ["selection", "classification", "explanation"]
    assert set(rows) == {ZERO, COT, FEW, f"human|{flub['annotator']}"}
    assert board["unscored"] == []

    zero, cot, few = rows[ZERO], rows[COT], rows[FEW]
    assert zero["variant"] == {"name": "zero-shot", "kind": "zero-shot", "shots": 0}
    assert few["variant_label"] == "few-shot (k=3)" and cot["variant_label"] == "chain-of-thought"
    assert zero["tasks"]["answer"]["value"] == pytest.approx(0.5)
    assert zero["tasks"]["answer"]["metric"] == "accuracy"
    assert zero["tasks"]["answer"]["run"] == flub["runs"]["answer/zero-shot"]
    assert cot["tasks"]["answer"]["value"] == pytest.approx(0.75)  # the 4th unreadable: wrong
    assert cot["tasks"]["answer"]["unparseable"] == 1
    assert few["tasks"]["answer"]["value"] == pytest.approx(1.0)
    assert zero["tasks"]["type"]["value"] == pytest.approx(ZERO_TYPE_F1)
    assert zero["tasks"]["type"]["metric"] == "macro_f1"
    assert zero["tasks"]["type"]["scored"] == 3 and zero["tasks"]["type"]["items"] == 4
    assert cot["tasks"]["type"]["value"] == pytest.approx(1.0)
    assert few["tasks"]["type"]["value"] == pytest.approx(FEW_TYPE_F1)
    # The free-text cell: BERTScore, and the mean of the two judge runs judging that run.
    explanation = zero["tasks"]["explanation"]
    assert explanation["value"] == pytest.approx(seed.BERTSCORE_F1)
    assert explanation["judge"]["mean"] == pytest.approx(sum(seed.JUDGE_MEANS) / 2)
    assert explanation["judge"]["runs"] == [flub["runs"]["judge/1"], flub["runs"]["judge/2"]]
    assert "explanation" not in cot["tasks"]
    # Judge runs are not rows of their own.
    assert all(row["model"] != "judge-model" for row in board["rows"])


def test_skills_and_the_geometric_overall(flub: dict) -> None:
    rows = rows_by_key(board_of(flub))
    zero = rows[ZERO]
    assert zero["skills"] == pytest.approx(
        {"selection": 0.5, "classification": ZERO_TYPE_F1, "explanation": seed.BERTSCORE_F1}
    )
    by_hand = (0.5 * ZERO_TYPE_F1 * seed.BERTSCORE_F1) ** (1 / 3)
    assert zero["overall"] == pytest.approx(by_hand)
    assert rows[COT]["overall"] == pytest.approx(math.sqrt(0.75 * 1.0))
    assert rows[FEW]["overall"] == pytest.approx(math.sqrt(1.0 * FEW_TYPE_F1))
    # Best overall first among the rows scored on the same items: the annotator answered
    # three of the four items, so they are ranked apart, after the runs' group.
    board = board_of(flub)
    order = [row["key"] for row in board["rows"]]
    assert order == [COT, ZERO, FEW, f"human|{flub['annotator']}"]
    places = {row["key"]: (row["group"], row["rank"], row["coverage"]) for row in board["rows"]}
    assert places[COT] == (1, 1, {"items": 4, "of": 4, "complete": True})
    assert places[FEW] == (1, 3, {"items": 4, "of": 4, "complete": True})
    assert places[f"human|{flub['annotator']}"] == (2, 1, {"items": 3, "of": 4, "complete": False})


def test_the_human_baseline_is_scored_on_the_items_answered(flub: dict) -> None:
    human = rows_by_key(board_of(flub))[f"human|{flub['annotator']}"]
    assert human["kind"] == "human" and human["name"] == seed.ANNOTATOR
    assert set(human["tasks"]) == {"answer", "type"}  # free text is not scored for humans
    assert human["tasks"]["answer"]["value"] == pytest.approx(HUMAN_ACCURACY)
    assert human["tasks"]["answer"]["items"] == 3
    assert human["tasks"]["type"]["value"] == pytest.approx(1.0)
    assert human["overall"] == pytest.approx(math.sqrt(HUMAN_ACCURACY * 1.0))
    assert "not scored" in human["note"]


def test_cot_vs_direct_and_few_shot_vs_zero_shot_marks(flub: dict) -> None:
    comparisons = {c["comparison"]: c for c in board_of(flub)["comparisons"]}
    assert set(comparisons) == {"cot-vs-direct", "few-shot-vs-zero-shot"}
    cot = comparisons["cot-vs-direct"]
    assert (cot["row"], cot["baseline_row"], cot["model"]) == (COT, ZERO, MODEL)
    assert cot["tasks"]["answer"] == pytest.approx(
        {"base": 0.5, "value": 0.75, "delta": 0.25, "mark": "up"}
    )
    assert cot["tasks"]["type"]["mark"] == "up"
    assert "explanation" not in cot["tasks"]  # no chain-of-thought explanation run
    assert cot["overall"]["mark"] == "up"
    few = comparisons["few-shot-vs-zero-shot"]
    assert few["tasks"]["answer"]["mark"] == "up"
    assert few["tasks"]["type"]["delta"] == pytest.approx(FEW_TYPE_F1 - ZERO_TYPE_F1)
    assert few["tasks"]["type"]["mark"] == "down"
    assert few["overall"]["mark"] == "down"
    assert delta_mark(0.5, 0.5004)["mark"] == "same"
    assert delta_mark(None, 0.5) is None


def test_label_bias_counts(flub: dict) -> None:
    bias = {entry["field"]: entry for entry in board_of(flub)["label_bias"]}
    assert set(bias) == {"answer", "type"}
    answer = bias["answer"]
    assert answer["labels"] == ["A", "B", "C", "D"]
    assert answer["gold"] == {"A": 1, "B": 1, "C": 1, "D": 1}
    rows = {entry["row"]: entry for entry in answer["rows"]}
    assert rows[ZERO]["predicted"] == {"A": 3, "B": 1}  # the zero-shot run favours A
    assert rows[ZERO]["run"] == flub["runs"]["answer/zero-shot"]
    assert rows[COT]["predicted"] == {"A": 1, "B": 1, "C": 1}
    assert rows[f"human|{flub['annotator']}"]["predicted"] == {"A": 1, "B": 1, "D": 1}
    assert rows[f"human|{flub['annotator']}"]["gold"] == {"A": 1, "B": 1, "C": 1}
    kinds = bias["type"]
    assert kinds["gold"] == {"歧义": 2, "悖论": 1}  # the 4th item has no type
    assert {e["row"]: e["predicted"] for e in kinds["rows"]}[FEW] == {"悖论": 3}
    assert kinds["labels"][:2] == ["悖论", "歧义"]  # the form's label order (FLUB_LABELS)


def test_a_later_run_of_the_same_cell_replaces_the_earlier_one(flub: dict) -> None:
    earlier = ModelRun.objects.get(pk=flub["runs"]["answer/zero-shot"])
    rerun = ModelRun.objects.create(
        project=earlier.project,
        name="qwen answer zero-shot again",
        backend=earlier.backend,
        model_name=earlier.model_name,
        task=earlier.task,
        field="answer",
        prompt_variant=earlier.prompt_variant,
        status=ModelRun.Status.DONE,
    )
    report = dict(
        RunScore.objects.get(run=earlier).report, primary={"name": "accuracy", "value": 1}
    )
    RunScore.objects.create(run=rerun, profile="items", report=report)
    unscored = ModelRun.objects.create(
        project=earlier.project,
        name="finished, not scored",
        backend=earlier.backend,
        model_name="other-model",
        task=earlier.task,
        field="answer",
        status=ModelRun.Status.DONE,
    )
    board = board_of(flub)
    cell = rows_by_key(board)[ZERO]["tasks"]["answer"]
    assert (cell["run"], cell["value"], cell["runs"]) == (rerun.pk, 1.0, 2)
    assert board["unscored"] == [{"id": unscored.pk, "name": unscored.name, "field": "answer"}]


def test_api_for_staff_only_with_csv(flub: dict) -> None:
    project = Project.objects.get(pk=flub["project"])
    url = f"/api/evaluation/projects/{project.pk}/item-leaderboard/"
    reviewer = APIClient()
    reviewer.force_login(User.objects.get(username=seed.REVIEWER))
    answer = reviewer.get(url)
    assert answer.status_code == 200
    assert {row["kind"] for row in answer.json()["rows"]} == {"model", "human"}

    exported = reviewer.get(url, {"format": "csv"})
    assert exported.status_code == 200 and exported["Content-Type"].startswith("text/csv")
    lines = list(csv.DictReader(io.StringIO(exported.content.decode())))
    zero = next(line for line in lines if line["variant"] == "zero-shot")
    assert zero["answer"] == "0.5000" and zero["explanation_judge"] == "4.0000"
    assert float(zero["overall_geometric"]) == pytest.approx(
        (0.5 * ZERO_TYPE_F1 * seed.BERTSCORE_F1) ** (1 / 3), abs=1e-4
    )
    assert reviewer.get(url, {"format": "xml"}).status_code == 400

    for username in (seed.ANNOTATOR, seed.OUTSIDER):  # annotators of the project
        client = APIClient()
        client.force_login(User.objects.get(username=username))
        assert client.get(url).status_code == 404
    assert APIClient().get(url).status_code in (401, 403)

    # A span project has no item results.
    spans = create_project(name="Spans", taxonomy=project.taxonomy)
    add_member(
        project=spans,
        user=User.objects.get(username=seed.REVIEWER),
        role=Membership.Role.REVIEWER,
    )
    spans_url = f"/api/evaluation/projects/{spans.pk}/item-leaderboard/"
    assert reviewer.get(spans_url).status_code == 404


def test_an_item_project_without_results_has_no_rows(flub: dict) -> None:
    empty = create_project(
        name="Empty FLUB",
        taxonomy=Project.objects.get(pk=flub["project"]).taxonomy,
        kind="items",
        form=Project.objects.get(pk=flub["project"]).form,
    )
    board = item_leaderboard(project=empty)
    assert board["rows"] == [] and board["tasks"] == [] and board["comparisons"] == []
    assert board["label_bias"] == []
