"""Item scoring profiles (``definition``, ``authors-smartypat``) and the label normalisation
rules, on a small synthetic benchmark of our own in SmartyPat's published shapes; every
figure computed by hand, every quirk switch on and off."""

from __future__ import annotations

import json

import pytest

from evaluation.benchmarks import get_task
from evaluation.benchmarks.items import TaskItem
from evaluation.scoring.core import ScoringInputError
from evaluation.scoring.item_profiles import (
    AUTHORS_SMARTYPAT,
    DEFINITION,
    HARMONIC_13,
    PROFILES,
    categorisation,
    detection,
    profiles_for,
)
from evaluation.scoring.items import score_answers
from evaluation.scoring.label_answers import read_labels
from tests.support.smartypat import (
    ANSWERS,
    AUTHORS_PER_TYPE,
    AUTHORS_S,
    CELLS,
    DEFINITION_PER_TYPE,
    DEFINITION_S,
    DETECTION_ANSWERS,
    DETECTION_GOLD,
    DETECTION_PRED,
    GOLD,
)

LABELS = [
    "false dilemma",
    "equivocation",
    "false premise",
    "false analogy",
    "false cause",
    "wrong direction",
    "accident fallacy",
    "nominal fallacy",
    "contextomy",
]
ALIASES = {"post hoc": "false cause", "false dichotomy": "false dilemma"}


def authors(**switches):
    return PROFILES[AUTHORS_SMARTYPAT].with_switches(**switches)


def s_of(profile, answers=ANSWERS) -> dict:
    return categorisation(
        GOLD, answers, profile=profile, labels=LABELS, aliases=ALIASES, gold_texts=CELLS
    )


# --- the normalisation rules ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "labels", "unreadable"),
    [
        ("False Cause, Equivocation", ["false cause", "equivocation"], []),
        ("false_cause; FALSE-DILEMMA", ["false cause", "false dilemma"], []),
        ("1. False Premise\n2. Equivocation", ["false premise", "equivocation"], []),
        ("1. False Premise, 2. Equivocation", ["false premise", "equivocation"], []),
        ("False Cause > Equivocation > False Cause", ["false cause", "equivocation"], []),
        ("\"False Analogy\", 'Contextomy'", ["false analogy", "contextomy"], []),
        ("**Nominal Fallacy**.", ["nominal fallacy"], []),
        ('["Accident fallacy", " equivocation "]', ["accident fallacy", "equivocation"], []),
        ('{"logic_error": "yes", "logic_fallacies": "post hoc"}', ["false cause"], []),
        ("It is a false dichotomy", ["false dilemma"], []),
        ("Equivokation, False Premise", ["false premise"], ["Equivokation"]),
    ],
)
def test_the_normalisation_rules_read_labels_and_count_what_stays_unreadable(
    answer, labels, unreadable
) -> None:
    reading = read_labels(answer, LABELS, ALIASES)
    assert reading.labels == labels
    assert reading.unreadable == unreadable


@pytest.mark.parametrize(
    ("answer", "prediction"),
    [
        ("none", []),
        ("No fallacy.", []),
        ('{"logic_error": "no", "logic_fallacies": "none"}', []),
        ("[]", []),
        ("Equivokation", None),
    ],
)
def test_no_fallacy_and_unparseable_answers(answer, prediction) -> None:
    assert read_labels(answer, LABELS).prediction == prediction
    ranked = get_task("ranked").parse(answer, item=TaskItem(id=1, text="t"), labels=LABELS)
    assert ranked == prediction


def test_the_detection_parser_reads_smartypat_output_records() -> None:
    task = get_task("detection")
    item = TaskItem(id=1, text="t")
    assert [task.parse(a, item=item, labels=[]) for a in ANSWERS] == [
        True, True, True, False, True, True, False, True,
    ]  # fmt: skip


# --- categorisation S -------------------------------------------------------------------------


def test_definition_s_by_hand_equals_the_platform_report() -> None:
    body = s_of(PROFILES[DEFINITION])
    assert body["per_item_s"] == pytest.approx(DEFINITION_S)
    assert body["sum_s"] == pytest.approx(1.0)
    assert body["mean_s"] == pytest.approx(1.0 / 8)
    assert body["unreadable_labels"] == {
        "pieces": 2,
        "items": 2,
        "examples": ["Cause", "Equivokation"],
    }
    predictions = [read_labels(a, LABELS, ALIASES).prediction for a in ANSWERS]
    report = score_answers("ranked", GOLD, predictions, labels=LABELS)
    assert report["profile"] == DEFINITION
    assert report["metrics"]["mean_s"] == pytest.approx(1.0 / 8)
    assert report["metrics"]["sum_s"] == pytest.approx(1.0)
    assert report["metrics"]["per_type_accuracy"] == DEFINITION_PER_TYPE


