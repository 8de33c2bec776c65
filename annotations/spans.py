"""What a valid span is, in the terms of the project's taxonomy and the document's text:
the rules that annotators' spans (``services.annotations``) and gold spans
(``services.gold``) share.

- offsets: integers (``is_offset``), inside the text, start before end, on sentence
  boundaries (``range_errors``; a gold span is snapped to whole sentences instead);
- labels: a non-empty set of alternatives, each a level-2 type of the taxonomy (or one of
  its aliases) named once; ``NO_FALLACY`` only as an alternative to a fallacy
  (``canonical_labels``);
- details: per label, the template's slots (only the type's own slot names, string values)
  and an explanation (``canonical_details``).

- annotations: written by their annotator only, while in progress, in a project that is
  not archived (``check_writable``).

Labels resolve through the taxonomy's ``LabelIndex`` (``label_index``, cached per process).
"""

from __future__ import annotations

import bisect
import time
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models.signals import post_delete, post_save

from annotations.labels import NO_FALLACY, NO_FALLACY_ALIASES, normalise_label
from annotations.models import Annotation, Document, Project, Taxonomy, TaxonomyNode


class NotYourAnnotation(PermissionDenied):
    """Someone other than the annotator tried to write (the API answers 404)."""


def check_writable(annotation: Annotation, by: Any | None) -> None:
    """Only its annotator writes an annotation (``by`` None: the system), while it is in
    progress and its project is not archived."""
    if by is not None and by.pk != annotation.annotator_id:
        raise NotYourAnnotation("only the annotator writes this annotation")
    if annotation.status == Annotation.Status.SUBMITTED:
        raise ValidationError({"annotation": ["submitted annotations are read-only"]})
    check_active(annotation.document.project)


def check_active(project: Project) -> None:
    if project.archived_at is not None:
        raise ValidationError(
            {"annotation": [f"project '{project.name}' is archived: its annotations are read-only"]}
        )


