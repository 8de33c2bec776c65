"""Comparable leaderboard rows: runs and humans ranked only against rows scored on the same
texts, with their coverage, and paired tests between neighbours equal to scipy on the same
per-text scores."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from django.contrib.auth.models import User

from annotations.models import GoldStandard, Membership
from annotations.services.projects import add_member
from evaluation.models import RunScore
from tests.support.runs import (
    LEADERBOARD,
    annotate_texts,
    answered_run,
    client_for,
    twenty_text_world,
)
from tests.support.significance import scipy_paired

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(tmp_path: Path):
    return twenty_text_world(tmp_path)


def _assert_neighbours_tested_like_scipy(rows: dict[str, dict]) -> None:
    """Neighbours in one group: the paired test equals scipy on the same per-text F1."""
    strong_f1 = [0.0, 0.0] + [1.0] * 18
    weak_f1 = [1.0] * 8 + [0.0] * 12
    low, high, p = scipy_paired(strong_f1, weak_f1)
    test = rows["strong"]["next"]
    assert (test["name"], test["texts"]) == ("weak", 20)
    assert test["difference"] == pytest.approx(0.5)
    assert (test["a"], test["b"]) == (pytest.approx(0.9), pytest.approx(0.4))
    assert (test["ci_low"], test["ci_high"]) == (pytest.approx(low), pytest.approx(high))
    assert test["p_value"] == pytest.approx(p) and p < 0.05 and test["significant"] is True
    assert rows["weak"]["next"] is None and rows["tiny"]["next"] is None


def _assert_apart_rows_tested_against_the_top(rows: dict[str, dict], board: dict) -> None:
    """Apart rows are compared with the top row on the texts both scored."""
    versus = rows["tiny"]["versus"]
    assert (versus["name"], versus["texts"], versus["difference"]) == ("strong", 2, 1.0)
    assert versus["p_value"] == 0.5 and versus["significant"] is False  # 2 texts: 4 swaps
    low, high, p = scipy_paired([1.0, 1.0, 1.0, 1.0, 0.0], [0.0, 0.0, 1.0, 1.0, 1.0])
    versus = rows["human"]["versus"]
    assert versus["texts"] == 5 and versus["p_value"] == pytest.approx(p)
    assert (versus["ci_low"], versus["ci_high"]) == (pytest.approx(low), pytest.approx(high))
    assert rows["strong"]["versus"] is None
    assert board["significance"]["alpha"] == 0.05 and board["significance"]["level"] == 2


def _assert_the_csv_and_latex_exports(admin: User, gold: GoldStandard) -> None:
    """The CSV lists each row's group, rank, coverage and next test; LaTeX marks them."""
    table = list(
        csv.DictReader(
            io.StringIO(
                client_for(admin)
                .get(LEADERBOARD, {"gold_standard": gold.pk, "format": "csv"})
                .content.decode()
            )
        )
    )
    assert [(r["name"], r["group"], r["rank"], r["texts"], r["of_texts"]) for r in table] == [
        ("strong", "0", "1", "20", "20"),
        ("weak", "0", "2", "20", "20"),
        ("human", "1", "1", "5", "20"),
        ("tiny", "2", "1", "2", "20"),
    ]
    assert (table[0]["next_name"], table[0]["next_significant"]) == ("weak", "yes")
    assert table[0]["next_L2_F1_diff"] == "0.5000" and table[1]["next_p"] == ""
    latex = client_for(admin).get(LEADERBOARD, {"gold_standard": gold.pk, "format": "latex"})
    text = latex.content.decode()
    # (the runs are the random backend's: marked as baselines)
    assert r"strong (baseline)$^{*}$" in text and "tiny (baseline) (2/20 texts)" in text


def test_partial_runs_and_humans_are_not_ranked_among_full_runs(world, tmp_path: Path) -> None:
    project, gold, admin, _ = world
    strong = answered_run(world, "strong", set(range(2, 20)))
    weak = answered_run(world, "weak", set(range(8)))
    tiny = answered_run(world, "tiny", {0, 1}, limit=2)
    human = User.objects.create_user("human")
    add_member(project=project, user=human, role=Membership.Role.ANNOTATOR)
    annotate_texts(
        tmp_path, project, human, {0: "ad hominem", 1: None, 2: "ad hominem", 3: None, 4: None}
    )

    board = client_for(admin).get(LEADERBOARD, {"gold_standard": gold.pk}).json()
    rows = {row["name"]: row for row in board["rows"]}
    assert [(r["name"], r["group"], r["rank"]) for r in board["rows"]] == [
        ("strong", 0, 1),
        ("weak", 0, 2),
        ("human", 1, 1),
        ("tiny", 2, 1),
    ]
    # the 2-text run has F1 1.0 on its two texts but is listed apart, with its coverage
    assert rows["tiny"]["levels"]["2"]["f1"] == 1.0 and rows["strong"]["levels"]["2"]["f1"] == 0.9
    assert rows["tiny"]["coverage"] == {"texts": 2, "of": 20} and rows["tiny"]["documents"] == 2
    assert rows["strong"]["coverage"] == {"texts": 20, "of": 20}
    assert rows["human"]["coverage"] == {"texts": 5, "of": 20}
    assert rows["human"]["levels"]["2"]["f1"] == pytest.approx(0.8)

    _assert_neighbours_tested_like_scipy(rows)
    _assert_apart_rows_tested_against_the_top(rows, board)

    # per-text scores are stored with the scores (and are not sent to the browser)
    report = RunScore.objects.get(run=tiny, profile="paper").report
    assert report["per_text"]["f1"]["2"] == [1.0, 1.0] and "per_text" not in rows["tiny"]
    assert weak.pk and strong.pk

    _assert_the_csv_and_latex_exports(admin, gold)


