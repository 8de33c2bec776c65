"""Label Studio tasks' regions on the platform's sentences: each task with its document
and sentence bounds (``PreparedTask``), a completion's regions snapped outward to whole
sentences and their labels resolved with the project's taxonomy (``snapped_regions``), the
regions' explanations kept for the spans' ``details``. ``importing.label_studio`` stores
what they give as annotations and predictions."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from annotations.adjudication import snap
from annotations.importing.formats import DatasetFormatError
from annotations.importing.formats.label_studio import (
    Completion,
    LabelStudioTask,
    Region,
    checker,
    explanations,
)
from annotations.importing.label_studio_report import LabelStudioReport
from annotations.importing.sentences import Range
from annotations.labels import NO_FALLACY, LabelResolver

Bounds = list[Range]
Details = dict[Range, dict[str, Any]]  # a span's details: {label: {slots, explanation}}


@dataclass
class PreparedTask:
    """A task with its document and sentence bounds, its regions snapped and resolved."""

    task: LabelStudioTask
    document_id: int = 0
    bounds: Bounds = field(default_factory=list)


def _resolved_labels(
    region: Region, resolver: LabelResolver, fail: Callable[[str, str], DatasetFormatError]
) -> set[str]:
    """The region's labels in the taxonomy's names; an unknown one is an error."""
    labels = set()
    for index, raw in enumerate(region.labels):
        label = resolver.resolve(raw)
        if label is None:
            raise fail(
                f"{region.place}.value.labels[{index}]",
                f"unknown label {raw!r} (not in the project's taxonomy)",
            )
        labels.add(label)
    return labels


def snapped_regions(
    item: PreparedTask,
    completion: Completion,
    resolver: LabelResolver,
    name: str,
    report: LabelStudioReport,
    details: Details | None = None,
) -> dict[Range, set[str]]:
    """The completion's regions snapped to sentences, labels grouped by snapped range;
    ``details`` gets each range's explanations."""
    fail = checker(item.task, name).fail
    groups: dict[Range, set[str]] = {}
    for region in completion.regions:
        labels = _resolved_labels(region, resolver, fail)
        explained = explanations(sorted(labels - {NO_FALLACY}), region.explanation)
        start, end = snap(item.bounds, region.start, region.end)
        if (start, end) == (region.start, region.end) and not any(
            s < end and start < e for s, e in item.bounds
        ):
            raise fail(region.place, f"region [{start}, {end}) covers no sentence (only spaces)")
        moved = (region.start - start) + (end - region.end)
        report.regions += 1
        if moved:
            report.regions_moved += 1
            report.chars_moved += moved
            report.max_chars_moved = max(report.max_chars_moved, moved)
        groups.setdefault((start, end), set()).update(labels)
        if details is not None:
            _add_explanations(details.setdefault((start, end), {}), explained)
    for (start, end), labels in groups.items():
        if labels == {NO_FALLACY}:
            raise fail(
                completion.place,
                f"span [{start}, {end}) has no fallacy label, only ⊥ (a span needs one)",
            )
    return groups


def _add_explanations(details: dict[str, Any], explained: dict[str, str]) -> None:
    """Each label's explanation into a span's details; a second one is joined on a line."""
    for label, text in explained.items():
        entry = details.setdefault(label, {"slots": {}, "explanation": ""})
        if text not in entry["explanation"].split("\n"):
            entry["explanation"] = "\n".join(filter(None, [entry["explanation"], text]))
