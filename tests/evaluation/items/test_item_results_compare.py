"""Top-k accuracy of ranked answers and the paired test between any two rows of an item
project's results (``tests/support/item_results.py``): the API's ``?compare=A,B``, the
``results --compare A B`` command, equal to scipy on the items both rows scored."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from evaluation.items.leaderboard import QueryError, item_leaderboard
from evaluation.scoring.items import score_answers
from evaluation.scoring.task_metrics import ranked_score
from tests.support import item_results as world
from tests.support.significance import scipy_paired

pytestmark = pytest.mark.django_db

A, B, C = "vllm|A|zero-shot", "vllm|B|zero-shot", "vllm|C|zero-shot"
NO_FALLACY = "no fallacy"


@pytest.fixture
def built() -> dict:
    return world.build()


def _client() -> APIClient:
    client = APIClient()
    client.force_login(User.objects.get(username=world.REVIEWER))
    return client


def _url(built: dict) -> str:
    return f"/api/evaluation/projects/{built['project'].pk}/item-leaderboard/"


def _s(gold: list[str], predicted: list[str]) -> float:
    return ranked_score(gold or [NO_FALLACY], predicted or [NO_FALLACY])


def test_top_k_accuracy_by_hand_up_to_the_ranking_length() -> None:
    golds = [["x"], ["y"], ["x", "z"], ["x"], [], []]
    predicted = [["x"], ["x", "y"], ["z"], ["y", "z", "w", "x"], [], ["x"]]
    report = score_answers("ranked", golds, predicted, labels=["x", "y", "z", "w"], ranks=4)
    # first right answer at ranks 1, 2, 1, 4, 1 ("no fallacy" for a sound item), none
    assert report["metrics"]["top_k_accuracy"] == {
        "1": pytest.approx(3 / 6),
        "2": pytest.approx(4 / 6),
        "3": pytest.approx(4 / 6),
        "4": pytest.approx(5 / 6),
    }
    assert report["metrics"]["top1_accuracy"] == pytest.approx(3 / 6)
    default = score_answers("ranked", golds, predicted, labels=["x", "y", "z", "w"])
    assert list(default["metrics"]["top_k_accuracy"]) == ["1", "2", "3"]


def test_top_k_accuracy_is_a_figure_of_the_results_and_the_csv(built: dict) -> None:
    board = item_leaderboard(project=built["project"])
    [figure] = [
        f for f in board["figures"] if (f["field"], f["metric"]) == ("types", "top_k_accuracy")
    ]
    assert figure["kind"] == "per-label" and figure["scale"] == "unit"
    assert figure["labels"] == ["1", "2", "3"]
    values = {(r["row"], r["profile"]): r["values"] for r in figure["rows"]}
    # A: s1 at rank 1, s2 at rank 2, s3 at rank 1, s4 never, s5 "no fallacy", s6 never
    assert values[(A, "definition")] == {
        "1": pytest.approx(3 / 6),
        "2": pytest.approx(4 / 6),
        "3": pytest.approx(4 / 6),
    }
    assert values[(B, "definition")] == {"1": 1.0, "2": 1.0, "3": 1.0}
    human = f"human|{built['annotator']}"
    assert values[(human, "definition")]["1"] == 1.0  # s3: AH is one of its gold types
    answer = _client().get(_url(built), {"format": "csv"})
    lines = {r["name"]: r for r in csv.DictReader(io.StringIO(answer.content.decode()))}
    assert lines["A"]["types:top_k_accuracy:2"] == f"{4 / 6:.4f}"
    assert lines["B"]["types:top_k_accuracy:3"] == "1.0000"


def test_any_two_rows_get_the_paired_test_scipy_gives(built: dict) -> None:
    human = f"human|{built['annotator']}"
    answer = _client().get(_url(built), {"compare": f"A,{human}"})
    assert answer.status_code == 200
    found = answer.json()["compare"]
    assert found["a"] == {"key": A, "name": "A"} and found["b"]["key"] == human
    tests = {(t["profile"], t["field"]): t for t in found["tests"]}
    types = tests[("definition", "types")]
    a = np.array([_s(g, p) for g, p in zip(world.GOLD_TYPES, world.TYPES["A"], strict=True)])
    h = np.array([_s(g, p) for g, p in zip(world.GOLD_TYPES, world.HUMAN_TYPES, strict=True)])
    low, high, p = scipy_paired(a, h)
    assert types["metric"] == "mean_s" and types["common_items"] == 6
    assert types["test"]["difference"] == pytest.approx(float(np.mean(a - h)))
    assert types["test"]["ci"] == [pytest.approx(low), pytest.approx(high)]
    assert types["test"]["p_value"] == pytest.approx(p)
    assert types["significant"] is bool(p < 0.05) and types["reason"] is None
    assert (types["a"], types["b"]) == (pytest.approx(a.mean()), pytest.approx(h.mean()))
    assert tests[("definition", "fallacious")]["test"]["statistic"] == "f1"
    # A and the partial run C: compared on the two items both scored, C has no detection
    partial = item_leaderboard(project=built["project"], pair=("A", "C"))["compare"]
    tests = {(t["profile"], t["field"]): t for t in partial["tests"]}
    low, high, p = scipy_paired(a[:2], np.array([1.0, 1.0]))
    assert tests[("definition", "types")]["common_items"] == 2
    assert tests[("definition", "types")]["test"]["p_value"] == pytest.approx(p)
    assert tests[("definition", "fallacious")]["test"] is None
    assert tests[("definition", "fallacious")]["reason"] == "a row has no figure for this task"
    assert item_leaderboard(project=built["project"])["compare"] is None


def test_a_bad_pair_is_refused_naming_compare(built: dict) -> None:
    client = _client()
    for bad in ("A", "A,nobody", "A,A", f"{A},A"):
        answer = client.get(_url(built), {"compare": bad})
        assert answer.status_code == 400 and "compare" in answer.json(), bad
    with pytest.raises(QueryError, match="compare: no row 'Z'"):
        item_leaderboard(project=built["project"], pair=("A", "Z"))


def test_the_results_command_compares_two_rows(built: dict) -> None:
    name = built["project"].name
    out = io.StringIO()
    call_command("results", "--project", name, "--compare", "A", "B", stdout=out)
    text = out.getvalue()
    assert "A = A (vllm|A|zero-shot)" in text and "definition types mean_s:" in text
    assert "p=" in text and "over 6" in text
    out = io.StringIO()
    args = ("--project", name, "--compare", "A", "B", "--format", "json")
    call_command("results", *args, stdout=out)
    found = json.loads(out.getvalue())
    b = np.array([_s(g, p) for g, p in zip(world.GOLD_TYPES, world.TYPES["B"], strict=True)])
    a = np.array([_s(g, p) for g, p in zip(world.GOLD_TYPES, world.TYPES["A"], strict=True)])
    [types] = [t for t in found["tests"] if t["field"] == "types"]
    assert types["test"]["p_value"] == pytest.approx(scipy_paired(a, b)[2])
    with pytest.raises(CommandError, match="--compare: compare: no row 'Z'"):
        call_command("results", "--project", name, "--compare", "A", "Z")
