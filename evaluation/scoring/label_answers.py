"""Reading an answer that names fallacy labels (ranked answers, published outputs) into
labels: the normalisation rules, in one place (plain Python).

The rules, in order:

1. **Structure.** A JSON list of strings (``["False Cause", "Equivocation"]``, also inside
   a fenced block) gives its items, one piece each. A JSON object is read through its
   ``logic_fallacies`` key (SmartyPat's published outputs; also ``labels``, ``types``,
   ``fallacies``): a list gives its items, a string is read as text; ``logic_error: "no"``
   with no labels means no fallacy. Anything else is text. **The flag wins**: when the
   object's ``logic_error`` and its labels disagree, ``logic_error`` says whether the
   answer is fallacious, as the detection reading and the authors' scripts take it:
   ``"no"`` with labels is "no fallacy" (the labels are not taken), ``"yes"`` whose labels
   only say "none" names no label (unparseable, not "no fallacy"). Such an answer is
   *contradictory* (``LabelReading.contradictory``, ``contradicts``): the scores count it.
2. **Separators.** Text is split into pieces at ``,`` ``;`` ``>`` ``|``, new lines, the
   full-width ``，`` ``；`` ``、`` and at list numbers (``1.``, ``2)``) that begin the text
   or follow a space.
3. **Cleaning a piece.** Surrounding white space, quotes (``" ' ` “ ” ‘ ’ « »``),
   brackets, ``*`` (Markdown bold) and final ``. ! ? :`` are removed; then a leading list
   number or bullet (``1.``, ``2)``, ``(3)``, ``#4``, ``-``, ``•``); underscores and hyphens
   become spaces (``false_cause``, ``false-cause``); runs of spaces become one; case is
   ignored.
4. **Lookup.** A cleaned piece equal to a label or to one of its aliases (cleaned the
   same way) is that label; one saying there is no fallacy (``no fallacy``, ``none``,
   ``sound``, ``not fallacious``, ``no fallacies``) is "no fallacy". Otherwise the labels
   written inside the piece are taken, in order (``it is a false cause`` -> false cause).
5. **Unreadable.** A piece naming no label (a misspelling such as ``Equivokation``, a
   remark) is *unreadable*: the reading counts it (``LabelReading.unreadable``) and the
   scores report the count; it is never dropped silently. A label named twice counts once,
   at its first rank.

The answer is the labels in order; ``[]`` when it names none but says there is no fallacy;
unparseable (``None``) when it names none and does not say so.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

NO_FALLACY = "no fallacy"
NO_FALLACY_WORDS = ("no fallacy", "no fallacies", "none", "sound", "not fallacious")
OBJECT_KEYS = ("logic_fallacies", "labels", "types", "fallacies")

_SPLIT = re.compile(r"[,;>|，；、\n]|(?:^|\s)\d+[.)]\s")
_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL | re.IGNORECASE)
_QUOTES = "\"'`“”‘’«»「」《》*()[]{}"
LIST_NUMBER = re.compile(r"^(?:\(?\d+[.):]|#\d+|[-•·])\s*")
_JOINERS = re.compile(r"[_\-]+")


def clean_piece(piece: str) -> str:
    """One piece as rule 3 cleans it (lower case)."""
    text = piece.strip()
    for _ in range(3):  # quotes around a numbered piece, or a number inside quotes
        text = text.strip().strip(_QUOTES).strip().rstrip(".!?:。！？").strip()
        text = LIST_NUMBER.sub("", text)
    text = _JOINERS.sub(" ", text)
    return " ".join(text.split()).casefold()


def says_no_fallacy(text: str) -> bool:
    lowered = text.casefold()
    return any(
        re.search(rf"(?<![a-z]){re.escape(word)}(?![a-z])", lowered) for word in NO_FALLACY_WORDS
    )


@dataclass(frozen=True)
class LabelReading:
    """What an answer says: its labels in order, whether it says "no fallacy", and the
    pieces that named nothing."""

    labels: list[str]
    no_fallacy: bool = False
    unreadable: list[str] = field(default_factory=list)
    structured: bool = False  # read from JSON
    contradictory: bool = False  # its logic_error and its labels disagree (rule 1)

    @property
    def prediction(self) -> list[str] | None:
        if self.labels:
            return self.labels
        return [] if self.no_fallacy else None


def load_structure(answer: str) -> tuple[list[str] | str, bool | None, bool]:
    """Rule 1: ``(pieces or text, logic_error, structured)``; ``logic_error`` is the
    object's yes/no (``None`` when absent)."""
    text = answer.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1)
    if not text or text[0] not in "[{":
        return answer, None, False
    try:
        value = json.loads(text)
    except ValueError:
        return answer, None, False
    error: bool | None = None
    if isinstance(value, Mapping):
        flag = str(value.get("logic_error", "")).strip().casefold()
        error = {"yes": True, "no": False}.get(flag)
        key = next((k for k in OBJECT_KEYS if k in value), None)
        value = value.get(key) if key else []
        value = [] if value is None else value
        if isinstance(value, str):
            return value, error, True
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return list(value), error, True
    return answer, None, False