def is_offset(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class LabelIndex:
    """The level-2 types of a taxonomy, for resolving labels case-insensitively."""

    taxonomy: str
    canonical: dict[str, str]  # normalised name or alias -> canonical name
    slots: dict[str, list[str]]  # canonical name -> slot names
    categories: frozenset[str]  # normalised level-0/1 names (to explain a wrong pick)


# Per-process cache of label indexes, keyed by (taxonomy id, created_at) so that a reused id
# (SQLite after a rollback) never finds another taxonomy's index. An edit of a node through
# save()/delete() (the Django admin) clears this process's cache at once; other processes
# see it after LABEL_INDEX_TTL seconds.
LABEL_INDEX_TTL = 30.0
_label_indexes: dict[tuple[int, Any], tuple[float, LabelIndex]] = {}


def label_index(taxonomy: Taxonomy) -> LabelIndex:
    """The taxonomy's label index (cached per process, see ``LABEL_INDEX_TTL``)."""
    key = (taxonomy.pk, taxonomy.created_at)
    now = time.monotonic()
    hit = _label_indexes.get(key)
    if hit is not None and hit[0] > now:
        return hit[1]
    index = _build_label_index(taxonomy)
    if len(_label_indexes) > 256:
        _label_indexes.clear()
    _label_indexes[key] = (now + LABEL_INDEX_TTL, index)
    return index


def forget_label_indexes(**_: Any) -> None:
    _label_indexes.clear()


for _signal in (post_save, post_delete):
    for _model in (Taxonomy, TaxonomyNode):
        _signal.connect(forget_label_indexes, sender=_model, dispatch_uid=f"labels-{_model}")


def _build_label_index(taxonomy: Taxonomy) -> LabelIndex:
    canonical = {normalise_label(alias): NO_FALLACY for alias in NO_FALLACY_ALIASES}
    slots: dict[str, list[str]] = {}
    categories: set[str] = set()
    nodes = TaxonomyNode.objects.filter(taxonomy=taxonomy).values_list(
        "level", "name", "aliases", "slots"
    )
    for level, name, aliases, node_slots in nodes:
        if level != TaxonomyNode.Level.TYPE:
            categories.add(normalise_label(name))
            continue
        slots[name] = [str(s) for s in node_slots or []]
        for alias in aliases or []:
            canonical.setdefault(normalise_label(str(alias)), name)
        canonical[normalise_label(name)] = name  # names win over aliases
    return LabelIndex(str(taxonomy), canonical, slots, frozenset(categories))


def positions_near(values: list[int], near: int, width: int = 3) -> str:
    """A window of sorted positions around ``near``: "0, 45, 97, …"."""
    i = bisect.bisect_left(values, near)
    lo, hi = max(0, i - width), min(len(values), i + width)
    parts = [str(v) for v in values[lo:hi]]
    if lo > 0:
        parts.insert(0, "…")
    if hi < len(values):
        parts.append("…")
    return ", ".join(parts)


def range_errors(
    document: Document,
    start: Any,
    end: Any,
    *,
    length: int | None = None,
    boundaries: tuple[bool, bool] | None = None,
) -> dict[str, list[str]]:
    """Errors of a span range; ``length`` (of the text) and ``boundaries`` (whether start
    and end are sentence boundaries), when the caller read them already, save queries."""
    errors: dict[str, list[str]] = {}
    for field, value in (("start", start), ("end", end)):
        if not is_offset(value):
            errors[field] = [f"{value!r} is not an integer character offset"]
    if errors:
        return errors
    if length is None:
        length = len(document.text)
    if not 0 <= start < length:
        errors["start"] = [f"{start} is outside the text (0 ≤ start < {length})"]
    if not 0 < end <= length:
        errors["end"] = [f"{end} is outside the text (0 < end ≤ {length})"]
    if not errors and start >= end:
        errors["end"] = [f"{end} must be greater than start ({start})"]
    if errors or boundaries == (True, True):
        return errors
    bounds = list(document.sentences.order_by().values_list("start", "end"))
    if not bounds:
        return {"start": [f"document {document.pk} has no sentences to annotate"]}
    starts = sorted(s for s, _ in bounds)
    ends = sorted(e for _, e in bounds)
    if start not in set(starts):
        errors["start"] = [
            f"{start} is not the start of a sentence (sentences start at "
            f"{positions_near(starts, start)})"
        ]
    if end not in set(ends):
        errors["end"] = [
            f"{end} is not the end of a sentence (sentences end at {positions_near(ends, end)})"
        ]
    return errors


def canonical_labels(index: LabelIndex, labels: Any) -> tuple[list[str], list[str]]:
    """(sorted canonical labels, error messages)."""
    if not isinstance(labels, list | tuple) or not all(isinstance(x, str) for x in labels):
        return [], ["must be a list of label names"]
    if not labels:
        return [], ["at least one label is required"]
    errors: list[str] = []
    seen: dict[str, str] = {}
    for raw in labels:
        key = normalise_label(raw)
        name = index.canonical.get(key)
        if name is None:
            hint = " (it is a category; pick one of its types)" if key in index.categories else ""
            errors.append(f'"{raw}" is not a fallacy type of taxonomy {index.taxonomy}{hint}')
        elif name in seen:
            errors.append(f'"{raw}" duplicates "{seen[name]}"')
        else:
            seen[name] = raw
    if not errors and list(seen) == [NO_FALLACY]:
        errors.append(
            f'"{NO_FALLACY}" alone is not a span; add the fallacy it is an alternative to'
        )
    return sorted(seen), errors


def canonical_details(
    index: LabelIndex, labels: list[str], details: Any
) -> tuple[dict[str, Any], list[str]]:
    """Details keyed by canonical labels of the span, normalised to {slots, explanation}."""
    if details is None:
        return {}, []
    if not isinstance(details, dict):
        return {}, ["must be an object mapping a label to {slots, explanation}"]
    errors: list[str] = []
    out: dict[str, Any] = {}
    by_key = {normalise_label(label): label for label in labels if label != NO_FALLACY}
    for raw_label, entry in details.items():
        label = by_key.get(normalise_label(str(raw_label)))
        if label is None:
            why = (
                f'"{NO_FALLACY}" takes no details'
                if index.canonical.get(normalise_label(str(raw_label))) == NO_FALLACY
                else f"it is not a label of this span (labels: {', '.join(labels)})"
            )
            errors.append(f'"{raw_label}": {why}')
            continue
        if not isinstance(entry, dict):
            errors.append(f"{label}: must be an object with slots and explanation")
            continue
        unknown = sorted(set(entry) - {"slots", "explanation"})
        if unknown:
            errors.append(
                f"{label}: unknown keys {', '.join(unknown)} (allowed: slots, explanation)"
            )
        slots_in = entry.get("slots") or {}
        explanation = entry.get("explanation", "")
        allowed = index.slots.get(label, [])
        slot_names = {s.lower(): s for s in allowed}
        slots_out: dict[str, str] = {}
        if not isinstance(slots_in, dict):
            errors.append(f"{label}.slots: must be an object mapping a slot to a string")
            slots_in = {}
        for slot, value in slots_in.items():
            name = slot_names.get(str(slot).strip().lower())
            if name is None:
                errors.append(
                    f'{label}.slots: "{slot}" is not a slot of "{label}" '
                    f"(slots: {', '.join(allowed) or 'none'})"
                )
            elif not isinstance(value, str):
                errors.append(f"{label}.slots.{name}: must be a string")
            else:
                slots_out[name] = value
        if not isinstance(explanation, str):
            errors.append(f"{label}.explanation: must be a string")
            explanation = ""
        out[label] = {"slots": slots_out, "explanation": explanation}
    return out, errors
