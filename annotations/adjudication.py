"""Adjudication's plain computations (no database): proposals and version diffs.

Proposals for one document (``proposals``): the submitted annotators' spans, each snapped
outward to whole sentences, are clustered by overlap (two spans in one cluster when their
sentences overlap, transitively, whoever gave them; so one sentence never gets two proposals);
a cluster's range is its extent (whole sentences), its labels the
union of the labels given there, each remembering who gave it; ⊥ is proposed, by the
annotators concerned, when at least one annotator has no span overlapping the range (or
offered ⊥ as an alternative). ``unanimous``: every annotator gave exactly the same labels on
exactly that range.

Diffs between two versions (``diff``): spans are matched by (document, start, end); a range
only in the new version is *added*, only in the old one *removed*, in both with different
label sets *changed*.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from annotations.labels import NO_FALLACY

Bounds = Sequence[tuple[int, int]]


@dataclass(frozen=True)
class AnnotatorSpan:
    annotator: int
    start: int
    end: int
    labels: tuple[str, ...]


def snap(bounds: Bounds, start: int, end: int) -> tuple[int, int]:
    """The range grown to the sentences it overlaps (unchanged without sentences)."""
    covered = [(s, e) for s, e in bounds if s < end and start < e]
    if not covered:
        return start, end
    return covered[0][0], covered[-1][1]


def _clusters(bounds: Bounds, spans: list[AnnotatorSpan]) -> list[list[AnnotatorSpan]]:
    """Spans grouped by overlap of their snapped ranges (in text order)."""
    snapped = sorted(((snap(bounds, s.start, s.end), s) for s in spans), key=lambda p: p[0])
    clusters: list[list[AnnotatorSpan]] = []
    reach = -1
    for (start, end), span in snapped:
        if clusters and start < reach:
            clusters[-1].append(span)
            reach = max(reach, end)
        else:
            clusters.append([span])
            reach = end
    return clusters


def proposals(
    bounds: Bounds, spans: Iterable[AnnotatorSpan], annotators: Iterable[int]
) -> list[dict[str, Any]]:
    """The default gold proposal for each disputed or agreed range (see the module docs)."""
    everyone = sorted(set(annotators))
    out = []
    for cluster in _clusters(bounds, list(spans)):
        start, end = snap(bounds, min(s.start for s in cluster), max(s.end for s in cluster))
        proposed: dict[str, set[int]] = {}
        for span in cluster:
            for label in span.labels:
                proposed.setdefault(label, set()).add(span.annotator)
        silent = [a for a in everyone if a not in {s.annotator for s in cluster}]
        if silent:
            proposed.setdefault(NO_FALLACY, set()).update(silent)
        by_annotator = {
            a: {(s.start, s.end, frozenset(s.labels)) for s in cluster if s.annotator == a}
            for a in everyone
        }
        unanimous = not silent and len({frozenset(v) for v in by_annotator.values()}) == 1
        labels = sorted(proposed)
        if labels == [NO_FALLACY]:
            continue  # nobody proposed a fallacy here
        out.append(
            {
                "start": start,
                "end": end,
                "labels": labels,
                "proposed_by": {label: sorted(proposed[label]) for label in labels},
                "unanimous": unanimous,
            }
        )
    return out


SpanKey = tuple[int, int, int]  # document, start, end


def diff(
    old: Mapping[SpanKey, Sequence[str]] | None,
    new: Mapping[SpanKey, Sequence[str]],
    old_documents: Iterable[int],
    new_documents: Iterable[int],
) -> dict[str, Any]:
    """Spans added, removed and changed from ``old`` (None: no previous version) to ``new``."""
    old = old or {}
    added = sorted(key for key in new if key not in old)
    removed = sorted(key for key in old if key not in new)
    changed = sorted(
        key for key in new if key in old and sorted(set(old[key])) != sorted(set(new[key]))
    )
    before, after = set(old_documents), set(new_documents)
    return {
        "summary": {
            "added": len(added),
            "removed": len(removed),
            "changed": len(changed),
            "documents_added": len(after - before),
            "documents_removed": len(before - after),
        },
        "added": [{"key": key, "labels": sorted(new[key])} for key in added],
        "removed": [{"key": key, "labels": sorted(old[key])} for key in removed],
        "changed": [
            {"key": key, "before": sorted(old[key]), "after": sorted(new[key])} for key in changed
        ],
    }
