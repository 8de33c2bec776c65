"""Profile ``paper``: hand-checked cases for each rule of the scoring spec (no DB, no Django)."""

import json
import os
import subprocess
import sys

import pytest

from evaluation.scoring import (
    NO_FALLACY,
    Corpus,
    GoldSpan,
    Predictions,
    PredSpan,
    ScoringInputError,
    TextGold,
    TextPrediction,
    mafalda_mapping,
    score,
)
from evaluation.scoring.metric import join_sentence_runs, score_text
from evaluation.scoring.profiles import locate_sentences
from tests.support.paths import ROOT

A, B, C = "ad hominem", "straw man", "tu quoque"
# Three 10-character sentences separated by single spaces: [0,10), [11,21), [22,32).
S1, S2, S3 = "Aaaaaaaaa.", "Bbbbbbbbb.", "Ccccccccc."
TEXT = f"{S1} {S2} {S3}"


def gold_text(text: str, *spans: tuple[int, int, set[str]]) -> TextGold:
    return TextGold(text, tuple(GoldSpan(s, e, frozenset(labels)) for s, e, labels in spans))


def span_prediction(text: str, *spans: tuple[int, int, str]) -> TextPrediction:
    return TextPrediction(text, spans=tuple(PredSpan(*span) for span in spans))


def prf(gold: TextGold, prediction: TextPrediction | None, level: int = 2, **options):
    predictions = Predictions([prediction] if prediction else [])
    report = score(Corpus([gold]), predictions, levels=(level,), bootstrap_resamples=0, **options)
    scores = report.levels[level]
    return scores.precision, scores.recall, scores.f1


def test_optional_gold_span_and_empty_prediction_gives_full_scores():
    text = "x" * 27
    assert prf(gold_text(text, (0, 27, {A, NO_FALLACY})), None) == (1.0, 1.0, 1.0)


def test_required_gold_span_and_empty_prediction_has_no_recall():
    text = "x" * 27
    assert prf(gold_text(text, (0, 27, {A})), span_prediction(text)) == (1.0, 0.0, 0.0)


def test_prediction_covering_half_a_required_span():
    text = "x" * 28
    precision, recall, f1 = prf(gold_text(text, (0, 28, {A})), span_prediction(text, (0, 14, A)))
    assert (precision, recall) == (1.0, 0.5)
    assert f1 == pytest.approx(2 / 3)


def test_partial_overlap_scores_both_sides_by_their_own_length():
    text = "x" * 40
    # |p ∩ g| = 5; |p| = 10, |g| = 20.
    precision, recall, _ = prf(gold_text(text, (10, 30, {A})), span_prediction(text, (5, 15, A)))
    assert precision == pytest.approx(0.5)
    assert recall == pytest.approx(0.25)


def test_precision_takes_the_best_gold_span():
    text = "x" * 40
    gold = gold_text(text, (0, 5, {A}), (10, 20, {A}))
    precision, recall, _ = prf(gold, span_prediction(text, (0, 20, A)))
    assert precision == pytest.approx(10 / 20)
    assert recall == 1.0


def test_wrong_label_earns_nothing():
    text = "x" * 20
    assert prf(gold_text(text, (0, 10, {A})), span_prediction(text, (0, 10, B))) == (0, 0, 0)


def test_any_alternative_label_is_accepted():
    text = "x" * 20
    assert prf(gold_text(text, (0, 10, {A, B})), span_prediction(text, (0, 10, B))) == (1, 1, 1)


def test_empty_gold_with_a_prediction_has_precision_zero_recall_one():
    text = "x" * 20
    assert prf(gold_text(text), span_prediction(text, (0, 5, A))) == (0.0, 1.0, 0.0)


def test_same_range_twice_means_two_required_labels():
    text = "x" * 20
    gold = gold_text(text, (0, 10, {A}), (0, 10, {B}))
    assert prf(gold, span_prediction(text, (0, 10, A)))[:2] == (1.0, 0.5)
    assert prf(gold, span_prediction(text, (0, 10, A), (0, 10, B))) == (1.0, 1.0, 1.0)


