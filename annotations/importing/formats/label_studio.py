"""Label Studio's JSON export for text labelling (pure Python, no Django).

The file is a JSON array of tasks::

    [{"id": 42, "data": {"text": "..."},
      "annotations": [{"id": 7, "completed_by": {"id": 1, "email": "a@example.org"} | 1,
                       "was_cancelled": false,
                       "result": [{"id": "r1", "from_name": "label", "to_name": "text",
                                   "type": "labels",
                                   "value": {"start": 0, "end": 17, "text": "...",
                                             "labels": ["ad hominem"]}}]}],
      "predictions": [{"model_version": "v1", "result": [...]}]}]

Label Studio's Export button (``GET /api/projects/N/export?exportType=JSON``) writes
``completed_by`` as the user's id and ``predictions`` as ids only (``[1]``): such predictions
are skipped and counted (``prediction_ids``), their bodies are not in the file; a snapshot
export (``POST /api/projects/N/exports/`` with full serialization options) writes
``completed_by`` as ``{id, email, first_name, last_name}`` and whole predictions. An
annotation our export wrote carries no ``completed_by``: its annotator is in the task's
``meta.annotators`` under the annotation's id, which Label Studio keeps as ``import_id``
(``services.label_studio_exports``), and is taken from there before ``completed_by``.

``read_label_studio`` validates every task (text, annotators, regions inside the text and
matching their quoted ``text``) and names the place of the first problem: the file, the line
the task starts on, the task's id and the field (``annotations[0].result[2].value.end``).
A region's explanation is a per-region text area (``type: "textarea"``, the region's
``id``, ``value.text`` a list of strings): on a region with one fallacy label each string
explains it; on one with several, ``"<label>: <text>"`` explains that label and a string
without such a prefix explains each of its labels that has none (``explanations``). Other
results (choices, other text areas, relations) are skipped and counted.
``label_studio_task``, ``explanation_result`` and ``labeling_config`` write the same shapes
back.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any
from xml.sax.saxutils import quoteattr

from annotations.importing.formats.errors import DatasetFormatError
from annotations.importing.formats.jsonl import (
    Source,
    decode_array_element,
    open_text,
    source_name,
)
from annotations.importing.formats.storable import json_problem, shown
from annotations.importing.formats.text_limit import checked_text

FORMAT = "labelstudio"
NOT_AN_EXPORT = "not a Label Studio JSON export (a JSON array of tasks)"
LABELS_TYPE = "labels"
TEXTAREA_TYPE = "textarea"
FROM_NAME = "label"
EXPLANATION_NAME = "explanation"  # the per-region TextArea
TO_NAME = "text"
ANNOTATORS_META = "annotators"  # task meta: {annotation id: {"id", "email", "username"}}


@dataclass(frozen=True)
class Region:
    """One labelled character range; ``place`` is its field path in the task."""

    start: int
    end: int
    labels: tuple[str, ...]
    place: str
    explanation: tuple[str, ...] = ()  # the region's text area (see the module docstring)


@dataclass(frozen=True)
class Completion:
    """One annotation (or prediction) of a task: who made it and its regions."""

    place: str  # "annotations[0]"
    user_id: int | str | None = None
    email: str = ""
    username: str = ""  # the platform username, from the task's meta.annotators
    model_version: str = ""
    regions: list[Region] = field(default_factory=list)


@dataclass
class LabelStudioTask:
    line: int
    id: int | str | None
    text: str
    external_id: str
    annotations: list[Completion]
    predictions: list[Completion]
    cancelled: int = 0
    other_results: int = 0  # results that are not text labels (skipped)
    prediction_ids: int = 0  # predictions given by id only (the Export button's), skipped
    annotators: dict[str, Any] = field(default_factory=dict)  # meta.annotators

    @property
    def name(self) -> str:
        return f"task {self.id}" if self.id is not None else "task"


class _TaskChecker:
    def __init__(self, file_name: str, line: int, task_id: int | str | None) -> None:
        self.file_name = file_name
        self.line = line
        self.task = f"task {task_id}" if task_id is not None else "task"

    def fail(self, place: str, message: str) -> DatasetFormatError:
        where = f"{self.task}: {place}" if place else self.task
        return DatasetFormatError(self.file_name, self.line, where, message)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _kind(value: Any) -> str:
    return {dict: "an object", list: "an array", str: "a string"}.get(type(value), repr(value))


def _iter_array(source: Source, name: str) -> Iterator[tuple[int, Any]]:
    """``(line, element)`` for each element of the file's top-level JSON array."""
    with open_text(source) as stream:
        try:
            content = stream.read()
        except UnicodeDecodeError as error:
            raise DatasetFormatError(name, 1, None, f"not UTF-8 text: {error.reason}") from None
    decoder = json.JSONDecoder()
    position = _skip_space(content, 0)
    if content[position : position + 1] != "[":
        found = "an empty file" if position >= len(content) else repr(content[position])
        raise DatasetFormatError(name, _line(content, position), None, f"{NOT_AN_EXPORT}: {found}")
    position = _skip_space(content, position + 1)
    closed = content[position : position + 1] == "]"
    while not closed:
        line = _line(content, position)
        element, position = decode_array_element(decoder, content, position, name=name, line=line)
        yield line, element
        position = _skip_space(content, position)
        separator = content[position : position + 1]
        if separator not in (",", "]"):
            raise DatasetFormatError(
                name, _line(content, position), None, "invalid JSON: expected ',' or ']'"
            )
        closed = separator == "]"
        if not closed:
            position = _skip_space(content, position + 1)
    end = _skip_space(content, position + 1)
    if end < len(content):
        raise DatasetFormatError(
            name, _line(content, end), None, f"{NOT_AN_EXPORT}: text after the array"
        )


