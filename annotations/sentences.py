"""Sentence units of a text as character ranges (pure Python, no Django).

A document's sentences *tile* its non-blank content: they are ordered, do not overlap,
start and end on non-whitespace characters, and every non-whitespace character of the text
lies in exactly one of them. ``split_sentences`` computes them with pysbd;
``sentences_from_units`` rebuilds them from sentence units given as strings (MAFALDA's
``sentences_with_labels`` keys), repairing what the given units leave out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

import pysbd

Range = tuple[int, int]
PREVIEW_CHARS = 40
_ALNUM = re.compile(r"\w")


class SentenceError(ValueError):
    """Sentence ranges that do not fit their text, or a unit that cannot be located."""


class UnitNotFoundError(SentenceError):
    def __init__(self, index: int, unit: str) -> None:
        self.index = index
        self.unit = unit
        preview = unit.strip()[:PREVIEW_CHARS]
        super().__init__(f"sentence unit {index} ({preview!r}…) is not found in the text")


@lru_cache(maxsize=1)
def _segmenter() -> pysbd.Segmenter:
    return pysbd.Segmenter(language="en", clean=False, char_span=False)


def _strip_range(text: str, start: int, end: int) -> Range | None:
    """``[start, end)`` without its surrounding whitespace; None if only whitespace."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if start < end else None


def _ranges_between_cuts(text: str, cuts: list[int], end: int) -> list[Range]:
    """Stripped ranges between consecutive cut points: a tiling of the content by design."""
    bounds = [*cuts, end]
    ranges = (_strip_range(text, a, b) for a, b in zip(bounds, bounds[1:], strict=False))
    return [r for r in ranges if r is not None]


def split_sentences(text: str, start: int = 0, end: int | None = None) -> list[Range]:
    """Sentences of ``text[start:end]`` (whole text by default), as ranges into ``text``.

    pysbd segments are located in the text from a moving cursor and only their start
    offsets are used as cut points, so a segment pysbd altered (it should not with
    ``clean=False``) merely merges into its neighbour: the tiling holds whatever pysbd does.
    """
    end = len(text) if end is None else end
    region = text[start:end]
    if not region.strip():
        return []
    cuts = [start]
    cursor = 0
    for segment in _segmenter().segment(region):
        stripped = segment.strip()
        if not stripped:
            continue
        found = region.find(stripped, cursor)
        if found < 0:
            continue
        if found > cursor or cursor == 0:
            cuts.append(start + found)
        cursor = found + len(stripped)
    return _ranges_between_cuts(text, sorted(set(cuts)), end)


def _whitespace_tolerant_pattern(unit: str) -> re.Pattern[str]:
    return re.compile(r"\s+".join(re.escape(token) for token in unit.split()))


def _locate(text: str, unit: str, cursor: int) -> Range | None:
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
        located = _locate(text, unit, cursor)
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
      ``<URL>``) becomes extra sentences, split with pysbd.
    Raises ``UnitNotFoundError`` for a unit found nowhere in the text.
    """
    located: list[Range] = []
    dropped: list[int] = []
    cursor = 0
    for index, unit in enumerate(units):
        found = _locate(text, unit, cursor)
        if found is None:
            if _locate(text, unit, 0) is None:
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
