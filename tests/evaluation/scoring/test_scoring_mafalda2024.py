"""Profile ``mafalda-2024`` (spec steps 1-7) on small hand-checked cases and the real data."""

from pathlib import Path

import pytest

from evaluation.scoring import (
    NO_FALLACY,
    Corpus,
    Predictions,
    ScoringInputError,
    TextGold,
    TextPrediction,
    published_mafalda_mapping,
    read_gold,
    read_predictions,
    score,
    sentence_oracle,
)
from evaluation.scoring.profiles import UNCOVERED, ParseTally, mafalda_2024_spans

A, B = "ad hominem", "straw man"
S1, S2 = "Aaaa.", "Bbbbbbbbb."  # 5 and 10 characters
TEXT = f"{S1} {S2}"  # S2 at [6, 16)


def level_scores(gold: TextGold, outputs: dict | None, level: int, profile="mafalda-2024"):
    predictions = [TextPrediction.from_sentences(gold.text, outputs)] if outputs is not None else []
    report = score(
        Corpus([gold]),
        Predictions(predictions),
        profile=profile,
        levels=(level,),
        bootstrap_resamples=0,
    )
    scores = report.levels[level]
    return scores.precision, scores.recall, scores.f1


def gold_ranges(gold: TextGold, level: int):
    spans = mafalda_2024_spans(
        gold, None, (level,), published_mafalda_mapping(), None, ParseTally()
    )
    return [(span.start, span.end, set(span.labels)) for span in spans[level][1]]


def test_uncovered_gold_cursor_with_off_by_one():
    gold = TextGold.from_triples("x" * 50, [[5, 10, A], [8, 20, B], [30, 40, A]])
    # c=0 -> (0, 4); c=11; (8,20): c=21; (30,40): (21, 29), c=41; end: (41, 50).
    assert gold_ranges(gold, 2) == [
        (5, 10, {A}),
        (8, 20, {B}),
        (30, 40, {A}),
        (0, 4, {UNCOVERED}),
        (21, 29, {UNCOVERED}),
        (41, 50, {UNCOVERED}),
    ]
    assert gold_ranges(gold, 1)[3:] == [
        (0, 4, {UNCOVERED}),
        (21, 29, {UNCOVERED}),
        (41, 50, {UNCOVERED}),
    ]
    assert gold_ranges(gold, 0) == [
        (5, 10, {"fallacy"}),
        (8, 20, {"fallacy"}),
        (30, 40, {"fallacy"}),
        (0, 4, {NO_FALLACY}),
        (21, 29, {NO_FALLACY}),
        (41, 50, {NO_FALLACY}),
    ]


def test_text_without_triples_is_one_uncovered_range():
    gold = TextGold.from_triples("x" * 12, [])
    assert gold_ranges(gold, 2) == [(0, 12, {UNCOVERED})]
    # Empty prediction: P = 1, the uncovered range is required and never recalled.
    assert level_scores(gold, None, 2) == (1.0, 0.0, 0.0)
    assert level_scores(gold, None, 0) == (1.0, 1.0, 1.0)


def test_uncovered_ranges_are_unmatchable_at_levels_1_and_2_but_no_fallacy_at_0():
    gold = TextGold.from_triples(TEXT, [[6, 16, A]])  # uncovered: (0, 5)
    outputs = {S1: "No.", S2: "Ad hominem"}
    # Level 2: spans [0,5) ⊥ (scores 0) and [6,16) ad hominem (1); gold⁻ = 2, one recalled.
    assert level_scores(gold, outputs, 2) == (0.5, 0.5, 0.5)
    assert level_scores(gold, outputs, 1) == (0.5, 0.5, 0.5)
    # Level 0: the ⊥ span matches the uncovered ⊥ range; it is not in the recall set.
    assert level_scores(gold, outputs, 0) == (1.0, 1.0, 1.0)
    # The same outputs under "paper": ⊥ predicts nothing, no uncovered ranges.
    assert level_scores(gold, outputs, 2, profile="paper") == (1.0, 1.0, 1.0)


def test_unknown_outputs_form_counted_spans():
    gold = TextGold.from_triples(TEXT, [[6, 16, A]])
    outputs = {S1: "qwerty", S2: "ad hominem"}
    assert level_scores(gold, outputs, 2)[0] == 0.5
    assert level_scores(gold, outputs, 0)[0] == 1.0  # unknown -> ⊥ at level 0


def test_no_fallacy_spans_earn_precision_only_against_no_fallacy_alternatives():
    gold = TextGold.from_triples(TEXT, [[0, 5, B], [0, 5, "nothing"], [6, 16, A]])
    outputs = {S1: "none", S2: "ad hominem"}
    assert level_scores(gold, outputs, 2) == (1.0, 1.0, 1.0)


def test_sentence_positions_are_cumulative_lengths_plus_one():
    text = f"{S1}   {S2}"  # S2 truly at [8, 18); the profile puts it at [6, 16)
    gold = TextGold.from_triples(text, [[0, 5, B], [8, 18, A]])  # uncovered (6, 7)
    outputs = {S1: "straw man", S2: "ad hominem"}
    precision, recall, _ = level_scores(gold, outputs, 2)
    assert precision == pytest.approx((1 + 8 / 10) / 2)
    assert recall == pytest.approx((1 + 8 / 10 + 0) / 3)
    assert level_scores(gold, outputs, 2, profile="paper") == (1.0, 1.0, 1.0)


