"""Sentence splitting and alignment: sentences tile the non-blank content of a text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from annotations.sentences import (
    SentenceError,
    UnitNotFoundError,
    align_units,
    check_tiling,
    sentences_from_units,
    split_sentences,
)


def _mafalda_records(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as stream:
        return [json.loads(line) for line in stream]


def test_split_sentences_gives_stripped_ordered_ranges() -> None:
    text = "  Hello there.  How are you?\n\nI am fine.  "
    ranges = split_sentences(text)
    assert [text[s:e] for s, e in ranges] == ["Hello there.", "How are you?", "I am fine."]
    check_tiling(text, ranges)


@pytest.mark.parametrize("text", ["", "   \n\t ", "\n"])
def test_blank_text_has_no_sentences(text: str) -> None:
    assert split_sentences(text) == []


def test_split_sentences_of_a_region_stays_inside_it() -> None:
    text = "Before. Inside one. Inside two. After."
    start, end = text.index("Inside"), text.index(" After")
    ranges = split_sentences(text, start, end)
    assert [text[s:e] for s, e in ranges] == ["Inside one.", "Inside two."]


def test_split_sentences_tiles_every_mafalda_text(mafalda_gold_path: Path) -> None:
    for record in _mafalda_records(mafalda_gold_path):
        check_tiling(record["text"], split_sentences(record["text"]))


def test_align_units_finds_units_in_order_ignoring_surrounding_whitespace() -> None:
    text = "Go now. Go now. Stay.\n"
    assert align_units(text, ["Go now.", " Go now.\n", "Stay."]) == [(0, 7), (8, 15), (16, 21)]


def test_align_units_tolerates_different_whitespace_runs() -> None:
    text = "TITLE: A question\r\nPOST: an answer."
    assert align_units(text, ["TITLE: A question POST:  an answer."]) == [(0, len(text))]


def test_align_units_names_the_unit_it_cannot_find() -> None:
    with pytest.raises(UnitNotFoundError, match=r"sentence unit 1 \('Not in the text"):
        align_units("One sentence. Two.", ["One sentence.", "Not in the text at all"])


def test_units_leaving_punctuation_and_text_uncovered_are_repaired() -> None:
    text = '"First said. Second said." POST: added here. Last one. "Quote."\n'
    units = ["First said.", "Second said.", "Last one.", "Quote."]
    alignment = sentences_from_units(text, units)
    sentences = [text[s:e] for s, e in alignment.ranges]
    assert sentences == [
        '"First said.',
        'Second said."',
        "POST: added here.",
        "Last one.",
        '"Quote."',
    ]
    assert (alignment.aligned, alignment.added, alignment.dropped) == (4, 1, [])


def test_a_unit_repeating_covered_text_is_dropped() -> None:
    text = "It is big, red and round. It is done.\n"
    alignment = sentences_from_units(text, ["It is big, red and round.", "It is done.", "red"])
    assert alignment.dropped == [2]
    assert [text[s:e] for s, e in alignment.ranges] == ["It is big, red and round.", "It is done."]


def test_mafalda_sentence_units_align_into_a_tiling(mafalda_gold_path: Path) -> None:
    units = aligned = added = sentences = 0
    dropped = []
    for line, record in enumerate(_mafalda_records(mafalda_gold_path), start=1):
        alignment = sentences_from_units(
            record["text"], list(json.loads(record["sentences_with_labels"]))
        )
        check_tiling(record["text"], alignment.ranges)
        units += alignment.units
        aligned += alignment.aligned
        added += alignment.added
        sentences += len(alignment.ranges)
        dropped += [(line, index) for index in alignment.dropped]
    assert units == 940
    # Text 24 repeats the end of its third sentence as a fourth unit; the rest align.
    assert (aligned, dropped) == (939, [(24, 3)])
    assert (added, sentences) == (18, 957)


@pytest.mark.parametrize(
    ("ranges", "problem"),
    [
        ([(0, 5), (4, 10)], "overlaps"),
        ([(0, 5)], "after the last sentence"),
        ([(0, 6), (7, 10)], "surrounding whitespace"),
        ([(6, 10)], "before sentence 0"),
        ([(0, 5), (6, 99)], "outside the text"),
    ],
)
def test_check_tiling_rejects_what_is_not_a_tiling(ranges: list, problem: str) -> None:
    with pytest.raises(SentenceError, match=problem):
        check_tiling("Abcd. Efg.", ranges)
