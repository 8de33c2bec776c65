"""Item projects: texts answered through a form instead of span-annotated (plain Python).

A project of kind ``items`` (FLUB, SmartyPat, ArgBench...) holds *items*: documents whose
``metadata`` carries what a question needs beside the text, and a *form*
(``Project.form``) lists the questions asked about each item. Annotators fill the form
(``Annotation.response``: ``{field name: value}``); a model run answers one form field
(``ModelRun.field``) and its parsed predictions have the same shapes, so humans and
models are scored by the same scorers.

``Project.form``::

    {"fields": [FIELD, ...], "aggregate": "macro" | "geometric"}

A FIELD is ``{"name", "kind", "title"?, "help"?, "skill"?, ...kind options}``; kinds and
the value an answer (human or parsed model output) has:

- ``multiple-choice``: an option key of the item (``"B"``);
- ``classification``: one label (``"歧义"``); options ``labels`` (default: the project
  taxonomy's type names) and ``merge`` (raw label -> merged label, applied to gold on
  import, e.g. FLUB's eight types from eleven);
- ``ranked``: labels, best first (``["ad hominem", "strawman"]``); options ``labels``,
  ``max`` (how many an annotator may rank, default 3); ``[]`` means "no fallacy";
- ``detection``: ``true`` (fallacious) or ``false`` (sound);
- ``segmentation``: ``[[start, end, label], ...]`` character ranges of the text;
  option ``labels``;
- ``free-text``: a string (an explanation);
- ``likert``: an integer in ``min..max`` (default 1..5); options ``description``,
  ``anchors`` (``{"1": "not at all", "5": "fully"}``);
- ``rubric``: an integer in ``min..max`` with ``criteria`` and worked ``examples``
  (``[{"score": 5, "text": ..., "why": ...}]``).

Rating kinds (``likert``, ``rubric``) have no gold: their agreement is measured
between raters (Krippendorff's α) and against judge runs (Spearman).

``Document.metadata`` of an item::

    {"format": "flub", "record": {...the imported record, unchanged...},
     "options": {"A": ..., "B": ...},        # multiple choice
     "candidate": "...",                      # the text being rated or judged, if any
     "gold": {field name: value, ...}}        # the answer key, same shapes as above
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

PROJECT_KINDS = ("spans", "items")
ANSWER_KINDS = (
    "multiple-choice",
    "classification",
    "ranked",
    "detection",
    "segmentation",
    "free-text",
)
RATING_KINDS = ("likert", "rubric")
FIELD_KINDS = ANSWER_KINDS + RATING_KINDS
LABELLED_KINDS = ("classification", "ranked", "segmentation")
AGGREGATES = ("macro", "geometric")
DEFAULT_RANKED_MAX = 3


class FormError(ValueError):
    """A form definition or a response is invalid; ``problems`` maps a place to messages."""

    def __init__(self, problems: Mapping[str, Sequence[str]]) -> None:
        self.problems = {place: list(messages) for place, messages in problems.items()}
        super().__init__(
            "; ".join(f"{place}: {m}" for place, ms in self.problems.items() for m in ms)
        )


@dataclass(frozen=True)
class FormField:
    name: str
    kind: str
    title: str = ""
    help: str = ""
    skill: str = ""
    labels: tuple[str, ...] = ()
    merge: dict[str, str] = field(default_factory=dict)
    max: int = DEFAULT_RANKED_MAX
    low: int = 1
    high: int = 5
    options: dict[str, Any] = field(default_factory=dict)  # description, anchors, criteria...

    @property
    def rating(self) -> bool:
        return self.kind in RATING_KINDS

    @property
    def skill_name(self) -> str:
        return self.skill or self.name

    def labels_or(self, taxonomy_labels: Sequence[str]) -> tuple[str, ...]:
        """The field's label set: its own list, else the project taxonomy's type names."""
        return self.labels or tuple(taxonomy_labels)


@dataclass(frozen=True)
class Form:
    fields: tuple[FormField, ...] = ()
    aggregate: str = "macro"

    def get(self, name: str) -> FormField:
        for form_field in self.fields:
            if form_field.name == name:
                return form_field
        names = ", ".join(f.name for f in self.fields) or "none"
        raise FormError({"field": [f"no form field named {name!r}; the form has: {names}"]})

    def of_kind(self, kind: str) -> list[FormField]:
        return [f for f in self.fields if f.kind == kind]


_KNOWN_KEYS = {
    "name",
    "kind",
    "title",
    "help",
    "skill",
    "labels",
    "merge",
    "max",
    "min",
    "description",
    "anchors",
    "criteria",
    "examples",
}


def parse_form(data: Any) -> Form:
    """A ``Form`` from ``Project.form`` JSON; ``FormError`` names every bad place
    (``fields[2].kind``). An empty value is an empty form."""
    if data in (None, {}, ""):
        return Form()
    if not isinstance(data, Mapping):
        raise FormError({"form": ["must be an object with a list of fields"]})
    problems: dict[str, list[str]] = {}
    aggregate = data.get("aggregate", "macro")
    if aggregate not in AGGREGATES:
        problems["aggregate"] = [f"must be one of {', '.join(AGGREGATES)}, not {aggregate!r}"]
    raw_fields = data.get("fields", [])
    if not isinstance(raw_fields, list):
        raise FormError({"fields": ["must be a list"]})
    fields: list[FormField] = []
    seen: set[str] = set()
    for index, raw in enumerate(raw_fields):
        form_field = _parse_field(raw, f"fields[{index}]", seen, problems)
        if form_field is not None:
            fields.append(form_field)
    if problems:
        raise FormError(problems)
    return Form(tuple(fields), aggregate)


def _parse_field(
    raw: Any, place: str, seen: set[str], problems: dict[str, list[str]]
) -> FormField | None:
    """One field of the form at ``place``, its problems noted in ``problems``; None when
    it is no object or has no valid name or kind. ``seen`` collects the names met."""
    if not isinstance(raw, Mapping):
        problems[place] = ["must be an object"]
        return None
    name, kind = raw.get("name"), raw.get("kind")
    if not isinstance(name, str) or not name.strip() or not name.replace("_", "").isalnum():
        problems[f"{place}.name"] = ["a name of letters, digits and _ is required"]
        return None
    if name in seen:
        problems[f"{place}.name"] = [f"{name!r} is used twice"]
    seen.add(name)
    if kind not in FIELD_KINDS:
        problems[f"{place}.kind"] = [f"must be one of {', '.join(FIELD_KINDS)}, not {kind!r}"]
        return None
    unknown = sorted(set(raw) - _KNOWN_KEYS)
    if unknown:
        problems[f"{place}"] = [f"unknown keys: {', '.join(unknown)}"]
    labels, merge = _field_labels(raw, place, problems)
    low, high = raw.get("min", 1), raw.get("max", 5 if kind in RATING_KINDS else 3)
    if kind == "ranked" and (not isinstance(high, int) or high < 1):
        problems[f"{place}.max"] = ["must be a whole number of at least 1"]
        high = DEFAULT_RANKED_MAX
    elif kind in RATING_KINDS and (
        not isinstance(low, int) or not isinstance(high, int) or not 0 <= low < high
    ):
        problems[f"{place}.max"] = ["min and max must be integers with 0 <= min < max"]
        low, high = 1, 5
    return FormField(
        name=name,
        kind=kind,
        title=str(raw.get("title", "")),
        help=str(raw.get("help", "")),
        skill=str(raw.get("skill", "")),
        labels=tuple(labels),
        merge=dict(merge),
        max=high if kind == "ranked" else DEFAULT_RANKED_MAX,
        low=low if kind in RATING_KINDS else 1,
        high=high if kind in RATING_KINDS else 5,
        options={
            key: raw[key]
            for key in ("description", "anchors", "criteria", "examples")
            if key in raw
        },
    )


def _field_labels(
    raw: Mapping[str, Any], place: str, problems: dict[str, list[str]]
) -> tuple[list[str], Mapping[str, str]]:
    """A field's ``labels`` and ``merge`` options, each empty when invalid (noted)."""
    labels = raw.get("labels", [])
    if not isinstance(labels, list) or not all(isinstance(x, str) and x for x in labels):
        problems[f"{place}.labels"] = ["must be a list of label names"]
        labels = []
    merge = raw.get("merge", {})
    if not isinstance(merge, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in merge.items()
    ):
        problems[f"{place}.merge"] = ["must map raw labels to labels"]
        merge = {}
    elif labels and (bad := sorted(set(merge.values()) - set(labels))):
        problems[f"{place}.merge"] = [f"merges into labels not in the list: {bad}"]
    return labels, merge


