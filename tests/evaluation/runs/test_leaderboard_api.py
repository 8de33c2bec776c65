"""The leaderboard of a gold version over the API: its rows, a published profile, CSV and LaTeX
(the data of ``tests.support.runs``)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from evaluation.models import RunScore
from evaluation.runs.leaderboard import latex_escape
from tests.support.runs import LEADERBOARD, S1, World, build_world, client_for, finish, launched

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(tmp_path: Path) -> World:
    return build_world(tmp_path)


def test_leaderboard(world: World) -> None:
    best = finish(launched(world), {S1: "ad hominem"})
    client = client_for(world.reviewer)
    response = client.get(LEADERBOARD, {"gold_standard": world.gold.pk})
    assert response.status_code == 200, response.content
    board = response.json()
    expected = {"id": world.gold.pk, "version": 1, "project": world.project.pk}
    assert board["gold_standard"] == {**expected, "project_name": "Eval", "documents": 2}
    assert (board["profile"], board["average"], board["levels"]) == ("paper", "text", [0, 1, 2])
    rows = board["rows"]
    assert [(r["kind"], r["name"]) for r in rows] == [
        ("run", best.name),
        ("annotator", "annotator"),
        ("run", "published"),
    ]
    f1s = [r["levels"]["2"]["f1"] for r in rows]
    assert f1s == sorted(f1s, reverse=True) and f1s[0] == 1.0
    top = rows[0]
    assert top["variant"] == "zero-shot v1" and top["backend"] == "random"
    assert (top["requests"], top["generated"], top["seconds"]) == (3, 3, 1.5)
    assert top["documents"] == 2 and top["unparseable_share"] == 0.0
    low, high = top["levels"]["2"]["f1_low"], top["levels"]["2"]["f1_high"]
    assert low <= top["levels"]["2"]["f1"] <= high
    assert top["per_label"]["2"]["ad hominem"] == 1.0
    human = rows[1]
    assert human["id"] == world.annotator.pk and human["requests"] is None
    assert human["levels"]["2"]["f1"] == pytest.approx(0.5)
    published = rows[2]
    assert published["seconds"] is None and published["requests"] == 3
    assert published["unparseable_share"] == pytest.approx(1 / 3)
    assert "ad hominem" in board["labels"]["2"] and board["labels"]["1"]
    # the imported run was scored once, on first sight, and stored
    assert set(RunScore.objects.filter(run=world.imported).values_list("profile", flat=True)) == {
        "paper",
        "mafalda-2024",
    }


def test_leaderboard_published_profile(world: World) -> None:
    finish(launched(world), {S1: "ad hominem"})
    board = client_for(world.admin).get(
        LEADERBOARD, {"gold_standard": world.gold.pk, "profile": "mafalda-2024"}
    )
    rows = board.json()["rows"]
    assert [r["kind"] for r in rows] == ["run", "run", "annotator"]
    human = rows[-1]
    assert human["levels"] == {"0": None, "1": None, "2": None}
    assert "paper" in human["note"] and human["documents"] == 2


def test_leaderboard_csv_and_latex(world: World) -> None:
    best = finish(launched(world), {S1: "ad hominem"})
    client = client_for(world.reviewer)
    query = {"gold_standard": world.gold.pk, "format": "csv"}
    response = client.get(LEADERBOARD, query)
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    table = list(csv.reader(io.StringIO(response.content.decode())))
    header = "kind,name,model,backend,variant,L0_P,L0_R,L0_F1,L1_P,L1_R,L1_F1,L2_P,L2_R,L2_F1,"
    comparison = "group,rank,texts,of_texts,next_name,next_L2_F1_diff,next_diff_low,next_diff_high"
    assert table[0] == (
        header + "L2_F1_low,L2_F1_high,unparseable,requests,seconds," + comparison
    ).split(",") + ["next_p", "next_significant"]
    # what each row is: the random backend's run a baseline, the published one imported
    assert [row[:2] for row in table[1:]] == [
        ["baseline", best.name],
        ["human", "annotator"],
        ["imported", "published"],
    ]
    assert table[1][13] == "1.0000" and table[2][16:19] == ["", "", ""]
    latex = client.get(LEADERBOARD, {**query, "format": "latex", "profile": "mafalda-2024"})
    assert latex.status_code == 200 and latex["Content-Type"].startswith("text/plain")
    text = latex.content.decode()
    assert r"\toprule" in text and r"\bottomrule" in text and "mafalda-2024" in text
    assert r"\caption{" in text
    # the baseline is marked and never a column's best, even with the higher F1
    baseline = next(line for line in text.splitlines() if "(baseline)" in line)
    assert baseline.startswith(latex_escape(best.name)) and "1.000 & 1.000 & 1.000 &" in baseline
    assert r"\textbf{0.500}" in text and r"\textbf{1.000}" not in text
    assert client.get(LEADERBOARD, {**query, "format": "xml"}).status_code == 400
    assert client.get(LEADERBOARD, {**query, "profile": "nope"}).status_code == 400
