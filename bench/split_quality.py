"""Sentence splitters compared: quality first (boundaries against MAFALDA's gold units, and
targeted cases), then speed.

    .venv/bin/python bench/split_quality.py [--speed-texts 500]

Gold boundaries: the 940 ``sentences_with_labels`` units of the 200 MAFALDA gold texts
located in their texts (as ``sentences_from_units`` does); every unit start, and the start of
any uncovered text holding a letter or digit (``POST:`` headers, a trailing ``<URL>``), is a
boundary, except at the start of the text. A boundary is compared by the position of the
first letter or digit of the sentence it starts, so a quotation mark kept on either side does
not count as a miss. Precision, recall and F1 are micro-averaged over the texts; ``exact``
counts texts split exactly as the gold; ``F1-h`` is F1 without the boundaries at headers
(``TITLE:``, ``POST:``: the header's and the next word's), where the gold units are uneven
(``TITLE: … POST: …`` is sometimes one unit, sometimes two, sometimes three).

Targeted cases (``CASES``): abbreviations, initials, decimals, quotes, ellipses, Reddit-style
``TITLE:``/``POST:`` headers, line breaks and Chinese; a case passes when the sentences are
exactly those expected (whitespace stripped). Every splitter also has to give every
non-blank text at least one sentence (checked on the FLUB texts too, which are Chinese).

Speed: texts per second, one process, on the 200 gold texts and on ``--speed-texts`` texts
of ``bench/import_texts.py``'s corpus (200–5,000 characters). ``project`` is
``annotations.importing.sentences.split_sentences`` (library plus rules, ranges located in
the text); the other rows are the libraries alone. A library that is not installed is skipped.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

from machine import describe_machine  # bench/ is the script's folder

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]
DATASETS = ROOT.parent / "shared" / "datasets"
GOLD = DATASETS / "mafalda" / "datasets" / "gold_standard_dataset.jsonl"
FLUB = DATASETS / "flub" / "FLUB.jsonl"
_ALNUM = re.compile(r"\w")

Splitter = Callable[[str], list[str]]

# (name, text, expected sentences)
CASES: list[tuple[str, str, list[str]]] = [
    ("title", "Dr. Smith arrived. He sat down.", ["Dr. Smith arrived.", "He sat down."]),
    (
        "country",
        "The U.S. economy grew. Experts disagree.",
        ["The U.S. economy grew.", "Experts disagree."],
    ),
    (
        "e.g./i.e.",
        "Some animals, e.g. dogs, bark. Others, i.e. cats, do not.",
        ["Some animals, e.g. dogs, bark.", "Others, i.e. cats, do not."],
    ),
    (
        "time",
        "We met at 5 p.m. on Monday. It rained.",
        ["We met at 5 p.m. on Monday.", "It rained."],
    ),
    (
        "vs.",
        "It is cats vs. dogs again. Nobody wins.",
        ["It is cats vs. dogs again.", "Nobody wins."],
    ),
    (
        "decimal",
        "Prices rose 2.5 percent. Wages fell.",
        ["Prices rose 2.5 percent.", "Wages fell."],
    ),
    (
        "initials",
        "J. K. Rowling wrote it. Many read it.",
        ["J. K. Rowling wrote it.", "Many read it."],
    ),
    (
        "quote",
        'He said "Stop it." Then he left.',
        ['He said "Stop it."', "Then he left."],
    ),
    (
        "quoted question",
        '"Why not?" she asked. Nobody answered.',
        ['"Why not?" she asked.', "Nobody answered."],
    ),
    (
        "quotation",
        '"Four out of five dentists agree. Therefore, it must be great."',
        ['"Four out of five dentists agree.', 'Therefore, it must be great."'],
    ),
    ("ellipsis", "Well... I am not sure. Maybe.", ["Well... I am not sure.", "Maybe."]),
    ("exclaim", "Stop! Think about it?! Yes.", ["Stop!", "Think about it?!", "Yes."]),
    (
        "title/post",
        "TITLE: The bible is not clear POST: It is clear enough. Read it.",
        ["TITLE: The bible is not clear", "POST: It is clear enough.", "Read it."],
    ),
    (
        "post after post",
        "TITLE: Why? POST: Because. POST: No, because I said so",
        ["TITLE: Why?", "POST: Because.", "POST: No, because I said so"],
    ),
    (
        "line break",
        "First paragraph ends here\nSecond paragraph starts here.",
        ["First paragraph ends here", "Second paragraph starts here."],
    ),
    ("url", "See <URL> for more. Thanks.", ["See <URL> for more.", "Thanks."]),
    ("chinese", "他说你好。我们走吧！", ["他说你好。", "我们走吧！"]),
]


# --- candidates -------------------------------------------------------------------------------


def candidates() -> dict[str, Splitter]:
    found: dict[str, Splitter] = {}
    try:
        import pysbd

        segmenter = pysbd.Segmenter(language="en", clean=False)
        found["pysbd"] = segmenter.segment
    except ImportError:
        print("pysbd: not installed")
    try:
        import nupunkt

        found["nupunkt"] = nupunkt.sent_tokenize
    except ImportError:
        print("nupunkt: not installed")
    try:
        import blingfire

        found["blingfire"] = lambda text: blingfire.text_to_sentences(text).split("\n")
    except ImportError:
        print("blingfire: not installed")
    try:
        import sentencex

        found["sentencex"] = lambda text: list(sentencex.segment("en", text))
    except ImportError:
        print("sentencex: not installed")
    try:
        from syntok import segmenter as syntok_segmenter

        def syntok(text: str) -> list[str]:
            return [
                "".join(token.spacing + token.value for token in sentence)
                for paragraph in syntok_segmenter.analyze(text)
                for sentence in paragraph
            ]

        found["syntok"] = syntok
    except ImportError:
        print("syntok: not installed")
    import annotations.importing.sentences as project

    label = getattr(project, "SPLITTER", "pysbd")
    split_sentences = project.split_sentences
    found[f"project ({label})"] = lambda text: [text[s:e] for s, e in split_sentences(text)]
    return found


def starts_in(text: str, segments: list[str]) -> list[int]:
    """Offsets where the segments start in ``text`` (segments a library altered are
    located by their first 20 non-space characters, else skipped)."""
    starts, cursor = [], 0
    for segment in segments:
        stripped = segment.strip()
        if not stripped:
            continue
        found = text.find(stripped, cursor)
        if found < 0:
            found = text.find(stripped[:20], cursor)
        if found < 0:
            continue
        starts.append(found)
        cursor = found + 1
    return starts


def boundary_keys(text: str, starts: list[int]) -> set[int]:
    """First letter or digit at or after each start, the text's first one excluded."""
    first = _ALNUM.search(text)
    keys = set()
    for start in starts:
        match = _ALNUM.search(text, start)
        if match and first and match.start() != first.start():
            keys.add(match.start())
    return keys