def _skip_space(content: str, position: int) -> int:
    while position < len(content) and content[position] in " \t\r\n":
        position += 1
    return position


def _line(content: str, position: int) -> int:
    return content.count("\n", 0, position) + 1


def _region(
    check: _TaskChecker, text: str, place: str, value: Any
) -> tuple[int, int, tuple[str, ...]]:
    if not isinstance(value, dict):
        raise check.fail(place, f"expected an object, got {_kind(value)}")
    start, end, labels = value.get("start"), value.get("end"), value.get("labels")
    for key, offset in (("start", start), ("end", end)):
        if not _is_int(offset):
            raise check.fail(f"{place}.{key}", f"expected a character offset, got {offset!r}")
    if not 0 <= start < end <= len(text):
        raise check.fail(place, f"region [{start}, {end}) is outside the text (length {len(text)})")
    quoted = value.get("text")
    if isinstance(quoted, str) and quoted != text[start:end]:
        raise check.fail(
            f"{place}.text",
            f"region [{start}, {end}) quotes {quoted[:40]!r} but the text there is "
            f"{text[start:end][:40]!r}",
        )
    if not isinstance(labels, list) or not labels or not all(isinstance(x, str) for x in labels):
        raise check.fail(f"{place}.labels", "expected a non-empty list of label names")
    return start, end, tuple(labels)


def _completion(
    check: _TaskChecker, task: LabelStudioTask, place: str, entry: Any, *, prediction: bool
) -> Completion | None:
    if not isinstance(entry, dict):
        raise check.fail(place, f"expected an object, got {_kind(entry)}")
    if not prediction and entry.get("was_cancelled") is True:
        task.cancelled += 1
        return None
    results = entry.get("result", [])
    if not isinstance(results, list):
        raise check.fail(f"{place}.result", "expected a list of results")
    regions = _regions(check, task, place, results)
    if prediction:
        version = entry.get("model_version")
        return Completion(
            place, model_version="" if version is None else str(version), regions=regions
        )
    known = _meta_annotator(check, task, entry)
    if known is not None:
        return Completion(place, *known, regions=regions)
    user_id, email = _completed_by(check, place, entry.get("completed_by"))
    if not email:  # a bare id: Label Studio writes "email, id" in created_username too
        named = str(entry.get("created_username") or "").split(",")[0].strip()
        email = named if "@" in named else ""
    return Completion(place, user_id=user_id, email=email, regions=regions)


def _regions(
    check: _TaskChecker, task: LabelStudioTask, place: str, results: list[Any]
) -> list[Region]:
    """The ``labels`` results as regions, each with the text area of the same ``id``."""
    texts: dict[str, tuple[str, ...]] = {}
    labelled: list[tuple[str, dict[str, Any]]] = []
    for index, result in enumerate(results):
        where = f"{place}.result[{index}]"
        if not isinstance(result, dict):
            raise check.fail(where, f"expected an object, got {_kind(result)}")
        kind = result.get("type")
        if kind == LABELS_TYPE:
            labelled.append((where, result))
        elif kind == TEXTAREA_TYPE and isinstance(result.get("id"), str | int):
            texts[str(result["id"])] = _texts(check, f"{where}.value", result.get("value"))
        else:
            task.other_results += 1
    regions = []
    for where, result in labelled:
        start, end, labels = _region(check, task.text, f"{where}.value", result.get("value"))
        explanation = texts.pop(str(result.get("id")), ())
        regions.append(Region(start, end, labels, where, explanation))
    task.other_results += len(texts)  # text areas of no region
    return regions


