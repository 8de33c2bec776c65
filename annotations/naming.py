"""Readable document names (pure Python, no Django): the external id, else the first words."""

from __future__ import annotations

NAME_LENGTH = 200
FIRST_WORDS = 8


def readable_name(text: str, external_id: str = "", *, words: int = FIRST_WORDS) -> str:
    """``external_id`` when there is one, else the text's first ``words`` words ("…" when cut)."""
    if external_id.strip():
        return external_id.strip()[:NAME_LENGTH]
    parts = text.split(maxsplit=words)  # the first words, and the rest (if any) in one
    name = " ".join(parts[:words])
    if len(parts) > words:
        name += " …"
    if len(name) > NAME_LENGTH:
        name = name[: NAME_LENGTH - 2].rstrip() + " …"
    return name
