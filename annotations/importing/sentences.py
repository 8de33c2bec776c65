"""Sentence units of a text as character ranges (pure Python, no Django).

A document's sentences *tile* its non-blank content: they are ordered, do not overlap,
start and end on non-whitespace characters, and every non-whitespace character of the text
lies in exactly one of them. ``split_sentences`` computes them; ``sentences_from_units``
rebuilds them from sentence units given as strings (MAFALDA's ``sentences_with_labels``
keys), repairing what the given units leave out.

The splitter is sentencex (``SPLITTER``; ``FALLACY_SENTENCE_SPLITTER=pysbd`` selects pysbd,
for comparisons) with rules around it: it gets double quotation marks
as spaces (alone, it keeps a quotation whole however many sentences it holds), a lower-case
word after a closing quotation mark does not start a sentence (``"Why not?" she asked.``),
a line break ends a sentence, and so does the text before a Reddit-style header
(``TITLE:``, ``POST:``, ``COMMENT:``, ``EDIT:``, upper case with its colon) after a space.

Chosen with ``bench/split_quality.py``, quality first: boundaries against the 940 MAFALDA
gold units (753 boundaries in 200 texts; F1-h leaves out those at headers, where the units
are uneven: ``TITLE: … POST: …`` is one unit, two or three), 17 targeted cases
(abbreviations, initials, decimals, quotes, a quoted passage, ellipses, headers, line
breaks, Chinese), every text of ../shared/datasets given a sentence; then speed on the gold
texts and on 500 texts of 200-5,000 characters (``bench/import_texts.py``'s corpus). One
run, AMD EPYC, 2 cores shared with other jobs (speeds comparable within the run only):

    splitter            P      R      F1     F1-h   cases  gold texts/s  corpus texts/s
    pysbd               0.902  0.884  0.893  0.956  14/17           301              51
    nupunkt             0.975  0.887  0.929  0.964  14/17        30,249           5,427
    blingfire           0.985  0.865  0.921  0.951  13/17        20,771           5,297
    sentencex           0.976  0.882  0.927  0.958  14/17       170,872          26,496
    syntok              0.971  0.875  0.920  0.951  13/17         1,653             157
    this module         0.868  0.892  0.880  0.962  17/17        25,436           7,355

nupunkt and sentencex tie on the gold units (a few boundaries apart of 753) and beat
pysbd; with the rules this module passes every targeted case (nupunkt leaves Chinese
unsplit) at 5x nupunkt's speed on long texts (pysbd: 144x slower). Its precision against
the gold is lower only because it starts a sentence at every header, which the gold units
mostly do not (88 of them; without headers, F1 0.962).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import accumulate

Range = tuple[int, int]
PREVIEW_CHARS = 40
_ALNUM = re.compile(r"\w")
_CONTENT = re.compile(r"\S(?:.*\S)?", re.DOTALL)
_ODD_SPACE = re.compile(r"[^\S\x00-\x7f]")  # whitespace outside ASCII
_QUOTES = '"“”„«»'
SPLITTERS = ("sentencex", "pysbd")
SPLITTER = os.environ.get("FALLACY_SENTENCE_SPLITTER", "sentencex")
HEADERS = ("TITLE:", "POST:", "COMMENT:", "EDIT:")


class SentenceError(ValueError):
    """Sentence ranges that do not fit their text, or a unit that cannot be located."""


class UnitNotFoundError(SentenceError):
    def __init__(self, index: int, unit: str) -> None:
        self.index = index
        self.unit = unit
        preview = unit.strip()[:PREVIEW_CHARS]
        super().__init__(f"sentence unit {index} ({preview!r}…) is not found in the text")


@lru_cache(maxsize=1)
def _segmenter() -> Callable[[str], list[str]]:
    """The library's segmentation: the text's sentences as strings."""
    if SPLITTER == "pysbd":
        import pysbd

        return pysbd.Segmenter(language="en", clean=False, char_span=False).segment
    if SPLITTER != "sentencex":
        raise ValueError(f"FALLACY_SENTENCE_SPLITTER={SPLITTER!r}: one of {SPLITTERS}")
    from sentencex import segment

    return lambda text: segment("en", text)


def _strip_range(text: str, start: int, end: int) -> Range | None:
    """``[start, end)`` without its surrounding whitespace; None if only whitespace."""
    piece = text[start:end]
    stripped = piece.lstrip()
    if not stripped:
        return None
    start += len(piece) - len(stripped)
    return start, end - (len(stripped) - len(stripped.rstrip()))


def _ranges_between_cuts(text: str, cuts: list[int], end: int) -> list[Range]:
    """Stripped ranges between consecutive cut points: a tiling of the content by design."""
    bounds = [*cuts, end]
    search = _CONTENT.search  # one call a range: from its first to its last non-space
    matches = (search(text, a, b) for a, b in zip(bounds, bounds[1:], strict=False))
    return [match.span() for match in matches if match is not None]


def _rule_cuts(region: str) -> list[int]:
    """Cut points a library may miss: the first non-space character after a line break,
    and a header after a space (``str.find`` loops: much faster here than a regex)."""
    cuts = []
    for needle in ("\n", *HEADERS):
        found = region.find(needle)
        while found >= 0:
            if needle == "\n":
                cuts.append(found + 1)  # whitespace after it is stripped from the range
            elif found > 0 and region[found - 1].isspace():
                cuts.append(found)
            found = region.find(needle, found + 1)
    return cuts


def _located_starts(region: str, segments: list[str]) -> list[int]:
    """Where the segments start in ``region``, located from a moving cursor; a segment
    that is not found (a library altered it) is skipped, merging into its neighbour."""
    starts = []
    cursor = 0
    for segment in segments:
        stripped = segment.strip()
        if not stripped:
            continue
        found = region.find(stripped, cursor)
        if found < 0:
            continue
        starts.append(found)
        cursor = found + len(stripped)
    return starts


def _blank_quotes(region: str) -> tuple[str, set[int]]:
    """``region`` with its double quotation marks as spaces, and the offsets of lower-case
    words after a quotation mark and a space (``"Why not?" she asked.``), where no
    sentence starts (``str.find``/``replace`` loops: faster here than regexes)."""
    no_cuts: set[int] = set()
    for quote in _QUOTES:
        at = region.find(quote)
        if at < 0:
            continue
        while at >= 0:
            word = at + 1
            while word < len(region) and region[word].isspace():
                word += 1
            if word > at + 1 and region[word : word + 1].islower():
                no_cuts.add(word)
            at = region.find(quote, at + 1)
        region = region.replace(quote, " ")
    return region, no_cuts


def split_sentences(text: str, start: int = 0, end: int | None = None) -> list[Range]:
    """Sentences of ``text[start:end]`` (whole text by default), as ranges into ``text``.

    Only cut points are taken from the library (where its segments end when they add up
    to the text, as sentencex's do, else where they are found from a moving cursor, a
    segment the library altered merging into its neighbour), with the rules' (see the
    module docstring); the ranges between cuts, stripped, are the sentences. So the tiling
    holds whatever the library does, and non-blank text always has a sentence.
    """
    end = len(text) if end is None else end
    region = text[start:end]
    if not region.strip():
        return []
    # The library gets double quotation marks as spaces (sentencex keeps a quotation whole,
    # however many sentences it holds) and non-ASCII spaces as ASCII ones (sentencex 1.0.32
    # can panic on a period next to one): one character for another keeps every offset.
    given, no_cuts = _blank_quotes(region)
    if not given.isascii():
        given = _ODD_SPACE.sub(" ", given)
    try:
        segments = list(_segmenter()(given))
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException:  # noqa: BLE001 - a library's panic (not an Exception): rules only
        segments = [given]
    if "".join(segments) == given:  # sentencex keeps every character: cut where they end
        cuts = list(accumulate(map(len, segments), initial=start))
    else:
        cuts = [start, *(start + cut for cut in _located_starts(given, segments))]
    if no_cuts:
        cuts = [cut for cut in cuts if cut - start not in no_cuts]
    cuts.extend(start + cut for cut in _rule_cuts(region))
    return _ranges_between_cuts(text, sorted(set(cuts)), end)


def _whitespace_tolerant_pattern(unit: str) -> re.Pattern[str]:
    return re.compile(r"\s+".join(re.escape(token) for token in unit.split()))


def locate_unit(text: str, unit: str, cursor: int) -> Range | None:
    """First occurrence of ``unit`` (stripped) at or after ``cursor``: exact, then with any
    run of whitespace matching any other run (``\\r\\n`` against ``\\n``, double spaces)."""
    needle = unit.strip()
    if not needle:
        return None
    found = text.find(needle, cursor)
    if found >= 0:
        return found, found + len(needle)
    match = _whitespace_tolerant_pattern(needle).search(text, cursor)
    return match.span() if match else None


def align_units(text: str, units: list[str]) -> list[Range]:
    """Locate each unit in order, each after the previous one; raise ``UnitNotFoundError``
    naming the first unit that cannot be found. Surrounding whitespace of units is ignored.
    """
    ranges: list[Range] = []
    cursor = 0
    for index, unit in enumerate(units):
        located = locate_unit(text, unit, cursor)
        if located is None:
            raise UnitNotFoundError(index, unit)
        ranges.append(located)
        cursor = located[1]
    return ranges


@dataclass
class UnitAlignment:
    """Sentences rebuilt from given units, and what had to be repaired."""

    ranges: list[Range]
    units: int
    aligned: int
    dropped: list[int] = field(default_factory=list)  # indices of units repeating earlier text
    added: int = 0  # sentences made for non-blank text that no unit covers


def sentences_from_units(text: str, units: list[str]) -> UnitAlignment:
    """A tiling of ``text`` built from given sentence units (in order), repaired if needed.

    Repairs, checked against the 940 MAFALDA units (200 texts):
    - a unit not found after the previous one but found inside text already covered
      (MAFALDA text 24 repeats the tail of its third sentence as a fourth unit) is dropped;
    - non-blank text between or after units that contains no letter or digit (a lone
      quotation mark) joins the previous sentence if it touches it or ends the text, else
      the next one;
    - other uncovered text (``POST:`` headers, a region the authors cut out, a trailing
      ``<URL>``) becomes extra sentences, split with ``split_sentences``.
    Raises ``UnitNotFoundError`` for a unit found nowhere in the text.
    """
    located: list[Range] = []
    dropped: list[int] = []
    cursor = 0
    for index, unit in enumerate(units):
        found = locate_unit(text, unit, cursor)
        if found is None:
            if locate_unit(text, unit, 0) is None:
                raise UnitNotFoundError(index, unit)
            dropped.append(index)
            continue
        located.append(found)
        cursor = found[1]

    ranges: list[Range] = []
    added = 0
    previous_end = 0
    pending_start: int | None = None  # punctuation-only text joining the next sentence
    sentinel = (len(text), len(text))
    for start, end in [*located, sentinel]:
        gap = _strip_range(text, previous_end, start)
        if gap is not None and not _ALNUM.search(text[gap[0] : gap[1]]):
            touches_previous = bool(ranges) and ranges[-1][1] == gap[0]
            if ranges and (touches_previous or (start, end) == sentinel):
                ranges[-1] = (ranges[-1][0], gap[1])  # a closing quote joins the sentence
            else:
                pending_start = gap[0]  # an opening quote joins the next sentence
        elif gap is not None:
            gap_start = gap[0]
            if ranges and ranges[-1][1] == gap_start:  # a closing quote before more text
                while not text[gap_start].isspace() and not _ALNUM.match(text, gap_start):
                    gap_start += 1
                ranges[-1] = (ranges[-1][0], gap_start)
            extra = split_sentences(text, gap_start, gap[1])
            ranges.extend(extra)
            added += len(extra)
        if start < end:
            ranges.append((start if pending_start is None else pending_start, end))
            pending_start = None
        previous_end = end
    if pending_start is not None:  # a text holding nothing but punctuation
        ranges.append((pending_start, _strip_range(text, pending_start, len(text))[1]))
    check_tiling(text, ranges)
    return UnitAlignment(
        ranges=ranges, units=len(units), aligned=len(located), dropped=dropped, added=added
    )


def check_tiling(text: str, ranges: list[Range]) -> None:
    """Raise ``SentenceError`` unless ``ranges`` tile the non-blank content of ``text``."""
    previous_end = 0
    for index, (start, end) in enumerate(ranges):
        if not 0 <= start < end <= len(text):
            raise SentenceError(f"sentence {index} [{start}, {end}) is outside the text")
        if start < previous_end:
            raise SentenceError(f"sentence {index} [{start}, {end}) overlaps the previous one")
        if text[start].isspace() or text[end - 1].isspace():
            raise SentenceError(f"sentence {index} [{start}, {end}) has surrounding whitespace")
        if text[previous_end:start].strip():
            raise SentenceError(
                f"text before sentence {index} is in no sentence: "
                f"{text[previous_end:start].strip()[:PREVIEW_CHARS]!r}"
            )
        previous_end = end
    if text[previous_end:].strip():
        raise SentenceError(
            f"text after the last sentence is in no sentence: "
            f"{text[previous_end:].strip()[:PREVIEW_CHARS]!r}"
        )