# --- gold --------------------------------------------------------------------------------------


def gold_boundaries() -> list[tuple[str, set[int]]]:
    from annotations.importing.sentences import locate_unit

    out = []
    with GOLD.open(encoding="utf-8") as stream:
        for line in stream:
            record = json.loads(line)
            text = record["text"]
            units = list(json.loads(record["sentences_with_labels"]))
            starts, cursor, previous_end = [], 0, 0
            for unit in units:
                found = locate_unit(text, unit, cursor)
                if found is None:  # a unit repeating earlier text (MAFALDA text 24)
                    continue
                gap = text[previous_end : found[0]]
                if _ALNUM.search(gap):
                    starts.append(previous_end + len(gap) - len(gap.lstrip()))
                starts.append(found[0])
                cursor = previous_end = found[1]
            tail = text[previous_end:]
            if _ALNUM.search(tail):
                starts.append(previous_end + len(tail) - len(tail.lstrip()))
            out.append((text, boundary_keys(text, starts)))
    return out


def header_keys(text: str) -> set[int]:
    """Boundary keys at Reddit-style headers: the header's own, and the next word's."""
    keys = set()
    for match in re.finditer(r"\b(?:TITLE|POST|COMMENT|EDIT):", text):
        after = _ALNUM.search(text, match.end())
        keys.add(match.start())
        if after:
            keys.add(after.start())
    return keys


def score(
    splitter: Splitter, gold: list[tuple[str, set[int]]], *, headers: bool = True
) -> tuple[float, float, float, int]:
    """Precision, recall, F1 and texts split exactly as the gold units; ``headers=False``
    leaves out the boundaries at headers (where the gold units are uneven)."""
    hits = predicted = expected = exact = 0
    for text, truth in gold:
        guess = boundary_keys(text, starts_in(text, splitter(text)))
        if not headers:
            skip = header_keys(text)
            guess, truth = guess - skip, truth - skip
        hits += len(guess & truth)
        predicted += len(guess)
        expected += len(truth)
        exact += guess == truth
    precision = hits / predicted if predicted else 0.0
    recall = hits / expected if expected else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1, exact


def cases_passed(splitter: Splitter) -> tuple[int, list[str]]:
    failed = []
    for name, text, expected in CASES:
        got = [segment.strip() for segment in splitter(text) if segment.strip()]
        if got != expected:
            failed.append(name)
    return len(CASES) - len(failed), failed


def sentence_less(splitter: Splitter, texts: list[str]) -> int:
    return sum(1 for text in texts if text.strip() and not any(s.strip() for s in splitter(text)))


def rate(splitter: Splitter, texts: list[str], minimum_seconds: float = 1.0) -> float:
    splitter(texts[0])
    done, started = 0, time.perf_counter()
    while True:
        for text in texts:
            splitter(text)
        done += len(texts)
        elapsed = time.perf_counter() - started
        if elapsed >= minimum_seconds:
            return done / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--speed-texts", type=int, default=500)
    args = parser.parse_args()
    from import_texts import build_texts

    print(f"Machine: {describe_machine()}")
    gold = gold_boundaries()
    print(
        f"Gold: {len(gold)} MAFALDA texts, {sum(len(b) for _, b in gold)} boundaries;"
        f" {len(CASES)} targeted cases"
    )
    flub = []
    if FLUB.exists():
        with FLUB.open(encoding="utf-8") as stream:
            flub = [json.loads(line)["text"] for line in stream]
    corpus = build_texts(args.speed_texts)
    gold_texts = [text for text, _ in gold]
    header = (
        f"{'splitter':<22} {'P':>6} {'R':>6} {'F1':>6} {'exact':>6} {'F1-h':>6} {'cases':>6}"
        f" {'no-sent':>7} {'gold t/s':>9} {'corpus t/s':>10}  failed cases"
    )
    print(header)
    for name, splitter in candidates().items():
        precision, recall, f1, exact = score(splitter, gold)
        f1_no_headers = score(splitter, gold, headers=False)[2]
        passed, failed = cases_passed(splitter)
        empty = sentence_less(splitter, gold_texts + flub)
        print(
            f"{name:<22} {precision:6.3f} {recall:6.3f} {f1:6.3f} {exact:6d} {f1_no_headers:6.3f}"
            f" {passed:>3}/{len(CASES):<2} {empty:7d} {rate(splitter, gold_texts):9,.0f}"
            f" {rate(splitter, corpus):10,.0f}  {', '.join(failed)}"
        )


if __name__ == "__main__":
    main()
