"""The item results of a SmartyPat-like project (``tests/support/item_results.py``): every
stored figure, subsets, the commensurable overall, comparable rows with paired neighbour
tests, the CSV/LaTeX exports and ``manage.py results``."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient
from scipy import stats

from evaluation.items.leaderboard import QueryError, item_leaderboard
from evaluation.models import RunScore
from evaluation.scoring.significance import counts_from_tp_fp_fn, paired_f1_test
from evaluation.scoring.task_metrics import ranked_score
from tests.support import item_results as world

pytestmark = pytest.mark.django_db

A, B, C = "vllm|A|zero-shot", "vllm|B|zero-shot", "vllm|C|zero-shot"
PUBLISHED = "|published|"
NO_FALLACY = "no fallacy"


@pytest.fixture
def built() -> dict:
    return world.build()


def rows_of(board: dict, profile: str = "definition") -> dict[str, dict]:
    return {row["key"]: row for row in board["rows"] if row["profile"] == profile}


def human(built: dict) -> str:
    return f"human|{built['annotator']}"


def figure(board: dict, field: str, metric: str) -> dict:
    [found] = [f for f in board["figures"] if (f["field"], f["metric"]) == (field, metric)]
    return found


def test_every_stored_figure_is_in_the_api_and_names_its_profile(built: dict) -> None:
    board = item_leaderboard(project=built["project"])
    assert board["profiles"] == ["definition"]
    names = {(f["field"], f["metric"]) for f in board["figures"]}
    assert {("fallacious", m) for m in ("f1", "precision", "recall", "accuracy")} <= names
    assert {("types", m) for m in ("mean_s", "detection_accuracy", "top1_accuracy")} <= names
    for entry in board["figures"]:
        assert all(row["profile"] == "definition" for row in entry["rows"])
    # Detection P/R/F1 of model A by hand: TP 3, FP 1, FN 1.
    rows = {r["row"]: r["value"] for r in figure(board, "fallacious", "precision")["rows"]}
    assert rows[A] == pytest.approx(0.75)
    assert {r["row"]: r["value"] for r in figure(board, "fallacious", "recall")["rows"]}[
        B
    ] == pytest.approx(0.5)
    # Per-type detection accuracy: a per-label figure; B found every type.
    per_type = figure(board, "types", "per_type_accuracy")
    assert per_type["kind"] == "per-label" and per_type["scale"] == "unit"
    assert set(per_type["labels"]) == {world.AH, world.FD, world.SS}
    values = {r["row"]: r["values"] for r in per_type["rows"]}
    assert values[B] == {world.AH: 1.0, world.FD: 1.0, world.SS: 1.0}
    assert values[A][world.AH] == pytest.approx(1 / 3)  # AH in s1 only of s1, s3, s4
    # Every figure equals the stored report's.
    stored = RunScore.objects.get(run=built["runs"]["A/types"]).report["metrics"]
    assert {r["row"]: r["value"] for r in figure(board, "types", "mean_s")["rows"]}[
        A
    ] == pytest.approx(stored["mean_s"])
    # Predicted vs gold label counts.
    [bias] = [b for b in board["label_bias"] if b["field"] == "types"]
    counts = {r["row"]: r for r in bias["rows"]}
    assert counts[A]["predicted"] == {world.AH: 3, world.FD: 2, world.SS: 1, NO_FALLACY: 1}
    assert counts[A]["gold"] == {world.AH: 3, world.FD: 1, world.SS: 1, NO_FALLACY: 2}
    assert counts[A]["profile"] == "definition"


def test_the_overall_combines_only_figures_on_one_scale(built: dict) -> None:
    board = item_leaderboard(project=built["project"])
    basis = board["overall_basis"]
    assert basis["tasks"] == ["fallacious"]
    assert basis["excluded"] == [
        {"field": "types", "metric": "mean_s", "reason": "not on the 0-1 scale"}
    ]
    assert "mean_s" in basis["text"] and "0-1 scale" in basis["text"]
    rows = rows_of(board)
    assert rows[A]["overall"] == pytest.approx(0.75)  # detection F1 alone, S left out
    assert rows[A]["tasks"]["types"]["metric"] == "mean_s"
    assert rows[C]["overall"] is None  # C answered types only


def test_rows_are_ranked_only_against_rows_scored_on_the_same_items(built: dict) -> None:
    board = item_leaderboard(project=built["project"])
    order = [row["key"] for row in board["rows"]]
    # The six-item group by overall (detection F1): human 1.0, published 0.8, A 0.75, B 2/3;
    # C (two items) is listed apart, after it.
    assert order == [human(built), PUBLISHED, A, B, C]
    rows = rows_of(board)
    assert rows[PUBLISHED]["kind"] == "imported" and rows[A]["kind"] == "model"
    assert [rows[k]["group"] for k in order] == [1, 1, 1, 1, 2]
    assert [rows[k]["rank"] for k in order] == [1, 2, 3, 4, 1]
    assert rows[C]["coverage"] == {"items": 2, "of": 6, "complete": False}
    assert rows[A]["coverage"] == {"items": 6, "of": 6, "complete": True}
    assert "vs_next" not in rows[B]["tasks"]["types"]  # the last of its group


def _s(gold: list[str], predicted: list[str]) -> float:
    return ranked_score(gold or [NO_FALLACY], predicted or [NO_FALLACY])


def test_neighbours_get_the_paired_test_scipy_gives(built: dict) -> None:
    rows = rows_of(item_leaderboard(project=built["project"]))
    # A against B on types: the mean S over the same six items; 2**6 permutations: exact.
    test = rows[A]["tasks"]["types"]["vs_next"]
    assert test["row"] == B and test["common_items"] == 6
    a = np.array([_s(g, p) for g, p in zip(world.GOLD_TYPES, world.TYPES["A"], strict=True)])
    b = np.array([_s(g, p) for g, p in zip(world.GOLD_TYPES, world.TYPES["B"], strict=True)])
    direct = stats.permutation_test(
        (a, b),
        lambda x, y, axis: np.mean(x - y, axis=axis),
        permutation_type="samples",
        vectorized=True,
        n_resamples=2000,
    )
    assert test["test"]["p_value"] == pytest.approx(direct.pvalue)
    assert test["test"]["difference"] == pytest.approx(float(np.mean(a - b)))
    assert test["significant"] == (direct.pvalue < 0.05)
    low, high = test["test"]["ci"]
    assert low <= test["test"]["difference"] <= high
    # The human against the published run on detection F1, from per-item TP/FP/FN.
    mark = rows[human(built)]["tasks"]["fallacious"]["vs_next"]
    assert mark["row"] == PUBLISHED
    human_counts = [counts_from_tp_fp_fn(1, 0, 0)] * 4 + [counts_from_tp_fp_fn(0, 0, 0)] * 2
    published = [counts_from_tp_fp_fn(1, 0, 0)] * 4 + [counts_from_tp_fp_fn(0, 1, 0)] * 2
    expected = paired_f1_test(human_counts, published, empty=0.0)
    assert mark["test"]["p_value"] == pytest.approx(expected.p_value)
    assert mark["test"]["difference"] == pytest.approx(1.0 - 0.8)
    assert mark["test"]["ci"] == pytest.approx([expected.ci_low, expected.ci_high])


def test_a_subset_by_metadata_rescores_the_stored_outputs(built: dict) -> None:
    board = item_leaderboard(project=built["project"], subset="split=bench")
    assert board["subset"] == {"name": "split=bench", "items": 4}
    assert board["items"] == 4
    rows = rows_of(board)
    # Detection F1 on s1-s4: A TP 3 FN 1 -> 6/7; B TP 2 FN 2 -> 2/3; published 1.0.
    assert rows[A]["tasks"]["fallacious"]["value"] == pytest.approx(6 / 7)
    assert rows[B]["tasks"]["fallacious"]["value"] == pytest.approx(2 / 3)
    assert rows[PUBLISHED]["tasks"]["fallacious"]["value"] == pytest.approx(1.0)
    assert rows[A]["tasks"]["types"]["scored"] == 4
    expected = np.mean(
        [_s(g, p) for g, p in zip(world.GOLD_TYPES[:4], world.TYPES["A"][:4], strict=True)]
    )
    assert rows[A]["tasks"]["types"]["value"] == pytest.approx(expected)
    assert rows[human(built)]["coverage"] == {"items": 4, "of": 4, "complete": True}
    # Nothing was written: the stored report is the whole run's.
    stored = RunScore.objects.get(run=built["runs"]["A/fallacious"]).report
    assert stored["primary"]["value"] == pytest.approx(0.75)


def test_a_subset_by_gold_kind_and_the_offered_subsets(built: dict) -> None:
    board = item_leaderboard(project=built["project"], subset="gold=sound")
    rows = rows_of(board)
    assert board["subset"]["items"] == 2
    # On the two sound items: A says "fallacious" once -> detection accuracy 1/2.
    assert figure(board, "fallacious", "accuracy")["rows"][0]["value"] is not None
    accuracy = {r["row"]: r["value"] for r in figure(board, "fallacious", "accuracy")["rows"]}
    assert accuracy[A] == pytest.approx(0.5) and accuracy[B] == pytest.approx(1.0)
    assert rows[C]["coverage"]["items"] == 0 or C not in rows
    offered = {o["name"]: o["items"] for o in board["subsets"]}
    assert offered == {
        "gold=fallacious": 4,
        "gold=sound": 2,
        "split=bench": 4,
        "split=benign": 2,
    }
    with pytest.raises(QueryError, match="KEY=VALUE"):
        item_leaderboard(project=built["project"], subset="bench")
    with pytest.raises(QueryError, match="subsets: gold=fallacious"):
        item_leaderboard(project=built["project"], subset="split=none")
    with pytest.raises(QueryError, match="profile 'nope'"):
        item_leaderboard(project=built["project"], profile="nope")


def _client() -> APIClient:
    client = APIClient()
    client.force_login(User.objects.get(username=world.REVIEWER))
    return client


def test_the_csv_and_latex_carry_every_figure(built: dict) -> None:
    url = f"/api/evaluation/projects/{built['project'].pk}/item-leaderboard/"
    client = _client()
    answer = client.get(url, {"format": "csv"})
    assert answer.status_code == 200
    lines = {
        (r["name"], r["profile"]): r for r in csv.DictReader(io.StringIO(answer.content.decode()))
    }
    a = lines[("A", "definition")]
    assert a["fallacious:precision"] == "0.7500" and a["fallacious:f1"] == "0.7500"
    assert float(a[f"types:per_type_accuracy:{world.AH}"]) == pytest.approx(1 / 3, abs=1e-4)
    assert a[f"types:predicted:{world.AH}"] == "3" and a[f"types:gold:{world.AH}"] == "3"
    assert (a["group"], a["rank"], a["items"], a["of_items"]) == ("1", "3", "6", "6")
    assert lines[("C", "definition")]["items"] == "2"
    assert lines[("published", "definition")]["kind"] == "imported"

    latex = client.get(url, {"format": "latex"})
    assert latex.status_code == 200 and latex["Content-Type"].startswith("application/x-latex")
    text = latex.content.decode()
    assert r"fallacious:precision" in text and r"types:per\_type\_accuracy" in text
    assert "profile definition" in text and r"\textbf{1.000}" in text  # the human's F1
    assert "published, imported" in text and "0.800" in text
    subset = client.get(url, {"format": "csv", "subset": "split=bench"})
    assert {r["subset"] for r in csv.DictReader(io.StringIO(subset.content.decode()))} == {
        "split=bench"
    }
    bad = client.get(url, {"subset": "nothing"})
    assert bad.status_code == 400 and "subset" in bad.json()
    assert client.get(url, {"profile": "nope"}).status_code == 400


def test_the_results_command_in_json_and_table(built: dict) -> None:
    out = io.StringIO()
    call_command("results", "--project", built["project"].name, "--format", "json", stdout=out)
    objects = json.loads(out.getvalue())
    assert {o["kind"] for o in objects} == {"model", "imported", "human"}
    by_name = {o["name"]: o for o in objects}
    a = by_name["A"]
    assert a["profile"] == "definition" and a["coverage"]["items"] == 6
    assert a["figures"]["fallacious:recall"] == pytest.approx(0.75)
    assert a["figures"]["types:per_type_accuracy"][world.AH] == pytest.approx(1 / 3)
    assert a["label_counts"]["types"]["predicted"][world.AH] == 3
    assert a["overall"] == pytest.approx(0.75) and "0-1 scale" in a["overall_basis"]

    out = io.StringIO()
    call_command(
        "results", "--project", built["project"].name, "--subset", "split=bench", stdout=out
    )
    table = out.getvalue()
    assert "imported" in table and "fallacious=0.857" in table
    assert "fallacious:precision" in table and "types predicted counts" in table
    with pytest.raises(CommandError, match="--subset"):
        call_command("results", "--project", built["project"].name, "--subset", "x")
    with pytest.raises(CommandError, match="--project"):
        call_command("results", "--project", "no such project")


def test_the_results_command_on_a_span_project(tmp_path) -> None:
    from tests.support.runs import build_world

    built = build_world(tmp_path)
    out = io.StringIO()
    call_command("results", "--project", built.project.name, "--format", "json", stdout=out)
    objects = json.loads(out.getvalue())
    kinds = {o["name"]: (o["kind"], o["profile"]) for o in objects}
    assert kinds["published"] == ("imported", "paper")
    assert kinds["annotator"] == ("human", "paper")
    assert set(objects[0]["levels"]) == {"0", "1", "2"}
    out = io.StringIO()
    call_command("results", "--project", built.project.name, stdout=out)
    assert "published" in out.getvalue() and "L2 P/R/F1" in out.getvalue()
    with pytest.raises(CommandError, match="--subset"):
        call_command("results", "--project", built.project.name, "--subset", "split=a")
    with pytest.raises(CommandError, match="--profile"):
        call_command("results", "--project", built.project.name, "--profile", "nope")