def check_value(
    form_field: FormField,
    value: Any,
    *,
    text: str,
    options: Mapping[str, str],
    labels: Sequence[str],
) -> list[str]:
    """Problems of one answer ``value`` to ``form_field`` (empty: valid). ``None`` is
    "not answered yet" and always valid; ``labels`` is the field's label set."""
    if value is None:
        return []
    kind = form_field.kind
    known = set(labels)
    if kind == "multiple-choice":
        if value not in options:
            return [f"must be one of the options {', '.join(options)}, not {value!r}"]
    elif kind == "classification":
        if value not in known:
            return [f"{value!r} is not a label of this question"]
    elif kind == "ranked":
        return _ranked_problems(value, form_field.max, known)
    elif kind == "detection":
        if not isinstance(value, bool):
            return ["must be true (fallacious) or false (sound)"]
    elif kind == "segmentation":
        return _segmentation_problems(value, text, known)
    elif kind == "free-text":
        if not isinstance(value, str):
            return ["must be text"]
    elif kind in RATING_KINDS:
        if not isinstance(value, int) or isinstance(value, bool):
            return [f"must be a whole number from {form_field.low} to {form_field.high}"]
        if not form_field.low <= value <= form_field.high:
            return [f"must be from {form_field.low} to {form_field.high}, not {value}"]
    return []


