"""JSON shapes of running a project: assignment, the document list, progress, a document's
annotations (the frontend's contract; fields may be added, not removed)."""

from __future__ import annotations

from typing import Any

from fallacy_platform.inputs import StrictBooleanField
from fallacy_platform.query import QuerySerializer
from rest_framework import serializers

from annotations.api.serializers import SentenceSerializer, SpanSerializer, UserBriefSerializer
from annotations.models import Annotation
from annotations.selectors.documents import (
    MY_STATUSES,
    ORDERINGS,
    PROJECT_STATUSES,
    DocumentQuery,
)

# --- the document list's filters (the list and "assign the documents matching") -------------


class DocumentFiltersSerializer(QuerySerializer):
    """Search and filters of the document list. ``status`` is the user's own status for
    annotators, the project-level one for staff (``context["staff"]``; ``staff = True`` on
    a subclass fixes it)."""

    staff: bool | None = None

    q = serializers.CharField(
        required=False, allow_blank=True, help_text="Case-insensitive search in text and name."
    )
    status = serializers.CharField(
        required=False,
        allow_blank=True,
        help_text="Annotators: todo|in_progress|submitted (their own). "
        "Reviewers/admins: unassigned|todo|in_progress|done (project level).",
    )
    annotator = serializers.IntegerField(
        required=False, help_text="Reviewers/admins: documents assigned to this user id."
    )
    fewer_than = serializers.IntegerField(
        required=False, min_value=1, help_text="Reviewers/admins: fewer than n submitted."
    )

    def _staff(self) -> bool:
        return bool(self.staff if self.staff is not None else self.context.get("staff"))

    def validate_status(self, value: str) -> str | None:
        if not value:
            return None
        allowed = PROJECT_STATUSES if self._staff() else MY_STATUSES
        if value not in allowed:
            raise serializers.ValidationError(f"'{value}' is not one of {', '.join(allowed)}")
        return value


def document_query(
    validated: dict[str, Any], *, staff: bool, default_ordering: str = "position"
) -> DocumentQuery:
    """The ``DocumentQuery`` of validated filters (the staff-only filters dropped for
    annotators); ``ordering`` defaults to ``default_ordering`` (the project order, or the
    annotators' queue order: ``selectors.documents.default_ordering``)."""
    return DocumentQuery(
        q=validated.get("q", "").strip(),
        status=validated.get("status"),
        annotator=validated.get("annotator") if staff else None,
        fewer_than=validated.get("fewer_than") if staff else None,
        ordering=validated.get("ordering") or default_ordering,
    )


class AssignFiltersSerializer(DocumentFiltersSerializer):
    """The document list's filters as an admin uses them (project-level status)."""

    staff = True


# --- assignment -----------------------------------------------------------------------------