def _texts(check: _TaskChecker, place: str, value: Any) -> tuple[str, ...]:
    found = value.get("text") if isinstance(value, dict) else None
    if isinstance(found, str):
        found = [found]
    if not isinstance(found, list) or not all(isinstance(x, str) for x in found):
        raise check.fail(f"{place}.text", "expected a text area's list of strings")
    return tuple(found)


def explanations(labels: Sequence[str], texts: Iterable[str]) -> dict[str, str]:
    """Each label's explanation from a region's text area (see the module docstring);
    ``labels``: the region's fallacy labels (no ⊥)."""
    found: dict[str, list[str]] = {}
    shared: list[str] = []
    longest_first = sorted(labels, key=len, reverse=True)
    for text in texts:
        if not text.strip():
            continue
        named = next((x for x in longest_first if text.startswith(f"{x}: ")), None)
        if len(labels) > 1 and named is not None:
            found.setdefault(named, []).append(text[len(named) + 2 :])
        else:
            shared.append(text)
    out = {label: "\n".join(parts) for label, parts in found.items()}
    for label in labels:
        if shared and label not in out:
            out[label] = "\n".join(shared)
    return out


def explanation_texts(labels: Sequence[str], explained: dict[str, str]) -> list[str]:
    """A region's text area for its fallacy labels' explanations (``explanations`` reads
    it back): the bare text for one label, ``"<label>: <text>"`` for several."""
    given = [(label, explained[label]) for label in labels if explained.get(label)]
    if len(labels) == 1:
        return [text for _, text in given]
    return [f"{label}: {text}" for label, text in given]


def _meta_annotator(
    check: _TaskChecker, task: LabelStudioTask, entry: dict[str, Any]
) -> tuple[int | str | None, str, str] | None:
    """(user id, email, username) of an annotation our export wrote, from the task's
    ``meta.annotators``: keyed by the annotation's ``import_id`` in Label Studio's exports
    (an annotation made in Label Studio has none), by its ``id`` in ours."""
    key = entry.get("import_id") if "import_id" in entry else entry.get("id")
    found = task.annotators.get(str(key)) if key is not None else None
    if found is None:
        return None
    place = f"meta.{ANNOTATORS_META}.{key}"
    if not isinstance(found, dict):
        raise check.fail(place, f"expected an object, got {_kind(found)}")
    user_id, email, username = found.get("id"), found.get("email") or "", found.get("username")
    if not isinstance(email, str) or not isinstance(username or "", str):
        raise check.fail(place, "expected the e-mail and username as strings")
    if not (_is_int(user_id) or email):
        raise check.fail(place, "expected the annotator: an id or an e-mail")
    return user_id if _is_int(user_id) else None, email, username or ""


def _completed_by(check: _TaskChecker, place: str, value: Any) -> tuple[int | str | None, str]:
    """(user id, email) of an annotation's ``completed_by``: an object or a bare id."""
    if _is_int(value) or isinstance(value, str):
        return value, ""
    if isinstance(value, dict):
        user_id, email = value.get("id"), value.get("email") or ""
        if not isinstance(email, str):
            raise check.fail(f"{place}.completed_by.email", "expected a string")
        if _is_int(user_id) or isinstance(user_id, str) or email:
            return (user_id if _is_int(user_id) or isinstance(user_id, str) else None), email
    raise check.fail(f"{place}.completed_by", "expected the annotator: an id or {id, email}")


def _annotators(check: _TaskChecker, element: dict[str, Any]) -> dict[str, Any]:
    """The task's ``meta.annotators`` (annotation id: annotator), written by our export."""
    meta = element.get("meta")
    found = meta.get(ANNOTATORS_META) if isinstance(meta, dict) else None
    if found is None:
        return {}
    if not isinstance(found, dict):
        raise check.fail(f"meta.{ANNOTATORS_META}", f"expected an object, got {_kind(found)}")
    return found


