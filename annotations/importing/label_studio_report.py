"""What a Label Studio import did (``importing.label_studio``): the counts it reports and
the few lines the command prints."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class LabelStudioReport:
    """What the import did; ``summary()`` is the few lines the command prints."""

    file: str
    format: str = "labelstudio"
    texts_only: bool = False
    texts: int = 0
    documents_created: int = 0
    documents_reused: int = 0
    sentences: int = 0  # stored with the documents created
    annotators: list[str] = field(default_factory=list)
    # per source annotator: {source, key, user (None: dropped), annotations, spans}
    per_annotator: list[dict[str, Any]] = field(default_factory=list)
    placeholders: list[str] = field(default_factory=list)  # accounts created to hold work
    invited: list[str] = field(default_factory=list)  # e-mails whose work waits for them
    annotations_created: int = 0
    annotations_dropped: int = 0  # of annotators dropped, or skipped by texts_only
    annotations_replaced: int = 0
    annotations_cancelled: int = 0
    spans: int = 0
    span_labels: int = 0
    spans_with_alternatives: int = 0
    explanations: int = 0  # labels of stored spans with an explanation
    regions: int = 0
    regions_moved: int = 0
    chars_moved: int = 0  # characters added by snapping, over all moved regions
    max_chars_moved: int = 0
    other_results: int = 0
    predictions: int = 0  # predictions read (each a task's model version)
    predictions_skipped: int = 0  # skipped by texts_only
    prediction_ids: int = 0  # given as ids only (the Export button's): no body to import
    runs: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def summary(self) -> str:
        lines = [
            f"Imported {self.texts} tasks from {Path(self.file).name} (Label Studio"
            f"{', texts only' if self.texts_only else ''}):",
            f"  documents: {self.documents_created} created, {self.documents_reused} reused;"
            f" {self.sentences} sentences stored",
            f"  annotations: {self.annotations_created} submitted by {len(self.annotators)}"
            f" annotators ({self.annotations_replaced} replaced,"
            f" {self.annotations_cancelled} cancelled skipped,"
            f" {self.annotations_dropped} dropped)",
            *(
                f"    {row['source']}: {row['annotations']} annotations, {row['spans']} spans"
                f" -> {row['user'] or 'dropped'}"
                for row in self.per_annotator
            ),
            f"  spans: {self.spans} ({self.span_labels} labels,"
            f" {self.spans_with_alternatives} with alternatives,"
            f" {self.explanations} explanations)",
            f"  regions snapped to sentences: {self.regions_moved} of {self.regions} moved,"
            f" {self.chars_moved} characters added (at most {self.max_chars_moved} for one)",
        ]
        if self.placeholders:
            lines.append(f"  placeholder accounts created: {', '.join(self.placeholders)}")
        if self.invited:
            lines.append(f"  waiting for their invitation: {', '.join(self.invited)}")
        if self.predictions_skipped:
            lines.append(f"  predictions skipped (texts only): {self.predictions_skipped}")
        if self.prediction_ids:
            lines.append(
                f"  predictions skipped, given as ids only (Label Studio's Export button"
                f" writes no prediction bodies; export a snapshot): {self.prediction_ids}"
            )
        if self.other_results:
            lines.append(f"  skipped results that are not text labels: {self.other_results}")
        lines += [
            f"  predictions: run {run['name']!r} ({run['outputs']} sentence outputs)"
            for run in self.runs
        ]
        return "\n".join(lines)