class AssignRequestSerializer(serializers.Serializer):
    annotators = serializers.ListField(
        child=serializers.IntegerField(), allow_empty=False, help_text="User ids."
    )
    per_document = serializers.IntegerField(
        min_value=1, help_text="Top each chosen document up to this many of the annotators."
    )
    documents = serializers.ChoiceField(
        choices=["all", "unassigned", "sample", "selected", "matching"],
        default="all",
        help_text='"matching": the documents the filters select in the document list (the '
        "server selects them, in the same transaction; no limit).",
    )
    sample_size = serializers.IntegerField(
        min_value=1, required=False, help_text='With documents="sample".'
    )
    seed = serializers.IntegerField(
        required=False, allow_null=True, help_text="Seeds the sample and the tie-breaking."
    )
    document_ids = serializers.ListField(
        child=serializers.IntegerField(), required=False, help_text='With documents="selected".'
    )
    filters = AssignFiltersSerializer(
        required=False,
        help_text='With documents="matching": q, status (unassigned|todo|in_progress|done), '
        "annotator, fewer_than, as the document list takes them; none: every document.",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs["documents"] == "sample" and not attrs.get("sample_size"):
            raise serializers.ValidationError({"sample_size": ['required with "sample"']})
        if attrs["documents"] == "selected" and not attrs.get("document_ids"):
            raise serializers.ValidationError({"document_ids": ['required with "selected"']})
        return attrs


class AnnotatorTotalSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    assigned = serializers.IntegerField(help_text="Their assignments in the project now.")


class AssignResultSerializer(serializers.Serializer):
    created = serializers.IntegerField()
    documents = serializers.IntegerField(help_text="Documents considered.")
    annotators = AnnotatorTotalSerializer(many=True)


class UnassignRequestSerializer(serializers.Serializer):
    annotator = serializers.IntegerField(help_text="User id.")
    document_ids = serializers.ListField(child=serializers.IntegerField(), allow_empty=False)
    force = StrictBooleanField(
        default=False, help_text="Also documents the annotator has an annotation on."
    )


class UnassignResultSerializer(serializers.Serializer):
    removed = serializers.IntegerField()


class ReassignRequestSerializer(serializers.Serializer):
    from_annotator = serializers.IntegerField(help_text="User id.")
    to_annotator = serializers.IntegerField(help_text="User id (an annotator of the project).")
    document_ids = serializers.ListField(child=serializers.IntegerField(), allow_empty=False)
    force = StrictBooleanField(
        default=False, help_text="Also documents from_annotator has an annotation on."
    )


class ReassignResultSerializer(serializers.Serializer):
    moved = serializers.IntegerField()


class WorkInProgressSerializer(serializers.Serializer):
    detail = serializers.CharField()
    documents = serializers.ListField(
        child=serializers.IntegerField(), help_text="Documents the annotator has work on."
    )


# --- the document list ----------------------------------------------------------------------


class DocumentListQuerySerializer(DocumentFiltersSerializer):
    ordering = serializers.ChoiceField(
        choices=list(ORDERINGS),
        required=False,
        help_text="Default: project order (position); annotators of a project whose queue "
        "puts disagreement first: disagreement (documents where the suggesting runs disagree "
        "most first).",
    )


_DATETIME = serializers.DateTimeField()  # one instance renders every row's datetime


class AnnotatorStatusSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    status = serializers.CharField(help_text="todo | in_progress | submitted")


class DocumentRowSerializer(serializers.Serializer):
    """A row of the document list. Annotators get ``status`` = ``my_status`` and no
    ``assigned``/``in_progress``/``submitted``/``annotators``."""

    id = serializers.IntegerField()
    name = serializers.CharField()
    external_id = serializers.CharField()
    position = serializers.IntegerField()
    length = serializers.IntegerField(help_text="Length of the text in Unicode code points.")
    updated_at = serializers.DateTimeField(
        allow_null=True, help_text="Latest annotation change (annotators: their own)."
    )
    status = serializers.CharField(
        help_text="Reviewers/admins: the project-level status (unassigned | todo | "
        "in_progress | done); annotators: my_status."
    )
    my_status = serializers.CharField(
        allow_null=True, help_text="todo | in_progress | submitted; null: not assigned to me."
    )
    assigned = serializers.IntegerField(required=False)
    in_progress = serializers.IntegerField(required=False)
    submitted = serializers.IntegerField(required=False)
    annotators = AnnotatorStatusSerializer(many=True, required=False)

    def to_representation(self, instance: Any) -> dict[str, Any]:
        # instance: annotations.selectors.documents.DocumentRow
        row = {
            "id": instance.id,
            "name": instance.name,
            "external_id": instance.external_id,
            "position": instance.position,
            "length": instance.length,
            "updated_at": (
                _DATETIME.to_representation(instance.updated_at) if instance.updated_at else None
            ),
            "status": instance.status,
            "my_status": instance.my_status,
        }
        if instance.work is not None:
            work = instance.work
            row.update(
                assigned=work.assigned,
                in_progress=work.in_progress,
                submitted=work.submitted,
                annotators=[
                    {"id": a.id, "username": a.username, "status": a.status}
                    for a in work.annotators
                ],
            )
        return row


# --- progress -------------------------------------------------------------------------------


class ProgressTotalsSerializer(serializers.Serializer):
    documents = serializers.IntegerField(help_text="Annotators: documents assigned to me.")
    done = serializers.IntegerField(
        help_text="Staff: documents with at least annotators_per_document submitted "
        "annotations. Annotators: documents I submitted."
    )
    in_progress = serializers.IntegerField()
    todo = serializers.IntegerField()
    unassigned = serializers.IntegerField()
    assignments = serializers.IntegerField()
    submitted = serializers.IntegerField()


class AnnotatorProgressSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    assigned = serializers.IntegerField()
    in_progress = serializers.IntegerField()
    submitted = serializers.IntegerField()
    last_active = serializers.DateTimeField(
        allow_null=True, help_text="Their latest annotation change in the project."
    )


class ProjectProgressSerializer(serializers.Serializer):
    role = serializers.CharField()
    annotators_per_document = serializers.IntegerField()
    totals = ProgressTotalsSerializer()
    annotators = AnnotatorProgressSerializer(many=True)


# --- a document's annotations ---------------------------------------------------------------


class DocumentAnnotationSerializer(serializers.ModelSerializer):
    annotator = UserBriefSerializer()
    status = serializers.CharField(help_text="in_progress | submitted")
    spans = SpanSerializer(many=True, read_only=True)

    class Meta:
        model = Annotation
        fields = ["id", "annotator", "status", "revision", "updated_at", "submitted_at", "spans"]


class DocumentOpenedSerializer(serializers.Serializer):
    """``GET /api/documents/ID/open/``: the document (as ``/documents/ID/``) and the
    annotations the user may read (as ``/documents/ID/annotations/``), in one call.
    Describes the schema; the view renders plain dicts."""

    id = serializers.IntegerField()
    project = serializers.IntegerField()
    name = serializers.CharField()
    external_id = serializers.CharField()
    text = serializers.CharField()
    sentences = SentenceSerializer(many=True)
    my_status = serializers.CharField(
        allow_null=True,
        help_text="My own work on it: todo (assigned, not started), in_progress, submitted; "
        "null when it is not assigned to me and I have no annotation.",
    )
    project_kind = serializers.CharField(help_text="spans | items")
    annotations = DocumentAnnotationSerializer(
        many=True,
        help_text="Reviewers/admins: every annotator's; annotators: only their own (0 or 1). "
        "Opening creates nothing: no annotation before the first saved change.",
    )