def test_file_triples_on_one_range_are_alternatives():
    text = "x" * 20
    gold = TextGold.from_triples(text, [[0, 10, A], [0, 10, B]])
    assert gold.spans == (GoldSpan(0, 10, frozenset({A, B})),)
    assert prf(gold, span_prediction(text, (0, 10, A))) == (1.0, 1.0, 1.0)


def test_nothing_triple_makes_the_span_optional_and_is_not_a_prediction():
    text = "x" * 20
    gold = TextGold.from_triples(text, [[0, 10, A], [0, 10, "nothing"]])
    assert gold.spans[0].labels == {A, NO_FALLACY}
    prediction = TextPrediction.from_triples(text, [[0, 10, "Nothing"]])
    assert prediction.spans == ()
    assert prf(gold, prediction) == (1.0, 1.0, 1.0)


def test_labels_match_case_insensitively():
    text = "x" * 20
    gold = TextGold.from_triples(text, [[0, 10, "Appeal to Ridicule"]])
    prediction = TextPrediction.from_triples(text, [[0, 10, "appeal to RIDICULE"]])
    assert prf(gold, prediction) == (1.0, 1.0, 1.0)


def test_sentences_sharing_a_label_form_one_span():
    gold = gold_text(TEXT, (0, 21, {A}))
    joined = TextPrediction.from_sentences(TEXT, {S1: [A], S2: [A], S3: []})
    assert prf(gold, joined) == (1.0, 1.0, 1.0)
    split = TextPrediction.from_sentences(TEXT, {S1: [A], S2: [B], S3: []})
    precision, recall, _ = prf(gold, split)
    assert precision == 0.5  # [0,10) A scores 1, [11,21) B scores 0
    assert recall == pytest.approx(10 / 21)


def test_level_mapping_joins_adjacent_sentences_of_one_category():
    # ad hominem and tu quoque are both "credibility".
    gold = gold_text(TEXT, (0, 21, {A}))
    prediction = TextPrediction.from_sentences(TEXT, {S1: [A], S2: [C], S3: ["nothing"]})
    precision, recall, _ = prf(gold, prediction, level=2)
    assert (precision, recall) == (0.5, pytest.approx(10 / 21))
    assert prf(gold, prediction, level=1) == (1.0, 1.0, 1.0)
    assert prf(gold, prediction, level=0) == (1.0, 1.0, 1.0)


def test_no_fallacy_and_unreadable_sentences_predict_nothing():
    gold = gold_text(TEXT, (11, 21, {A}))
    prediction = TextPrediction.from_sentences(
        TEXT, {S1: "No fallacy here.", S2: "ad hominem", S3: "qwerty"}
    )
    report = score(Corpus([gold]), Predictions([prediction]), bootstrap_resamples=0)
    assert report.parser == "keyword"
    assert report.levels[2].predicted_spans == 1
    assert (report.levels[2].precision, report.levels[2].recall) == (1.0, 1.0)
    assert report.unreadable == 1 and report.unreadable_share == pytest.approx(1 / 3)


def test_sentence_positions_are_true_character_positions():
    text = f"{S1}   {S2}"  # three spaces: S2 starts at 13
    gold = gold_text(text, (13, 23, {A}))
    prediction = TextPrediction.from_sentences(text, {S1: [], S2: [A]})
    assert prf(gold, prediction) == (1.0, 1.0, 1.0)


def test_sentence_missing_from_the_text_is_an_error():
    prediction = TextPrediction.from_sentences(TEXT, {"Not in the text.": [A]}, origin="run:7")
    with pytest.raises(ScoringInputError, match="run:7.*sentence 0 not found"):
        prf(gold_text(TEXT), prediction)


def test_level_mapping_collapses_gold_alternatives_into_a_set():
    gold = gold_text(TEXT, (0, 10, {A, C}))
    report = score(Corpus([gold]), Predictions([]), levels=(1,), bootstrap_resamples=0)
    assert report.levels[1].per_label["credibility"].gold_spans == 1


