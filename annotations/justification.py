"""Justification templates' empty slots: which labels of which spans leave a slot of their
type's template unfilled (plain Python; the submit service refuses or the page warns)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from annotations.labels import NO_FALLACY


@dataclass(frozen=True)
class EmptySlots:
    """One label of one span whose template has unfilled slots."""

    span: int
    start: int
    end: int
    label: str
    slots: tuple[str, ...]


@dataclass(frozen=True)
class SpanSlots:
    """What the check reads of a span: its id, range, labels and details."""

    id: int
    start: int
    end: int
    labels: Sequence[str]
    details: Mapping[str, Any]


def empty_slots(
    spans: Iterable[SpanSlots], slots_of: Mapping[str, Sequence[str]]
) -> list[EmptySlots]:
    """Every (span, label) with a template slot left blank, in span order; ``slots_of``
    maps a canonical label to its type's slot names ("no fallacy" has none)."""
    out: list[EmptySlots] = []
    for span in sorted(spans, key=lambda s: (s.start, -s.end, s.id)):
        for label in span.labels:
            if label == NO_FALLACY:
                continue
            detail = span.details.get(label) if isinstance(span.details, Mapping) else None
            values = detail.get("slots") if isinstance(detail, Mapping) else None
            values = values if isinstance(values, Mapping) else {}
            missing = tuple(
                slot for slot in slots_of.get(label, ()) if not str(values.get(slot) or "").strip()
            )
            if missing:
                out.append(EmptySlots(span.id, span.start, span.end, label, missing))
    return out


def sentence_range(start: int, end: int, bounds: Sequence[tuple[int, int]]) -> str:
    """ "sentence 3" or "sentences 3–5" (1-based) of a span over sorted sentence bounds."""
    inside = [i for i, (s, e) in enumerate(bounds) if s < end and e > start]
    if not inside:
        return f"characters {start}–{end}"
    first, last = inside[0] + 1, inside[-1] + 1
    return f"sentence {first}" if first == last else f"sentences {first}–{last}"


def describe(empty: EmptySlots, bounds: Sequence[tuple[int, int]]) -> str:
    """ "span 12 (sentences 3–4), ad hominem: fill the slots E, P" """
    plural = "s" if len(empty.slots) > 1 else ""
    return (
        f"span {empty.span} ({sentence_range(empty.start, empty.end, bounds)}), {empty.label}: "
        f"fill the slot{plural} {', '.join(empty.slots)}"
    )
