"""Labelled records' ``[start, end, label]`` triples grouped into spans of alternative labels,
resolved with the project's taxonomy (the rules are in ``importing.datasets``' docstring)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from annotations.importing.formats import DatasetFormatError
from annotations.importing.formats.jsonl import LabelTriple
from annotations.importing.formats.mafalda import TO_CLEAN
from annotations.importing.sentences import Range
from annotations.labels import NO_FALLACY, LabelResolver, normalise_label

TO_CLEAN_KEY = normalise_label(TO_CLEAN)


@dataclass(frozen=True)
class SpanDraft:
    start: int
    end: int
    labels: list[str]


def group_spans(
    triples: list[LabelTriple],
    resolver: LabelResolver,
    *,
    file_name: str,
    line: int,
    field_name: str,
    to_clean: Callable[[], None],
) -> list[SpanDraft]:
    """Triples grouped by ``(start, end)`` in file order into spans of alternatives; a bad
    label raises ``DatasetFormatError`` naming the file, ``line`` and the field's index."""

    def fail(place: str, message: str) -> DatasetFormatError:
        return DatasetFormatError(file_name, line, place, message)

    groups: dict[Range, set[str]] = {}
    first_index: dict[Range, int] = {}
    for index, triple in enumerate(triples):
        if normalise_label(triple.label) == TO_CLEAN_KEY:
            to_clean()
            continue
        label = resolver.resolve(triple.label)
        if label is None:
            raise fail(
                f"{field_name}[{index}][2]",
                f"unknown label {triple.label!r} (not in the project's taxonomy)",
            )
        key = (triple.start, triple.end)
        groups.setdefault(key, set()).add(label)
        first_index.setdefault(key, index)
    spans = []
    for (start, end), labels in groups.items():
        if labels == {NO_FALLACY}:
            raise fail(
                f"{field_name}[{first_index[(start, end)]}]",
                f"span [{start}, {end}) has no fallacy label, only ⊥ (a span needs one)",
            )
        spans.append(SpanDraft(start, end, sorted(labels)))
    return spans
