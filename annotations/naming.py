"""Readable document names (pure Python, no Django): the external id, else the first words.

An external id that names nothing a person reads (a content hash such as FLUB's 40 hex
digits, a UUID) gives way to the first words too. Text without spaces between its words
(Chinese, Japanese) is cut by width: its first ``NAME_COLUMNS`` columns, a wide character
counting two.
"""

from __future__ import annotations

import re
import unicodedata

NAME_LENGTH = 200
FIRST_WORDS = 8
NAME_COLUMNS = 40
# a "word" wider than this is a run of unspaced text, not a word
LONG_WORD = 24
OPAQUE_ID = re.compile(
    r"^(?:[0-9a-f]{24,}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$",
    re.IGNORECASE,
)


def is_opaque_id(external_id: str) -> bool:
    """A hash or UUID: an id no one reads as a name."""
    return bool(OPAQUE_ID.match(external_id.strip()))


def _width(char: str) -> int:
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def _wider_than_word(part: str) -> bool:
    """More than ``LONG_WORD`` columns wide (measured only when it could be: a character
    is at most two columns, an ASCII one exactly one)."""
    if len(part) * 2 <= LONG_WORD:
        return False
    if part.isascii():
        return len(part) > LONG_WORD
    return sum(map(_width, part)) > LONG_WORD


def _first_columns(text: str, columns: int) -> str:
    """The longest start of ``text`` at most ``columns`` wide."""
    used = 0
    for i, char in enumerate(text):
        used += _width(char)
        if used > columns:
            return text[:i].rstrip()
    return text


def readable_name(text: str, external_id: str = "", *, words: int = FIRST_WORDS) -> str:
    """``external_id`` when there is one that reads as a name, else the text's first
    ``words`` words ("…" when cut; unspaced text by width, see the module)."""
    if external_id.strip() and not is_opaque_id(external_id):
        return external_id.strip()[:NAME_LENGTH]
    parts = text.split(maxsplit=words)  # the first words, and the rest (if any) in one
    name = " ".join(parts[:words])
    cut = len(parts) > words
    if any(map(_wider_than_word, parts[:words])):
        short = _first_columns(name, NAME_COLUMNS)
        cut, name = cut or short != name, short
    if cut:
        name += " …"
    if len(name) > NAME_LENGTH:
        name = name[: NAME_LENGTH - 2].rstrip() + " …"
    return name
