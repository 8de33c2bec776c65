"""The Results of a SmartyPat project with imported outputs (``tests/e2e/seed_smartypat_results
.py``: a headerless Bench CSV, a benign CSV, two models' JSONL outputs with numbered,
underscored, ">"-joined and misspelt labels), without a browser: the CSV carries every
figure of both profiles, and the label counts of both profiles are those computed by hand
below."""

from __future__ import annotations

import csv
import io

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from evaluation.items.leaderboard import item_leaderboard
from tests.e2e import seed_smartypat_results as seed

pytestmark = pytest.mark.django_db

FC, FP, FD, EQ, FA = (
    "false cause",
    "false premise",
    "false dilemma",
    "equivocation",
    "false analogy",
)
NF = "no fallacy"
AUTHORS, DEFINITION = "authors-smartypat", "definition"


@pytest.fixture
def project() -> int:
    return seed.build()["project"]


def _csv(project: int) -> dict[tuple[str, str], dict[str, str]]:
    client = APIClient()
    client.force_login(User.objects.get(username=seed.REVIEWER))
    url = f"/api/evaluation/projects/{project}/item-leaderboard/"
    answer = client.get(url, {"format": "csv"})
    assert answer.status_code == 200
    lines = csv.DictReader(io.StringIO(answer.content.decode()))
    return {(r["name"], r["profile"]): r for r in lines}


def test_the_csv_carries_the_authors_profile_beside_the_definition(project: int) -> None:
    lines = _csv(project)
    assert set(lines) == {(m, p) for m in seed.OUTPUTS for p in (DEFINITION, AUTHORS)}
    one, two = lines[("model-one", AUTHORS)], lines[("model-two", AUTHORS)]
    assert {one["kind"], two["kind"]} == {"imported"}
    # S summed over the four Bench items, the authors' way: a label counts when it equals a
    # piece of the gold split at commas ("1. false dilemma" and the ">"-joined answer do
    # not), "no fallacy" for a fallacious item costs -H13 rounded to -3.18.
    assert one["types:sum_s"] == "-4.1800"  # -1 - 1 + 1 - 3.18
    assert one["types:mean_s"] == "-1.0450"
    assert two["types:sum_s"] == "-0.5000"  # (1 - 1/2) - 1 - 1 + 1
    # Detection with their denominators: "no" on the benign side counted as N - yes with
    # N = 4 Bench items (two phantom benign items); recall TP'/(TP'+FN').
    assert two["fallacious:counts:yes_fallacious"] == "3.0000"
    assert two["fallacious:counts:no_benign"] == "4.0000"
    assert two["fallacious:precision"] == "1.0000"
    assert float(two["fallacious:recall"]) == pytest.approx(1 / 1.2, abs=1e-4)
    assert two["fallacious:f1"] == "0.9090"  # 0.90909 rounded to 3 places, as they do
    assert one["fallacious:counts:yes_benign"] == "1.0000"
    assert one["fallacious:f1"] == "0.7500"
    # Per-type accuracy: exact pieces ("equivocation; false analogy" names neither).
    assert two[f"types:per_type_accuracy:{FA}"] == "1.0000"
    assert two[f"types:per_type_accuracy:{EQ}"] == "0.0000"
    assert one[f"types:per_type_accuracy:{EQ}"] == "1.0000"
    assert one[f"types:per_type_accuracy:{FD}"] == "0.0000"
    # The authors' profile has no top-k accuracy; the definition has k = 1..3.
    assert one.get("types:top_k_accuracy:1") == ""
    definition = lines[("model-one", DEFINITION)]
    assert definition["types:sum_s"] == "2.5000" and definition["fallacious:f1"] == "0.7500"
    assert float(definition["types:top_k_accuracy:1"]) == pytest.approx(4 / 6, abs=1e-4)


def test_label_counts_of_both_profiles_by_hand(project: int) -> None:
    from annotations.models import Project

    board = item_leaderboard(project=Project.objects.get(pk=project))
    [types] = [b for b in board["label_bias"] if b["field"] == "types"]
    counts = {(r["name"], r["profile"]): (r["predicted"], r["gold"]) for r in types["rows"]}
    gold_definition = {FD: 1, FC: 1, FP: 1, EQ: 1, FA: 1, NF: 2}
    # definition: labels read with numbering stripped, "_" and ">" understood; an empty
    # answer is "no fallacy"; "false cuase" names no label (unparseable, not counted)
    assert counts[("model-one", DEFINITION)] == (
        {FD: 1, FC: 1, FP: 2, EQ: 1, NF: 2},
        gold_definition,
    )
    assert counts[("model-two", DEFINITION)] == (
        {FD: 1, FC: 1, EQ: 1, FA: 2, NF: 2},
        gold_definition,
    )
    # authors: the raw pieces of the Bench answers split at commas, counted as written
    gold_authors = {FD: 1, FC: 1, FP: 1, EQ: 1, FA: 1}
    assert counts[("model-one", AUTHORS)] == (
        {"1. false dilemma": 1, "false_cause > false premise": 1, EQ: 1, NF: 1},
        gold_authors,
    )
    assert counts[("model-two", AUTHORS)] == (
        {FD: 1, FC: 1, "false cuase": 1, "equivocation; false analogy": 1, FA: 1},
        gold_authors,
    )
    lines = _csv(project)
    assert lines[("model-one", AUTHORS)]["types:predicted:1. false dilemma"] == "1"
    assert lines[("model-one", DEFINITION)][f"types:predicted:{FP}"] == "2"
    assert lines[("model-two", AUTHORS)][f"types:gold:{FP}"] == "1"
    assert lines[("model-two", DEFINITION)][f"types:gold:{NF}"] == "2"