def test_text_average_is_the_mean_of_per_text_scores_not_f1_of_means():
    first = "First text, twenty c"
    second = "Second text, twenty "
    corpus = Corpus([gold_text(first, (0, 10, {A})), gold_text(second)])
    predictions = Predictions([span_prediction(second, (0, 10, A))])
    text_report = score(corpus, predictions, levels=(2,), average="text", bootstrap_resamples=0)
    # text 1: P=1 (no prediction), R=0, F1=0; text 2: P=0, R=1 (nothing required), F1=0.
    level = text_report.levels[2]
    assert (level.precision, level.recall, level.f1) == (0.5, 0.5, 0.0)
    corpus_report = score(corpus, predictions, levels=(2,), average="corpus", bootstrap_resamples=0)
    level = corpus_report.levels[2]
    assert (level.precision, level.recall, level.f1) == (0.0, 0.0, 0.0)
    assert text_report.texts_without_prediction == 1


def test_corpus_average_pools_spans():
    first, second = "x" * 30, "y" * 30
    corpus = Corpus([gold_text(first, (0, 10, {A})), gold_text(second, (0, 10, {A}))])
    predictions = Predictions(
        [
            span_prediction(first, (0, 10, A)),
            span_prediction(second, (0, 5, B), (10, 15, B), (20, 25, B)),
        ]
    )
    text_level = score(corpus, predictions, levels=(2,), bootstrap_resamples=0).levels[2]
    assert (text_level.precision, text_level.recall, text_level.f1) == (0.5, 0.5, 0.5)
    pooled = score(corpus, predictions, levels=(2,), average="corpus", bootstrap_resamples=0)
    level = pooled.levels[2]
    assert (level.precision, level.recall) == (0.25, 0.5)
    assert level.f1 == pytest.approx(1 / 3)


def test_identical_predicted_spans_collapse():
    text = "x" * 20
    gold = gold_text(text, (0, 10, {A}))
    prediction = span_prediction(text, (10, 20, A), (10, 20, A), (0, 10, A))
    assert prf(gold, prediction)[0] == 0.5


def test_per_label_scores_and_confusion():
    text = "x" * 40
    gold = gold_text(text, (0, 10, {A}), (20, 30, {B, NO_FALLACY}))
    prediction = span_prediction(text, (0, 10, A), (20, 30, A), (35, 40, C))
    level = score(Corpus([gold]), Predictions([prediction]), levels=(2,)).levels[2]
    assert level.per_label[A].precision == 0.5  # 1 for [0,10), 0 for [20,30)
    assert level.per_label[A].recall == 1.0
    assert level.per_label[B].predicted_spans == 0
    assert level.per_label[B].required_gold_spans == 0
    assert level.per_label[C].precision == 0.0
    assert level.confusion == {
        (A, A): 1,
        (B, A): 1,
        (NO_FALLACY, A): 1,
        ("(none)", C): 1,
    }
    assert (level.predicted_spans, level.gold_spans, level.required_gold_spans) == (3, 2, 1)


def test_unmatched_gold_appears_as_predicted_none():
    text = "x" * 20
    level = score(Corpus([gold_text(text, (0, 10, {A}))]), Predictions([]), levels=(2,))
    assert level.levels[2].confusion == {(A, "(none)"): 1}


def test_bootstrap_interval_is_seeded_and_brackets_the_mean():
    texts = [f"text number {index:02d} padding" for index in range(30)]
    corpus = Corpus([gold_text(text, (0, 10, {A})) for text in texts])
    predictions = Predictions(
        [span_prediction(text, (0, 10, A if index % 3 else B)) for index, text in enumerate(texts)]
    )
    first = score(corpus, predictions, levels=(2,), seed=7).levels[2]
    second = score(corpus, predictions, levels=(2,), seed=7).levels[2]
    assert first.f1 == pytest.approx(20 / 30)
    assert first.f1_ci95 == second.f1_ci95
    low, high = first.f1_ci95
    assert 0.4 < low < first.f1 < high < 0.9


def test_report_is_json_serialisable_and_names_its_setting():
    text = "x" * 20
    report = score(Corpus([gold_text(text, (0, 10, {A}))]), Predictions([span_prediction(text)]))
    data = json.loads(json.dumps(report.to_dict()))
    assert (data["profile"], data["parser"], data["average"]) == ("paper", None, "text")
    assert set(data["levels"]) == {"0", "1", "2"}
    assert data["unreadable_share"] == 0.0