class LabelReader:
    """Reads answers against one label set (names and ``aliases``: alias -> name)."""

    def __init__(self, labels: Sequence[str], aliases: Mapping[str, str] | None = None) -> None:
        self.labels = list(labels)
        self.by_key: dict[str, str] = {}
        for alias, name in (aliases or {}).items():
            self.by_key[clean_piece(alias)] = name
        for label in self.labels:
            self.by_key[clean_piece(label)] = label
        self._spellings = sorted(self.by_key, key=len, reverse=True)

    def _inside(self, key: str) -> list[str]:
        """Labels written inside a cleaned piece, in order (a longer spelling wins)."""
        found: list[tuple[int, int, str]] = []
        for spelling in self._spellings:
            for match in re.finditer(rf"(?<![a-z]){re.escape(spelling)}(?![a-z])", key):
                found.append((match.start(), match.end(), self.by_key[spelling]))
        found.sort(key=lambda hit: (hit[0], -(hit[1] - hit[0])))
        taken: list[tuple[int, int]] = []
        labels: list[str] = []
        for start, end, label in found:
            if any(s <= start < e for s, e in taken):
                continue
            taken.append((start, end))
            labels.append(label)
        return labels

    def read(self, answer: str) -> LabelReading:
        value, error, structured = load_structure(answer)
        pieces = value if isinstance(value, list) else _SPLIT.split(value)
        labels: list[str] = []
        unreadable: list[str] = []
        no_fallacy = error is False or (error is None and value == [])
        for piece in pieces:
            if not piece or not piece.strip():
                continue
            key = clean_piece(piece)
            if not key:
                continue
            if key in self.by_key:
                found = [self.by_key[key]]
            elif key in NO_FALLACY_WORDS:
                no_fallacy = True
                continue
            else:
                found = self._inside(key)
            if not found:
                if says_no_fallacy(key):
                    no_fallacy = True
                else:
                    unreadable.append(piece.strip())
                continue
            for label in found:
                if label not in labels:
                    labels.append(label)
        if not labels and not no_fallacy and not structured:
            no_fallacy = says_no_fallacy(answer)
        contradictory = False
        if structured and error is False and (labels or unreadable):  # rule 1: the flag wins
            labels, no_fallacy, contradictory = [], True, True
        elif structured and error is True and no_fallacy:
            contradictory = not labels and not unreadable  # it only said "none"
            no_fallacy = False
        return LabelReading(labels, no_fallacy, unreadable, structured, contradictory)


def contradicts(answer: str | None) -> bool:
    """Whether a JSON object's ``logic_error`` and labels disagree, whatever the label set
    (rule 1): ``"no"`` with a piece that does not say "no fallacy", or ``"yes"`` whose
    pieces all say "no fallacy"."""
    if not answer:
        return False
    value, error, structured = load_structure(answer)
    if not structured or error is None:
        return False
    pieces = value if isinstance(value, list) else _SPLIT.split(value)
    keys = [key for key in (clean_piece(piece) for piece in pieces) if key]
    naming = [key for key in keys if key not in NO_FALLACY_WORDS and not says_no_fallacy(key)]
    if error is False:
        return bool(naming)
    return bool(keys) and not naming


def read_labels(
    answer: str, labels: Sequence[str], aliases: Mapping[str, str] | None = None
) -> LabelReading:
    """``LabelReader(labels, aliases).read(answer)``."""
    return LabelReader(labels, aliases).read(answer)


def unreadable_summary(pieces_per_item: Sequence[Sequence[str]]) -> dict[str, Any]:
    """The report's count of unreadable pieces: in all, items with one, a few examples."""
    pieces = [piece for item in pieces_per_item for piece in item]
    return {
        "pieces": len(pieces),
        "items": sum(1 for item in pieces_per_item if item),
        "examples": list(dict.fromkeys(pieces))[:10],
    }


def contradictory_summary(answers: Sequence[str | None]) -> dict[str, Any]:
    """The report's count of contradictory answers (``contradicts``), with a few of them."""
    found = [answer for answer in answers if isinstance(answer, str) and contradicts(answer)]
    return {"items": len(found), "examples": [answer[:200] for answer in found[:3]]}


# --- detection answers ----------------------------------------------------------------------

DETECTION_WORDS: tuple[tuple[str, bool], ...] = (
    ("not fallacious", False),
    ("no fallacy", False),
    ("sound", False),
    ("valid", False),
    ("no", False),
    ("fallacious", True),
    ("fallacy", True),
    ("flawed", True),
    ("yes", True),
    ("not sound", True),
    ("unsound", True),
    ("not valid", True),
    ("invalid", True),
)


def read_detection(answer: str) -> bool | None:
    """A detection answer: fallacious (``True``), sound (``False``) or unreadable (``None``),
    by the earliest of ``DETECTION_WORDS`` (a longer phrase wins at the same place), or by
    the ``logic_error`` of a JSON object."""
    structured = load_structure(answer)
    if structured[2] and structured[1] is not None:  # {"logic_error": "yes", ...}
        return structured[1]
    lowered = answer.casefold()
    best: tuple[int, int, bool] | None = None
    for word, value in DETECTION_WORDS:
        match = re.search(rf"(?<![a-z]){re.escape(word)}(?![a-z])", lowered)
        if match and (best is None or (match.start(), -len(word)) < best[:2]):
            best = (match.start(), -len(word), value)
    return None if best is None else best[2]
