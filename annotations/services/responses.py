"""Writes on item annotations: an annotator's answers to a project's form (``Annotation.response``).

Concurrency contract (as ``annotations.services.annotations``): every function is one
transaction that first locks the annotation row (``select_for_update``), so concurrent
saves of one annotation serialise; on top of that the caller passes the annotation
revision it last saw and a stale one raises ``ConflictError`` carrying the annotation as
it is now (the API answers 409 with the current state; nothing is written, nothing lost).
Every write bumps ``annotation.revision``; ``Annotation`` keeps its history
(``HistoricalRecords``), so every saved response stays readable.

A save either *merges* (``merge=True``, a PATCH: the fields sent replace theirs, a field
sent as ``None`` becomes unanswered, the others stay) or *replaces* the whole response
(a PUT). Values are checked by ``annotations.items.check_response`` against the project
form, the item's options (``Document.metadata["options"]``) and the field's labels (its
own list, else the project taxonomy's type names); errors name the field
(``response.type``).

Submitting requires an answer to every *answer* field of the form (``ANSWER_KINDS``:
multiple-choice, classification, ranked, detection, segmentation, free-text); an empty
list is an answer for ranked ("no fallacy") and segmentation ("nothing to mark"), a
free-text answer must not be blank. Rating fields (likert, rubric) may be left out: a
rater may abstain and Krippendorff's α takes missing ratings. Whether the item has gold
for a field plays no part: items without gold are answered and submitted the same way.

Validation errors are ``django.core.exceptions.ValidationError`` with a
``{place: [message]}`` dict (``response.answer``, ``annotation``, ``form``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from annotations.items import ANSWER_KINDS, Form, FormError, check_response, parse_form
from annotations.models import Annotation, Document, Project, TaxonomyNode
from annotations.services.annotations import (
    ConflictError,
    locked_annotation,
    start_annotation,
    submit_annotation,
)
from annotations.spans import NotYourAnnotation, check_active, check_writable


def project_form(project: Project) -> Form:
    """The project's parsed form; a broken form is a ``ValidationError`` on ``form``."""
    try:
        return parse_form(project.form)
    except FormError as exc:
        raise ValidationError(
            {"form": [f"the form of project '{project.name}' is invalid: {exc}"]}
        ) from exc


def taxonomy_labels(project: Project) -> list[str]:
    """The type names (level 2) of the project taxonomy, in taxonomy order."""
    return list(
        TaxonomyNode.objects.filter(
            taxonomy_id=project.taxonomy_id, level=TaxonomyNode.Level.TYPE
        ).values_list("name", flat=True)
    )


def item_options(document: Document) -> dict[str, str]:
    """The item's multiple-choice options (``metadata["options"]``), ``{}`` when none."""
    options = (document.metadata or {}).get("options") or {}
    return {str(k): str(v) for k, v in options.items()} if isinstance(options, Mapping) else {}


def _check_item_project(project: Project) -> None:
    if project.kind != "items":
        raise ValidationError(
            {"annotation": [f"project '{project.name}' annotates spans, not form responses"]}
        )


def _validated(document: Document, response: Any) -> dict[str, Any]:
    project = document.project
    form = project_form(project)
    try:
        return check_response(
            form,
            response,
            text=document.text,
            options=item_options(document),
            taxonomy_labels=taxonomy_labels(project),
        )
    except FormError as exc:
        raise ValidationError(exc.problems) from exc


def _check_revision(locked: Annotation, expected_revision: int | None) -> None:
    if expected_revision is None or locked.revision != expected_revision:
        raise ConflictError(
            f"annotation {locked.pk} is at revision {locked.revision}, not {expected_revision}; "
            "reload it and apply your change again",
            current=locked,
        )


@transaction.atomic
def save_response(
    *,
    annotation: Annotation,
    response: Mapping[str, Any],
    expected_revision: int | None,
    by: Any | None = None,
    merge: bool = True,
) -> Annotation:
    """Save answers to the form; returns the annotation at its new revision.

    ``merge``: the fields in ``response`` replace theirs (``None`` clears one) and the
    others stay; otherwise ``response`` is the whole new response. A save that changes
    nothing still returns the annotation, without a new revision.
    """
    locked = locked_annotation(annotation)
    if by is not None and by.pk != locked.annotator_id:
        raise NotYourAnnotation("only the annotator writes this annotation")
    _check_revision(locked, expected_revision)
    check_writable(locked, by)
    _check_item_project(locked.document.project)
    if not isinstance(response, Mapping):
        raise ValidationError({"response": ["must be an object mapping field names to answers"]})
    new = {**(locked.response or {}), **response} if merge else dict(response)
    new = {name: value for name, value in new.items() if value is not None}
    new = _validated(locked.document, new)
    if new == (locked.response or {}):
        return locked
    locked.response = new
    locked.revision += 1
    locked.save(update_fields=["response", "revision", "updated_at"])
    return locked


@transaction.atomic
def start_and_save_response(
    *,
    document: Document,
    annotator: Any,
    response: Mapping[str, Any],
    expected_revision: int | None,
    merge: bool = True,
) -> Annotation:
    """``save_response`` on the annotator's annotation of the document, started by the
    first save (``expected_revision`` ``None``: the client has not seen one yet)."""
    existing = Annotation.objects.filter(document=document, annotator=annotator).first()
    if existing is None:
        _check_item_project(document.project)
        annotation = start_annotation(document=document, annotator=annotator)
        if expected_revision is None:  # a new annotation starts at revision 1
            expected_revision = Annotation._meta.get_field("revision").default
    else:
        annotation = existing
    return save_response(
        annotation=annotation,
        response=response,
        expected_revision=expected_revision,
        by=annotator,
        merge=merge,
    )


def missing_answers(form: Form, response: Mapping[str, Any]) -> list[str]:
    """Names of the answer fields a submission still needs (see the module docstring)."""
    missing = []
    for form_field in form.fields:
        if form_field.kind not in ANSWER_KINDS:
            continue
        value = response.get(form_field.name)
        if value is None or (form_field.kind == "free-text" and not str(value).strip()):
            missing.append(form_field.name)
    return missing


@transaction.atomic
def submit_response(
    *, annotation: Annotation, expected_revision: int | None, by: Any | None = None
) -> Annotation:
    """Submit an item annotation once every answer field is answered (read-only until a
    reviewer reopens it). Submitting twice is a no-op."""
    locked = locked_annotation(annotation)
    if by is not None and by.pk != locked.annotator_id:
        raise NotYourAnnotation("only the annotator submits this annotation")
    if expected_revision is not None:
        _check_revision(locked, expected_revision)
    if locked.status == Annotation.Status.SUBMITTED:
        return locked
    check_active(locked.document.project)
    _check_item_project(locked.document.project)
    form = project_form(locked.document.project)
    missing = missing_answers(form, locked.response or {})
    if missing:
        raise ValidationError(
            {f"response.{name}": ["an answer is required to submit"] for name in missing}
        )
    _validated(locked.document, locked.response or {})
    return submit_annotation(annotation=locked, expected_revision=locked.revision, by=by)


__all__ = [
    "ConflictError",
    "item_options",
    "missing_answers",
    "project_form",
    "save_response",
    "start_and_save_response",
    "submit_response",
    "taxonomy_labels",
]