def test_spans_are_formed_at_level_2_and_not_joined_after_mapping():
    text = "Aaaaaaaaa. Bbbbbbbbb."
    gold = TextGold.from_triples(text, [[0, 21, A]])
    outputs = {"Aaaaaaaaa.": "ad hominem", "Bbbbbbbbb.": "tu quoque"}
    # Level 1: two "credibility" spans of 10, each 10/21 of the gold span.
    precision, recall, _ = level_scores(gold, outputs, 1)
    assert (precision, recall) == (1.0, pytest.approx(10 / 21))
    assert level_scores(gold, outputs, 1, profile="paper") == (1.0, 1.0, 1.0)


def test_zero_length_sentence_span_scores_zero_but_counts():
    text = "Bbbbbbbbb."
    gold = TextGold.from_triples(text, [[0, 10, B]])
    # "" sits at [0, 0); the next sentence at [1, 11) overlaps the gold span by 9.
    outputs = {"": "ad hominem", text: "straw man"}
    precision, recall, _ = level_scores(gold, outputs, 2)
    assert precision == pytest.approx((0 + 0.9) / 2)
    assert recall == pytest.approx(0.9)
    with pytest.raises(ScoringInputError, match="sentence 0 is empty"):
        level_scores(gold, outputs, 2, profile="paper")


def test_span_predictions_are_refused():
    gold = TextGold.from_triples(TEXT, [[6, 16, A]])
    prediction = TextPrediction.from_triples(TEXT, [[6, 16, A]], origin="p:1")
    with pytest.raises(ScoringInputError, match="p:1: profile mafalda-2024 scores per-sentence"):
        score(Corpus([gold]), Predictions([prediction]), profile="mafalda-2024")


# ---- real data ----------------------------------------------------------------------

SYSTEMS = [
    "LLaMA2-Chat_13B_8-bit",
    "LLaMA2-Chat_7B_8-bit",
    "LLaMA2_13B_8-bit",
    "LLaMA2_7B_8-bit",
    "Mistral-Instruct_7B_8-bit",
    "Mistral_7B_8-bit",
    "Vicuna_13B_8-bit",
    "Vicuna_7B_8-bit",
    "WizardLM_13B_8-bit",
    "WizardLM_7B_8-bit",
    "Zephyr_7B_8-bit",
    "base-random",
    "base-silent",
    "gpt-3.5",
]


@pytest.fixture(scope="module")
def gold(mafalda_gold_path: Path) -> Corpus:
    return read_gold(mafalda_gold_path)


def results(mafalda_dir: Path, system: str) -> Predictions:
    return read_predictions(mafalda_dir / "results" / f"{system}_level_2_results.jsonl")


def test_silent_baseline_scores_zero_at_levels_1_and_2(gold, mafalda_dir):
    report = score(gold, results(mafalda_dir, "base-silent"), profile="mafalda-2024")
    for level in (1, 2):
        assert report.levels[level].recall == 0.0
        assert report.levels[level].f1 == 0.0


def test_sentence_oracle_is_capped_near_045_under_mafalda_2024(gold):
    report = score(gold, sentence_oracle(gold), profile="mafalda-2024", bootstrap_resamples=0)
    assert report.levels[1].f1 == pytest.approx(0.4567, abs=5e-4)
    assert report.levels[2].f1 == pytest.approx(0.4563, abs=5e-4)


def test_sentence_oracle_is_close_to_one_under_paper(gold):
    report = score(gold, sentence_oracle(gold), bootstrap_resamples=0)
    for level in (0, 1, 2):
        assert report.levels[level].f1 > 0.96
    assert report.levels[2].recall == pytest.approx(0.9991, abs=5e-4)


# Published by the MAFALDA authors (result_subjective_metric.csv): P, R, F1 at levels 0-2.
PUBLISHED = {
    "gpt-3.5": (
        (0.7012538815185817, 0.6692761459466066, 0.6268700856612793),
        (0.23307554303047187, 0.20263206577383217, 0.20095856198474407),
        (0.1623471791280075, 0.13809723714201189, 0.13754726520148275),
    ),
    "LLaMA2-Chat_13B_8-bit": (
        (0.49251455465897104, 0.7928078052020961, 0.5490918742094938),
        (0.17263943502771853, 0.18337539377977968, 0.15976997069789786),
        (0.10123998429089714, 0.12152993767463363, 0.09597562743427264),
    ),
}


@pytest.mark.parametrize("system", sorted(PUBLISHED))
def test_reproduces_published_numbers(gold, mafalda_dir, system):
    report = score(
        gold, results(mafalda_dir, system), profile="mafalda-2024", bootstrap_resamples=0
    )
    for level, expected in enumerate(PUBLISHED[system]):
        scores = report.levels[level]
        assert (scores.precision, scores.recall, scores.f1) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("profile", ["paper", "mafalda-2024"])
def test_all_fourteen_systems_score(gold, mafalda_dir, profile):
    for system in SYSTEMS:
        report = score(gold, results(mafalda_dir, system), profile=profile, bootstrap_resamples=50)
        assert report.texts == 200 and report.outputs == 940, system
        assert report.parser == "keyword"
        for scores in report.levels.values():
            assert 0.0 <= scores.f1 <= 1.0
            low, high = scores.f1_ci95
            assert low <= scores.f1 <= high, system