def _task(name: str, line: int, element: Any, position: int) -> LabelStudioTask:
    if not isinstance(element, dict):
        raise DatasetFormatError(
            name, line, f"task {position}", f"{NOT_AN_EXPORT}: got {_kind(element)}"
        )
    task_id = element.get("id")
    if task_id is not None and not (_is_int(task_id) or isinstance(task_id, str)):
        raise DatasetFormatError(name, line, "id", "expected an integer or a string")
    check = _TaskChecker(name, line, task_id if task_id is not None else f"#{position}")
    found = json_problem(element)
    if found:
        raise check.fail(shown(found[0]), found[1])
    data = element.get("data")
    if not isinstance(data, dict):
        raise check.fail("data", f"{NOT_AN_EXPORT}: a task needs a data object")
    text = data.get("text")
    if not isinstance(text, str) or not text.strip():
        raise check.fail("data.text", "a task needs a non-empty text")
    checked_text(text, name=check.file_name, line=line, field=f"{check.task}: data.text")
    external_id = data.get("external_id")
    task = LabelStudioTask(
        line=line,
        id=task_id,
        text=text,
        external_id=str(external_id) if isinstance(external_id, str | int) else "",
        annotations=[],
        predictions=[],
        annotators=_annotators(check, element),
    )
    for key, prediction in (("annotations", False), ("predictions", True)):
        entries = element.get(key, [])
        if not isinstance(entries, list):
            raise check.fail(key, "expected a list")
        for index, entry in enumerate(entries):
            if prediction and _is_int(entry):  # the Export button writes predictions' ids
                task.prediction_ids += 1
                continue
            made = _completion(check, task, f"{key}[{index}]", entry, prediction=prediction)
            if made is not None:
                (task.predictions if prediction else task.annotations).append(made)
    return task


def read_label_studio(source: Source, *, name: str | None = None) -> list[LabelStudioTask]:
    """Every task of the file, validated; ``DatasetFormatError`` at the first problem."""
    name = source_name(source, name)
    return [
        _task(name, line, element, position)
        for position, (line, element) in enumerate(_iter_array(source, name), start=1)
    ]


def check_label_studio(
    source: Source, *, name: str | None = None
) -> Iterator[LabelStudioTask | DatasetFormatError]:
    """Each task of the file, or the error that task has (browser imports list them all);
    an error of the JSON itself is raised."""
    name = source_name(source, name)
    for position, (line, element) in enumerate(_iter_array(source, name), start=1):
        try:
            yield _task(name, line, element, position)
        except DatasetFormatError as error:
            yield error


def checker(task: LabelStudioTask, file_name: str) -> _TaskChecker:
    """Errors about ``task`` found after reading (labels, stored texts)."""
    return _TaskChecker(file_name, task.line, task.id)


# --- writing ---------------------------------------------------------------------------------


def region_result(region_id: str, text: str, start: int, end: int, labels: Iterable[str]) -> dict:
    return {
        "id": region_id,
        "from_name": FROM_NAME,
        "to_name": TO_NAME,
        "type": LABELS_TYPE,
        "origin": "manual",
        "value": {"start": start, "end": end, "text": text[start:end], "labels": list(labels)},
    }


def explanation_result(region_id: str, start: int, end: int, texts: list[str]) -> dict:
    """The per-region text area of the region ``region_id`` (Label Studio's shape)."""
    return {
        "id": region_id,
        "from_name": EXPLANATION_NAME,
        "to_name": TO_NAME,
        "type": TEXTAREA_TYPE,
        "origin": "manual",
        "value": {"start": start, "end": end, "text": texts},
    }


def label_studio_task(
    *,
    task_id: int | str,
    text: str,
    external_id: str,
    annotations: list[dict[str, Any]],
    annotators: dict[str, dict[str, Any]] | None = None,
    predictions: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """A task; ``annotators`` (annotation id: who made it) goes into its ``meta``."""
    data: dict[str, Any] = {"text": text}
    if external_id:
        data["external_id"] = external_id
    task: dict[str, Any] = {"id": task_id, "data": data}
    if annotators:
        task["meta"] = {ANNOTATORS_META: annotators}
    task.update(annotations=annotations, predictions=predictions or [])
    return task


def labeling_config(labels: Iterable[str]) -> str:
    """The labeling config that shows the tasks: several labels per region (alternatives),
    a text area per region (its explanation)."""
    lines = [
        "<View>",
        f'  <Labels name="{FROM_NAME}" toName="{TO_NAME}" choice="multiple">',
        *(f"    <Label value={quoteattr(label)}/>" for label in labels),
        "  </Labels>",
        f'  <Text name="{TO_NAME}" value="${TO_NAME}"/>',
        f'  <TextArea name="{EXPLANATION_NAME}" toName="{TO_NAME}" perRegion="true"'
        ' editable="true" placeholder="Explanation"/>',
        "</View>",
    ]
    return "\n".join(lines) + "\n"
