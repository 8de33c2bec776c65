"""A small synthetic benchmark of our own in SmartyPat's published shapes: a headerless
bench file (id, post, fallacy types as the authors spell them, declarative rewrite), a
benign file (one sentence a row) and one model's output records (``logic_error``,
``logic_fallacies`` with numbered, underscored, ">"-joined, misspelt and list-item labels),
with the figures both scoring profiles give, computed by hand."""

from __future__ import annotations

import csv
import json
from pathlib import Path

# The six fallacious items' gold cells as written (a stray tab included) and their labels;
# then two benign items.
CELLS = [
    "False Analogy,Equivocation",
    "False Premise",
    "Accident fallacy",
    "Nominal Fallacy\t",
    "False Cause",
    "Contextomy, Equivocation",
    "",
    "",
]
GOLD = [
    ["false analogy", "equivocation"],
    ["false premise"],
    ["accident fallacy"],
    ["nominal fallacy"],
    ["false cause"],
    ["contextomy", "equivocation"],
    [],
    [],
]
POSTS = [
    "Can a cell phone join a prison choir?",
    "Why can't I see the wind if it is everywhere?",
    "The sign says no running, so may I not run from a fire?",
    "If time flies, why can't I catch the bus?",
    "I washed my car and it rained, so washing cars brings rain?",
    "The poster says 'free' so the concert costs nothing at all?",
]
REWRITES = [
    "If prisons have cells and phones have cells, then a phone can sing in a prison choir.",
    "Since the wind is everywhere, everyone must be able to see it.",
    "Since the sign forbids running, running from a fire is forbidden too.",
    "Since time flies, it must be fast enough to catch the bus.",
    "Since it rained after I washed my car, washing the car made it rain.",
    "Since the poster says free, every part of the concert costs nothing.",
]
BENIGN = ["The library opens at nine on weekdays.", "Snow is frozen water."]
RECORDS = [
    {"logic_error": "yes", "logic_fallacies": ["False Analogy", " Equivocation"]},
    {"logic_error": "yes", "logic_fallacies": "1. False Premise, 2. Accident fallacy"},
    {"logic_error": "yes", "logic_fallacies": "false_cause > accident_fallacy"},
    {"logic_error": "no", "logic_fallacies": "none"},
    {"logic_error": "yes", "logic_fallacies": "Cause, Wrong Direction"},
    {"logic_error": "yes", "logic_fallacies": ["contextomy", "equivocation"]},
    {"logic_error": "no", "logic_fallacies": "none"},
    {"logic_error": "yes", "logic_fallacies": "Equivokation, False Premise"},
]
ANSWERS = [json.dumps(record) for record in RECORDS]
#: the detection answers: the records, but the sixth answers in words no parser reads
DETECTION_ANSWERS = [*ANSWERS[:5], "I cannot tell.", *ANSWERS[6:]]
DETECTION_GOLD = [True] * 6 + [False] * 2
DETECTION_PRED = [True, True, True, False, True, None, False, True]

# Definition, per item: 1 + 1/2; 1 - 1/2; -1 + 1/2; "no fallacy" -1; ("Cause" unreadable)
# wrong direction -1; 1 + 1/2; sound + "no fallacy" +1; sound + one label -1.
DEFINITION_S = [1.5, 0.5, -0.5, -1.0, -1.0, 1.5, 1.0, -1.0]
# Authors, fallacious items only: " equivocation" is no substring of "false analogy,
# equivocation" written without a space: 1 - 1/2; "1. false premise" and "2. accident
# fallacy" match nothing: -1 - 1/2; one piece "false_cause > accident_fallacy": -1;
# "no": -H13 rounded to -3.18; "cause" is in "false cause": 1 - 1/2; 1 + 1/2.
AUTHORS_S = [0.5, -1.5, -1.0, -3.18, 0.5, 1.5]
DEFINITION_PER_TYPE = {
    "false analogy": 1.0,
    "equivocation": 1.0,
    "false premise": 1.0,
    "accident fallacy": 1.0,
    "nominal fallacy": 0.0,
    "false cause": 0.0,
    "contextomy": 1.0,
}
# fallacy_count.py: the gold cell split at "," untrimmed, answers as the authors read them
AUTHORS_PER_TYPE = {
    "false analogy": 1.0,
    "equivocation": 0.0,
    "false premise": 0.0,
    "accident fallacy": 0.0,
    "nominal fallacy": 0.0,
    "false cause": 0.0,
    "contextomy": 1.0,
}

# Label counts of the ranked answers: the definition reads every item by the normalisation
# rules (each label once per item); the authors read the fallacious items' pieces as
# written (untrimmed list items, numbers and joiners kept).
DEFINITION_PREDICTED = {
    "false analogy": 1,
    "equivocation": 2,
    "false premise": 2,
    "accident fallacy": 2,
    "false cause": 1,
    "wrong direction": 1,
    "contextomy": 1,
    "no fallacy": 2,
}
DEFINITION_GOLD_COUNTS = {
    "false analogy": 1,
    "equivocation": 2,
    "false premise": 1,
    "accident fallacy": 1,
    "nominal fallacy": 1,
    "false cause": 1,
    "contextomy": 1,
    "no fallacy": 2,
}
AUTHORS_PREDICTED = {
    "false analogy": 1,
    " equivocation": 1,
    "1. false premise": 1,
    "2. accident fallacy": 1,
    "false_cause > accident_fallacy": 1,
    "no fallacy": 1,
    "cause": 1,
    "wrong direction": 1,
    "contextomy": 1,
    "equivocation": 1,
}
AUTHORS_GOLD_COUNTS = {
    "false analogy": 1,
    "equivocation": 2,
    "false premise": 1,
    "accident fallacy": 1,
    "nominal fallacy": 1,
    "false cause": 1,
    "contextomy": 1,
}


def write_files(folder: Path) -> tuple[Path, Path]:
    """The bench file (headerless, four columns) and the benign file (one column)."""
    bench, benign = folder / "bench.csv", folder / "good.csv"
    with bench.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle, lineterminator="\n").writerows(
            [str(i + 1), POSTS[i], CELLS[i], REWRITES[i]] for i in range(6)
        )
    with benign.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle, lineterminator="\n").writerows([text] for text in BENIGN)
    return bench, benign


def item_texts() -> list[str]:
    """The items' texts in import order (the rewrites, then the benign sentences)."""
    return [*REWRITES, *BENIGN]


def write_outputs(folder: Path) -> tuple[Path, Path]:
    """The model's outputs as published: a JSON array per file (bench, benign), each
    record ``{id, sentence, logic_error, logic_fallacies, details}`` with the ids 1..N of
    its own file."""
    paths = folder / "model_bench.json", folder / "model_benign.json"
    parts = (RECORDS[:6], item_texts()[:6]), (RECORDS[6:], BENIGN)
    for path, (records, sentences) in zip(paths, parts, strict=True):
        array = [
            {"id": i + 1, "sentence": sentence, **record, "details": "Explained at length."}
            for i, (record, sentence) in enumerate(zip(records, sentences, strict=True))
        ]
        path.write_text(json.dumps(array, indent=2), encoding="utf-8")
    return paths