def test_authors_s_by_hand() -> None:
    report = score_answers(
        "ranked",
        GOLD,
        [None] * len(GOLD),
        labels=LABELS,
        profile=AUTHORS_SMARTYPAT,
        answers=ANSWERS,
        aliases=ALIASES,
        gold_texts=CELLS,
    )
    assert report["profile"] == AUTHORS_SMARTYPAT
    assert report["per_item_s"] == pytest.approx(AUTHORS_S)
    assert report["primary"] == {"name": "sum_s", "value": pytest.approx(-3.18)}
    assert report["metrics"]["mean_s"] == pytest.approx(-3.18 / 6)
    assert report["scored"] == 6 and report["items"] == 8
    assert report["metrics"]["per_type_accuracy"] == AUTHORS_PER_TYPE
    assert report["switches"]["no_fallacy_penalty"] == "harmonic-13"


@pytest.mark.parametrize(
    ("switches", "total"),
    [
        ({}, -3.18),
        ({"no_fallacy_penalty": "one"}, -1.0),  # item 4: -1 instead of -3.18
        ({"label_match": "exact"}, -5.18),  # items 1 and 5: 0.5 and -1.5
        ({"strip_numbering": True}, -1.18),  # item 2: 1 - 1/2
        ({"strip_list_items": True}, -2.18),  # item 1: 1 + 1/2
        ({"normalise_labels": True}, -1.18),  # 1.5, 0.5, -0.5, -3.18, -1, 1.5
        ({"s_items": "all"}, -3.68),  # benign: +1 and -(1 + 1/2)
        ({"round_items": None}, 0.5 - 1.5 - 1 - HARMONIC_13 + 0.5 + 1.5),
    ],
)
def test_each_authors_switch_changes_s_as_computed_by_hand(switches, total) -> None:
    assert s_of(authors(**switches))["sum_s"] == pytest.approx(total)


def test_the_primary_figure_is_the_sum_or_the_mean() -> None:
    def primary(profile: str, **switches) -> dict:
        body = s_of(PROFILES[profile].with_switches(**switches))
        return (
            body["sum_s"]
            if PROFILES[profile].with_switches(**switches).s_total == "sum"
            else (body["mean_s"])
        )

    assert primary(AUTHORS_SMARTYPAT) == pytest.approx(-3.18)
    assert primary(AUTHORS_SMARTYPAT, s_total="mean") == pytest.approx(-0.53)
    assert primary(DEFINITION) == pytest.approx(0.125)
    assert primary(DEFINITION, s_total="sum") == pytest.approx(1.0)


def test_the_authors_per_type_counting_switch() -> None:
    trimmed = s_of(authors(strip_gold_pieces=True))["per_type_accuracy"]
    assert trimmed["equivocation"] == 0.5  # item 6's " equivocation" now found


def test_an_answer_with_logic_error_neither_yes_nor_no_scores_nothing_for_the_authors() -> None:
    odd = json.dumps({"logic_error": "maybe", "logic_fallacies": ["false premise"]})
    body = categorisation(
        [["false premise"]], [odd], profile=authors(), labels=LABELS, gold_texts=["False Premise"]
    )
    assert body["per_item_s"] == [0.0]
    definition = categorisation(
        [["false premise"]], ["Equivokation"], profile=PROFILES[DEFINITION], labels=LABELS
    )
    assert definition["per_item_s"] == [-1.0] and definition["unusable"] == 1


# --- detection --------------------------------------------------------------------------------

# DETECTION_PRED: fallacious items yes, yes, yes, no, yes, unparseable; benign no, yes


