"""Humans on the same yardstick: the MAFALDA user study (4 annotators x 20 texts)."""

from pathlib import Path

import pytest

from evaluation.scoring import (
    as_predictions,
    pairwise_agreement,
    read_annotator,
    read_gold,
    score,
    score_annotator,
)

USERS = ("user1", "user2", "user4", "user5")


@pytest.fixture(scope="module")
def annotators(mafalda_dir: Path) -> dict:
    datasets = mafalda_dir / "datasets"
    corpora = {"gold": read_gold(datasets / "user_study_examples_with_labels.jsonl")}
    for user in USERS:
        corpora[user] = read_annotator(datasets / "users_results" / f"{user}.jsonl")
    return corpora


def test_gold_scored_against_itself_is_perfect(annotators):
    report = score_annotator(annotators["gold"], annotators["gold"])
    for level in (0, 1, 2):
        assert report.levels[level].f1 == 1.0


def test_each_user_against_the_gold(annotators):
    for user in USERS:
        report = score_annotator(annotators["gold"], annotators[user], bootstrap_resamples=0)
        assert report.texts == 20 and report.texts_without_prediction == 0
        assert report.profile == "paper"
        assert 0.0 < report.levels[2].f1 < report.levels[0].f1 < 1.0


def test_pairwise_table_covers_every_ordered_pair(annotators):
    agreement = pairwise_agreement(annotators, bootstrap_resamples=0)
    table = agreement.table(2)
    assert set(table) == set(annotators)
    for reference, row in table.items():
        assert set(row) == set(annotators) - {reference}
    data = agreement.to_dict()
    assert set(data) == {"0", "1", "2"}
    assert data["2"]["f1"]["user4"]["gold"] == table["user4"]["gold"]


def test_swapping_roles_swaps_precision_and_recall(annotators):
    # user2 and user4 put one label per range and never "no fallacy": scoring user2
    # against user4 has user4-against-user2's recall as its precision.
    agreement = pairwise_agreement(
        {name: annotators[name] for name in ("user2", "user4")}, bootstrap_resamples=0
    )
    for level in (0, 1, 2):
        precision = agreement.table(level, "precision")
        recall = agreement.table(level, "recall")
        assert precision["user4"]["user2"] == pytest.approx(recall["user2"]["user4"])


def test_annotator_spans_become_one_prediction_per_label(annotators):
    predictions = as_predictions(annotators["user1"])
    triples = sum(len(text.spans) for text in predictions.texts)
    grouped = sum(len(span.labels) for text in annotators["user1"].texts for span in text.spans)
    assert triples == grouped
    assert score(annotators["gold"], predictions).texts == 20
