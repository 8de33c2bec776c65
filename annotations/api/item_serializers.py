"""JSON shapes of the item API: an item with its form and an annotator's response.

The answer key (``Document.metadata["gold"]`` and the imported ``record``) is never part
of what an annotator gets: ``item_state`` adds ``gold`` for reviewers and admins only.
"""

from __future__ import annotations

from typing import Any

from fallacy_platform.api.serializers import CODE_POINTS
from rest_framework import serializers

from annotations.items import LABELLED_KINDS, RATING_KINDS, Form, FormField
from annotations.models import Annotation, Document, TaxonomyNode
from annotations.selectors.policy import may_see_answer_key
from annotations.services.responses import item_options, project_form

# --- the shapes (OpenAPI) -----------------------------------------------------------------


class ItemLabelSerializer(serializers.Serializer):
    name = serializers.CharField()
    definition = serializers.CharField(help_text="From the project taxonomy; empty if none.")


class ItemFieldSerializer(serializers.Serializer):
    name = serializers.CharField()
    kind = serializers.CharField(help_text="A kind of annotations.items.FIELD_KINDS.")
    title = serializers.CharField()
    help = serializers.CharField()
    labels = ItemLabelSerializer(
        many=True, help_text="classification, ranked, segmentation: the labels to pick from."
    )
    max = serializers.IntegerField(
        required=False, help_text="ranked: how many labels may be ranked; likert/rubric: top."
    )
    min = serializers.IntegerField(required=False, help_text="likert/rubric: the lowest score.")
    description = serializers.CharField(required=False)
    anchors = serializers.DictField(child=serializers.CharField(), required=False)
    criteria = serializers.JSONField(required=False)
    examples = serializers.JSONField(required=False)


class ItemFormSerializer(serializers.Serializer):
    aggregate = serializers.CharField()
    fields = ItemFieldSerializer(many=True)


class ItemDocumentSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    project = serializers.IntegerField()
    name = serializers.CharField()
    external_id = serializers.CharField()
    text = serializers.CharField()
    options = serializers.DictField(
        child=serializers.CharField(), help_text="Multiple-choice options by key (A, B...)."
    )
    candidate = serializers.CharField(
        allow_null=True, help_text="The text being rated or judged, if any."
    )


class ItemProjectSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.CharField()
    archived = serializers.BooleanField()
    role = serializers.CharField(allow_null=True)


class ItemAnnotationSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    annotator = serializers.DictField(help_text="{id, username}")
    status = serializers.CharField(help_text="in_progress or submitted.")
    revision = serializers.IntegerField()
    response = serializers.DictField(
        help_text="{form field: answer}; absent: unanswered. A segmentation answer is a list "
        f"of [start, end, label], offsets {CODE_POINTS}."
    )
    submitted_at = serializers.DateTimeField(allow_null=True)
    updated_at = serializers.DateTimeField()


class ItemStateSerializer(serializers.Serializer):
    document = ItemDocumentSerializer()
    project = ItemProjectSerializer()
    form = ItemFormSerializer()
    annotation = ItemAnnotationSerializer(
        allow_null=True, help_text="The response shown; null: not started yet."
    )
    gold = serializers.DictField(
        required=False, help_text="Reviewers and admins only: the item's answer key."
    )


class ItemConflictSerializer(serializers.Serializer):
    detail = serializers.CharField()
    current = ItemStateSerializer()


class ResponseWriteSerializer(serializers.Serializer):
    revision = serializers.IntegerField(
        min_value=1,
        allow_null=True,
        required=False,
        help_text="The annotation revision the client last saw (409 if stale); null or "
        "absent only for the first save, which starts the annotation.",
    )
    response = serializers.DictField(
        help_text="PATCH: the fields to change (null clears one); PUT: the whole response. "
        f"A segmentation answer is a list of [start, end, label], offsets {CODE_POINTS}."
    )


class ResponseSubmitSerializer(serializers.Serializer):
    revision = serializers.IntegerField(
        min_value=1, help_text="The annotation revision the client last saw (409 if stale)."
    )


class ResponseReopenSerializer(serializers.Serializer):
    annotator = serializers.IntegerField(help_text="Whose submitted response to reopen.")


# --- building the state -------------------------------------------------------------------


def _labels(form_field: FormField, type_names: list[str], definitions: dict[str, str]) -> list:
    if form_field.kind not in LABELLED_KINDS:
        return []
    return [
        {"name": name, "definition": definitions.get(name, "")}
        for name in form_field.labels_or(type_names)
    ]


def form_json(form: Form, *, taxonomy_id: int) -> dict[str, Any]:
    """The parsed form for the page: each field with its labels (and their definitions)."""
    nodes = TaxonomyNode.objects.filter(
        taxonomy_id=taxonomy_id, level=TaxonomyNode.Level.TYPE
    ).values_list("name", "definition")
    type_names = [name for name, _ in nodes]
    definitions = {name: definition for name, definition in nodes}
    fields = []
    for form_field in form.fields:
        entry: dict[str, Any] = {
            "name": form_field.name,
            "kind": form_field.kind,
            "title": form_field.title,
            "help": form_field.help,
            "labels": _labels(form_field, type_names, definitions),
            **form_field.options,
        }
        if form_field.kind == "ranked":
            entry["max"] = form_field.max
        elif form_field.kind in RATING_KINDS:
            entry["min"], entry["max"] = form_field.low, form_field.high
        fields.append(entry)
    return {"aggregate": form.aggregate, "fields": fields}


def annotation_json(annotation: Annotation | None) -> dict[str, Any] | None:
    if annotation is None:
        return None
    return {
        "id": annotation.pk,
        "annotator": {"id": annotation.annotator_id, "username": annotation.annotator.username},
        "status": annotation.status,
        "revision": annotation.revision,
        "response": annotation.response or {},
        "submitted_at": annotation.submitted_at,
        "updated_at": annotation.updated_at,
    }


def item_state(
    document: Document, annotation: Annotation | None, *, role: str | None
) -> dict[str, Any]:
    """What the item page shows; ``gold`` only for reviewers and admins (``role``)."""
    project = document.project
    metadata = document.metadata or {}
    candidate = metadata.get("candidate")
    state: dict[str, Any] = {
        "document": {
            "id": document.pk,
            "project": project.pk,
            "name": document.name,
            "external_id": document.external_id,
            "text": document.text,
            "options": item_options(document),
            "candidate": candidate if isinstance(candidate, str) else None,
        },
        "project": {
            "id": project.pk,
            "name": project.name,
            "kind": project.kind,
            "archived": project.archived_at is not None,
            "role": role,
        },
        "form": form_json(project_form(project), taxonomy_id=project.taxonomy_id),
        "annotation": annotation_json(annotation),
    }
    if may_see_answer_key(role):
        gold = metadata.get("gold")
        state["gold"] = gold if isinstance(gold, dict) else {}
    return state