@pytest.mark.parametrize(
    ("triple", "message"),
    [
        ([5, 5, A], r"span \(5, 5\)"),
        ([0, 21, A], r"span \(0, 21\).*len\(text\) = 20"),
        ([-1, 4, A], r"span \(-1, 4\)"),
        (["0", 4, A], "must be integers"),
        ([0, 4, ""], "label must be a non-empty string"),
        ([0, 4], r"expected \[start, end, label\]"),
    ],
)
def test_invalid_gold_is_an_error_naming_place_span_and_field(triple, message):
    with pytest.raises(ScoringInputError, match=rf"gold.jsonl:3 labels\[1\].*{message}"):
        TextGold.from_triples("x" * 20, [[0, 2, A], triple], origin="gold.jsonl:3")


def test_gold_span_whose_only_label_is_no_fallacy_is_an_error():
    with pytest.raises(ScoringInputError, match=r"\(0, 4\).*only label is ⊥"):
        TextGold.from_triples("x" * 20, [[0, 4, "nothing"]], origin="g:1")


def test_invalid_predicted_span_is_an_error():
    with pytest.raises(ScoringInputError, match=r"pred.jsonl:2 labels\[0\]: span \(3, 2\)"):
        TextPrediction.from_triples("x" * 20, [[3, 2, A]], origin="pred.jsonl:2")


def test_label_outside_the_taxonomy_is_an_error_naming_the_prediction():
    text = "x" * 20
    prediction = TextPrediction.from_triples(text, [[0, 5, "red herring"]], origin="p.jsonl:4")
    with pytest.raises(ScoringInputError, match="p.jsonl:4.*'red herring'"):
        prf(gold_text(text), prediction)


def test_prediction_for_an_unknown_text_is_an_error_naming_its_line():
    prediction = TextPrediction.from_triples("other text", [], origin="p.jsonl:9")
    with pytest.raises(ScoringInputError, match="p.jsonl:9: text not found"):
        score(Corpus([gold_text("x" * 20)]), Predictions([prediction]))


def test_join_sentence_runs_handles_labels_that_stop_and_restart():
    positions = [(0, 10), (11, 21), (22, 32)]
    spans = join_sentence_runs(positions, [{A, B}, {B}, {A}])
    assert spans == [PredSpan(0, 10, A), PredSpan(0, 21, B), PredSpan(22, 32, A)]


def test_zero_length_prediction_scores_zero_but_counts():
    counts = score_text([PredSpan(5, 5, A), PredSpan(0, 10, A)], [GoldSpan(0, 10, frozenset({A}))])
    assert (counts.precision, counts.recall) == (0.5, 1.0)


def test_package_imports_and_scores_without_django():
    code = (
        "import sys\n"
        "from evaluation.scoring import Corpus, Predictions, TextGold, TextPrediction, score\n"
        "text = 'x' * 20\n"
        "gold = TextGold.from_triples(text, [[0, 10, 'ad hominem']])\n"
        "pred = TextPrediction.from_triples(text, [[0, 10, 'ad hominem']])\n"
        "report = score(Corpus([gold]), Predictions([pred]))\n"
        "assert report.levels[2].f1 == 1.0\n"
        "assert not [m for m in sys.modules if m.split('.')[0] == 'django']\n"
    )
    env = {key: value for key, value in os.environ.items() if key != "DJANGO_SETTINGS_MODULE"}
    root = ROOT
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr


def test_sentence_repeated_inside_the_previous_one_is_found_there():
    # As in one MAFALDA text: the last key is the tail of the sentence before it.
    text = "One two. Three four five. "
    positions = locate_sentences(text, ["One two.", "Three four five.", "four five."], "t")
    assert positions == [(0, 8), (9, 25), (15, 25)]


def test_mafalda_2024_refuses_another_mapping():
    with pytest.raises(ScoringInputError, match="published MAFALDA table"):
        score(Corpus([]), Predictions([]), profile="mafalda-2024", mapping=mafalda_mapping())
