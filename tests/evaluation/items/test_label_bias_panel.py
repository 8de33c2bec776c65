"""The label-bias panel's data (``item_leaderboard``'s ``label_bias``) on a SmartyPat
project with two imported models (``tests/e2e/seed_smartypat_results``): each row says on
how many items it was scored (a ranked item has several gold labels, so the count of gold
labels is not a count of items), and the task lists the authors' raw pieces as
``spellings`` (labels that are not the field's own), which the panel leaves out where a row
has no count for them."""

from __future__ import annotations

import pytest

from annotations.models import Project
from evaluation.items.leaderboard import item_leaderboard
from tests.e2e import seed_smartypat_results as seed

pytestmark = pytest.mark.django_db


def test_rows_carry_their_item_count_and_raw_pieces_are_spellings() -> None:
    project = Project.objects.get(pk=seed.build()["project"])
    board = item_leaderboard(project=project)
    [types] = [b for b in board["label_bias"] if b["field"] == "types"]
    rows = {(r["name"], r["profile"]): r for r in types["rows"]}
    definition = rows[("model-one", "definition")]
    authors = rows[("model-one", "authors-smartypat")]
    # the definition scores every item (4 Bench, 2 benign), the authors the 4 Bench ones
    assert definition["items"] == 6 and authors["items"] == 4
    assert sum(authors["gold"].values()) == 5  # 5 gold labels on those 4 items
    assert set(types["spellings"]) == {
        "1. false dilemma",
        "false_cause > false premise",
        "false cuase",
        "equivocation; false analogy",
    }
    assert "no fallacy" not in types["spellings"] and "false cause" not in types["spellings"]
    [detection] = [b for b in board["label_bias"] if b["field"] == "fallacious"]
    assert detection["spellings"] == []