def test_detection_by_hand_under_both_profiles_and_each_switch() -> None:
    textbook = score_answers("detection", DETECTION_GOLD, DETECTION_PRED, labels=[])
    # tp 4, fp 1, fn 2: precision 4/5, recall 2/3, F1 8/11
    assert textbook["metrics"]["precision"] == pytest.approx(0.8)
    assert textbook["metrics"]["recall"] == pytest.approx(2 / 3)
    assert textbook["primary"]["value"] == pytest.approx(8 / 11)

    report = score_answers(
        "detection", DETECTION_GOLD, DETECTION_PRED, labels=[], profile=AUTHORS_SMARTYPAT
    )
    # N = 6 fallacious: the 2 benign answers plus 4 phantom "no"s. TP' = 4/5,
    # FN' = 2/(2 + 5); recall = (4/5)/(4/5 + 2/7) = 14/19; F1 = 56/73 = 0.767 (rounded)
    assert report["counts"] == {
        "yes_fallacious": 4,
        "no_fallacious": 2,
        "yes_benign": 1,
        "no_benign": 5,
    }
    assert report["metrics"]["precision"] == pytest.approx(0.8)
    assert report["metrics"]["recall"] == pytest.approx(14 / 19)
    assert report["primary"] == {"name": "f1", "value": 0.767}
    assert report["benign_counted"] == 6 and report["benign_items"] == 2
    from_text = score_answers(
        "detection", DETECTION_GOLD, DETECTION_ANSWERS, labels=[], profile=AUTHORS_SMARTYPAT
    )  # raw answers (output records, one unreadable) read by the detection parser
    assert from_text["primary"] == report["primary"] and from_text["counts"] == report["counts"]

    def f1(**switches) -> float:
        return detection(DETECTION_GOLD, DETECTION_PRED, profile=authors(**switches))["f1"]

    assert f1(round_f1=None) == pytest.approx(56 / 73)
    assert f1(pad_benign=False) == pytest.approx(0.649)  # FN' = 2/3: recall 6/11, F1 24/37
    assert f1(pad_benign=False, round_f1=None) == pytest.approx(24 / 37)
    assert f1(recall="textbook", round_f1=None) == pytest.approx(8 / 11)
    # a benign set longer than the fallacious one is cut to N
    cut = detection([True, False, False], [True, True, False], profile=authors(round_f1=None))
    assert cut["counts"]["yes_benign"] == 1 and cut["benign_counted"] == 1


# --- which profiles apply -------------------------------------------------------------------


def test_profiles_apply_by_benchmark() -> None:
    assert profiles_for(None) == [DEFINITION]
    assert profiles_for("smartypat") == [DEFINITION, AUTHORS_SMARTYPAT]
    assert score_answers("free-text", ["a"], ["a"], labels=[], profile=AUTHORS_SMARTYPAT) is None
    with pytest.raises(ScoringInputError, match="unknown item profile"):
        score_answers("ranked", [[]], [[]], labels=[], profile="nope")


def test_a_persons_answers_score_under_both_profiles() -> None:
    """People answer with label lists ([] = no fallacy): the Results tab scores them too."""
    people = [g[:1] for g in GOLD[:6]] + [[], ["false premise"]]
    definition = score_answers("ranked", GOLD, people, labels=LABELS)
    # the first gold type on each fallacious item: +1 x 6; the sound ones: +1 and -1
    assert definition["metrics"]["sum_s"] == pytest.approx(6.0)
    theirs = score_answers(
        "ranked", GOLD, people, labels=LABELS, profile=AUTHORS_SMARTYPAT, gold_texts=CELLS
    )
    assert theirs["per_item_s"] == [1.0] * 6 and theirs["primary"]["value"] == 6.0
    assert theirs["metrics"]["per_type_accuracy"]["false analogy"] == 1.0


@pytest.mark.parametrize(
    ("fallacies", "authors_s", "switched_off_s"),
    [
        ("", 1.0, 0.0),  # one empty piece, a substring of every gold cell
        ([""], 1.0, 0.0),
        ([], 0.0, 0.0),  # no piece: nothing added
        ("False Premise, ", 1.5, 1.5),  # 1 for the label, +1/2 for the empty piece
    ],
)
def test_logic_error_yes_without_labels_is_scored_as_the_authors_script_does(
    fallacies, authors_s, switched_off_s
) -> None:
    answer = json.dumps({"logic_error": "yes", "logic_fallacies": fallacies})

    def item_s(profile) -> dict:
        return categorisation(
            [["false premise"]],
            [answer],
            profile=profile,
            labels=LABELS,
            gold_texts=["False Premise"],
        )

    theirs = item_s(authors())
    assert theirs["per_item_s"] == [authors_s] and theirs["unusable"] == 0
    off = item_s(authors(flagged_empty_usable=False))
    assert off["per_item_s"] == [switched_off_s]
    assert off["unusable"] == (0 if switched_off_s else 1)
    assert authors().switches()["flagged_empty_usable"] is True
    assert PROFILES[DEFINITION].switches()["flagged_empty_usable"] is False