def _ranked_problems(value: Any, most: int, known: set[str]) -> list[str]:
    """Problems of a ranked answer: a list of at most ``most`` distinct known labels."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return ["must be a list of labels, best first"]
    if len(set(value)) != len(value):
        return ["a label is ranked twice"]
    if len(value) > most:
        return [f"at most {most} labels may be ranked"]
    if bad := [v for v in value if v not in known]:
        return [f"not labels of this question: {', '.join(bad)}"]
    return []


def _segmentation_problems(value: Any, text: str, known: set[str]) -> list[str]:
    """Problems of a segmentation answer, one per bad ``[start, end, label]`` segment."""
    if not isinstance(value, list):
        return ["must be a list of [start, end, label] segments"]
    problems = []
    for index, segment in enumerate(value):
        ok = (
            isinstance(segment, list)
            and len(segment) == 3
            and all(isinstance(x, int) and not isinstance(x, bool) for x in segment[:2])
        )
        if not ok:
            problems.append(f"[{index}]: must be [start, end, label]")
        elif not 0 <= segment[0] < segment[1] <= len(text):
            problems.append(
                f"[{index}]: range {segment[0]}-{segment[1]} is outside the text "
                f"(0-{len(text)}) or empty"
            )
        elif segment[2] not in known:
            problems.append(f"[{index}]: {segment[2]!r} is not a label of this question")
    return problems


def check_response(
    form: Form,
    response: Any,
    *,
    text: str,
    options: Mapping[str, str],
    taxonomy_labels: Sequence[str],
) -> dict[str, Any]:
    """The validated response (``{field: value}``); ``FormError`` naming each bad field
    (``response.type``). Fields absent from the response are unanswered."""
    if not isinstance(response, Mapping):
        raise FormError({"response": ["must be an object mapping field names to answers"]})
    names = {f.name for f in form.fields}
    problems: dict[str, list[str]] = {}
    for name in response:
        if name not in names:
            problems[f"response.{name}"] = ["the form has no such field"]
    for form_field in form.fields:
        if form_field.name not in response:
            continue
        messages = check_value(
            form_field,
            response[form_field.name],
            text=text,
            options=options,
            labels=form_field.labels_or(taxonomy_labels),
        )
        if messages:
            problems[f"response.{form_field.name}"] = messages
    if problems:
        raise FormError(problems)
    return {name: response[name] for name in response}


# --- JSON-safe records ---------------------------------------------------------------------


def json_safe(value: Any, path: tuple[Any, ...] = ()) -> tuple[Any, list[dict[str, Any]]]:
    """``value`` with NaN and infinities replaced by None, and where they were."""
    if isinstance(value, float) and not math.isfinite(value):
        word = "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
        return None, [{"path": list(path), "value": word}]
    if isinstance(value, Mapping):
        out, notes = {}, []
        for key, item in value.items():
            out[key], found = json_safe(item, (*path, key))
            notes += found
        return out, notes
    if isinstance(value, list):
        items, notes = [], []
        for index, item in enumerate(value):
            clean, found = json_safe(item, (*path, index))
            items.append(clean)
            notes += found
        return items, notes
    return value, []


def restore_record(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """The record as imported: key order from ``record_keys``, NaN from ``nan_fields``."""
    record = dict(metadata.get("record") or {})
    keys = metadata.get("record_keys")
    if keys:
        record = {key: record[key] for key in keys if key in record} | {
            key: value for key, value in record.items() if key not in keys
        }
    for note in metadata.get("nan_fields") or []:
        path = note["path"]
        value = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}[note["value"]]
        target: Any = record
        for step in path[:-1]:
            target = target[step]
        if path:
            target[path[-1]] = value
    return record
