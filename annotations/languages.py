"""The languages of a project's texts, for dataset cards (plain Python, no Django import).

A language a text declares (its metadata's ``language``, e.g. set on import with
``--set-metadata language=zh``) is taken as it is. Other texts are told by their script,
cheaply: Japanese when kana make up at least ``KANA_SHARE`` of its letters, Korean when
Hangul makes up ``HANGUL_SHARE``, Chinese when CJK ideographs make up ``CJK_SHARE``, else
English (the script alone cannot tell Latin-script languages apart). A language is listed
when at least ``MIN_SHARE`` of the texts are in it, the most frequent first.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

CJK_SHARE = 0.3
KANA_SHARE = 0.1
HANGUL_SHARE = 0.3
MIN_SHARE = 0.1
#: Enough of a text to tell its script.
SAMPLE_CHARS = 2000
FALLBACK = "en"

# Code point ranges of each script.
_HAN = ((0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0x20000, 0x2FA1F))
_KANA = ((0x3040, 0x30FF), (0x31F0, 0x31FF), (0xFF66, 0xFF9F))
_HANGUL = ((0x1100, 0x11FF), (0x3130, 0x318F), (0xAC00, 0xD7AF))


def _within(code: int, ranges: tuple[tuple[int, int], ...]) -> bool:
    return any(low <= code <= high for low, high in ranges)


def text_language(text: str) -> str:
    """The language code a text's script suggests (see the module docstring)."""
    letters = han = kana = hangul = 0
    for char in text[:SAMPLE_CHARS]:
        if not char.isalpha():
            continue
        letters += 1
        code = ord(char)
        if code < 0x1100:
            continue
        if _within(code, _HAN):
            han += 1
        elif _within(code, _KANA):
            kana += 1
        elif _within(code, _HANGUL):
            hangul += 1
    if not letters:
        return FALLBACK
    if kana / letters >= KANA_SHARE:
        return "ja"
    if hangul / letters >= HANGUL_SHARE:
        return "ko"
    if han / letters >= CJK_SHARE:
        return "zh"
    return FALLBACK


def text_languages(texts: Iterable[tuple[str, str | None]]) -> tuple[str, ...]:
    """The languages of ``(text, declared language or None)`` pairs, the most frequent
    first; ``(FALLBACK,)`` when there are none."""
    counts: Counter[str] = Counter()
    for text, declared in texts:
        counts[declared.strip() if declared and declared.strip() else text_language(text)] += 1
    total = sum(counts.values())
    if not total:
        return (FALLBACK,)
    return tuple(code for code, n in counts.most_common() if n / total >= MIN_SHARE)