def test_a_score_stored_without_per_text_scores_is_compared_on_the_fly(world) -> None:
    _, gold, admin, _ = world
    answered_run(world, "strong", set(range(2, 20)))
    weak = answered_run(world, "weak", set(range(8)))
    score = RunScore.objects.get(run=weak, profile="paper")
    score.report = {key: value for key, value in score.report.items() if key != "per_text"}
    score.save()
    board = client_for(admin).get(LEADERBOARD, {"gold_standard": gold.pk}).json()
    assert board["rows"][0]["next"]["difference"] == pytest.approx(0.5)
    assert "per_text" not in RunScore.objects.get(pk=score.pk).report  # a read writes nothing


def test_any_two_rows_get_the_paired_test_scipy_gives(world, tmp_path: Path) -> None:
    project, gold, admin, _ = world
    answered_run(world, "strong", set(range(2, 20)))
    weak = answered_run(world, "weak", set(range(8)))
    human = User.objects.create_user("human")
    add_member(project=project, user=human, role=Membership.Role.ANNOTATOR)
    annotate_texts(
        tmp_path, project, human, {0: "ad hominem", 1: None, 2: "ad hominem", 3: None, 4: None}
    )
    client = client_for(admin)
    # the human and "weak" are in different groups: compared on the five texts both scored
    board = client.get(
        LEADERBOARD, {"gold_standard": gold.pk, "compare": f"human,run:{weak.pk}"}
    ).json()
    found = board["compare"]
    assert found["a"] == {"key": f"annotator:{human.pk}", "name": "human"}
    assert found["b"] == {"key": f"run:{weak.pk}", "name": "weak"}
    low, high, p = scipy_paired([1.0, 1.0, 1.0, 1.0, 0.0], [1.0] * 5)
    test = found["test"]
    assert found["texts"] == 5 and test["units"] == 5
    assert test["difference"] == pytest.approx(-0.2)
    assert test["ci"] == [pytest.approx(low), pytest.approx(high)]
    assert test["p_value"] == pytest.approx(p) and found["significant"] is bool(p < 0.05)
    assert {row["key"] for row in board["rows"]} >= {f"run:{weak.pk}", f"annotator:{human.pk}"}
    # two full runs, by name: the same figures as their neighbour test
    pair = client.get(LEADERBOARD, {"gold_standard": gold.pk, "compare": "strong,weak"}).json()
    low, high, p = scipy_paired([0.0, 0.0] + [1.0] * 18, [1.0] * 8 + [0.0] * 12)
    assert pair["compare"]["test"]["p_value"] == pytest.approx(p)
    assert pair["compare"]["test"]["difference"] == pytest.approx(0.5)
    assert client.get(LEADERBOARD, {"gold_standard": gold.pk}).json()["compare"] is None
    for bad in ("weak", "nobody,weak", "weak,weak", ",weak"):
        answer = client.get(LEADERBOARD, {"gold_standard": gold.pk, "compare": bad})
        assert answer.status_code == 400 and "compare" in answer.json(), bad


def test_the_results_command_compares_two_span_rows(world) -> None:
    from django.core.management import CommandError, call_command

    project, _, _, _ = world
    answered_run(world, "strong", set(range(2, 20)))
    answered_run(world, "weak", set(range(8)))
    out = io.StringIO()
    call_command("results", "--project", project.name, "--compare", "strong", "weak", stdout=out)
    text = out.getvalue()
    assert "A = strong" in text and "B = weak" in text and "+0.500" in text
    out = io.StringIO()
    args = ("--project", project.name, "--compare", "strong", "weak", "--format", "json")
    call_command("results", *args, stdout=out)
    import json

    found = json.loads(out.getvalue())
    low, high, p = scipy_paired([0.0, 0.0] + [1.0] * 18, [1.0] * 8 + [0.0] * 12)
    assert found["test"]["p_value"] == pytest.approx(p) and found["texts"] == 20
    with pytest.raises(CommandError, match="--compare: no row 'nobody'"):
        call_command("results", "--project", project.name, "--compare", "nobody", "weak")
