"""Readers: MAFALDA gold facts, prediction files, errors naming file and line."""

import json
from collections import Counter
from pathlib import Path

import pytest

from evaluation.scoring import (
    MAFALDA_TYPE_TO_CATEGORY,
    NO_FALLACY,
    Corpus,
    ScoringInputError,
    mafalda_mapping,
    read_gold,
    read_predictions,
    score,
)


def write_jsonl(path: Path, records: list) -> Path:
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def gold(mafalda_gold_path: Path) -> Corpus:
    return read_gold(mafalda_gold_path)


def test_gold_file_facts(gold):
    spans = [span for text in gold.texts for span in text.spans]
    assert len(gold) == 200
    assert gold.dropped == {"to clean": 4}
    assert len(spans) == 203
    assert sum(NO_FALLACY in span.labels for span in spans) == 14
    assert Counter(len(span.labels) for span in spans) == {1: 147, 2: 48, 3: 7, 4: 1}
    assert sum(not text.spans for text in gold.texts) == 63
    assert sum(not any(span.required for span in text.spans) for text in gold.texts) == 68
    assert sum(len(text.sentence_labels) for text in gold.texts) == 940
    assert {label for span in spans for label in span.labels} <= {
        *MAFALDA_TYPE_TO_CATEGORY,
        NO_FALLACY,
    }


def test_default_mapping_agrees_with_the_published_table():
    # The preset file (when present) must group the types as the published table does.
    assert dict(mafalda_mapping().type_to_category) == dict(MAFALDA_TYPE_TO_CATEGORY)


def test_raw_outputs_file_is_read_in_text_order(mafalda_dir):
    predictions = read_predictions(mafalda_dir / "results" / "gpt-3.5_level_2_results.jsonl")
    assert predictions.kind == "sentences"
    assert len(predictions.texts) == 200
    assert predictions.texts[0].sentences[1].sentence.startswith("I keep seeing")


def test_span_prediction_file_and_missing_texts(tmp_path):
    gold_path = write_jsonl(
        tmp_path / "gold.jsonl",
        [
            {"text": "x" * 20, "labels": [[0, 10, "ad hominem"]]},
            {"text": "y" * 20, "labels": [[0, 10, "straw man"]]},
        ],
    )
    pred_path = write_jsonl(
        tmp_path / "pred.jsonl", [{"text": "x" * 20, "labels": [[0, 10, "Ad Hominem"]]}]
    )
    report = score(read_gold(gold_path), read_predictions(pred_path), levels=(2,))
    # The second gold text has no prediction: it counts as an empty one (P=1, R=0).
    assert report.texts_without_prediction == 1
    assert (report.levels[2].precision, report.levels[2].recall) == (1.0, 0.5)


def test_unknown_text_error_names_the_line(tmp_path):
    gold_path = write_jsonl(tmp_path / "gold.jsonl", [{"text": "x" * 20, "labels": []}])
    pred_path = write_jsonl(
        tmp_path / "pred.jsonl",
        [{"text": "x" * 20, "labels": []}, {"text": "x" * 19, "labels": []}],
    )
    with pytest.raises(ScoringInputError, match=r"pred.jsonl:2: text not found"):
        score(read_gold(gold_path), read_predictions(pred_path))


def test_duplicate_prediction_is_an_error(tmp_path):
    gold_path = write_jsonl(tmp_path / "gold.jsonl", [{"text": "x" * 20, "labels": []}])
    pred_path = write_jsonl(tmp_path / "pred.jsonl", [{"text": "x" * 20, "labels": []}] * 2)
    with pytest.raises(ScoringInputError, match=r"pred.jsonl:2: second prediction.*pred.jsonl:1"):
        score(read_gold(gold_path), read_predictions(pred_path))


def test_bad_lines_are_errors_naming_the_line(tmp_path):
    bad_json = tmp_path / "bad.jsonl"
    bad_json.write_text('{"text": "abc", "labels": []}\n{oops\n', encoding="utf-8")
    with pytest.raises(ScoringInputError, match=r"bad.jsonl:2: invalid JSON"):
        read_gold(bad_json)
    bad_span = write_jsonl(
        tmp_path / "span.jsonl", [{"text": "abc", "labels": [[0, 9, "ad hominem"]]}]
    )
    with pytest.raises(ScoringInputError, match=r"span.jsonl:1 labels\[0\]: span \(0, 9\)"):
        read_gold(bad_span)
    no_text = write_jsonl(tmp_path / "notext.jsonl", [{"labels": []}])
    with pytest.raises(ScoringInputError, match=r"notext.jsonl:1: field 'text'"):
        read_predictions(no_text)
    mixed = write_jsonl(
        tmp_path / "mixed.jsonl",
        [{"text": "a", "labels": []}, {"text": "b", "prediction": {"b": "none"}}],
    )
    with pytest.raises(ScoringInputError, match="mixes span predictions"):
        read_predictions(mixed)


def test_duplicate_gold_text_is_an_error(tmp_path):
    path = write_jsonl(tmp_path / "gold.jsonl", [{"text": "abc", "labels": []}] * 2)
    with pytest.raises(ScoringInputError, match=r"gold.jsonl:2: the same text already appears"):
        read_gold(path)
