"""JSON shapes of the annotation API (the frontend's contract; fields may be added, not removed)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from fallacy_platform.api.serializers import CODE_POINTS, END_HELP, START_HELP
from rest_framework import serializers

from annotations.models import Annotation, Document, Membership, Project, Sentence, Span

# --- auth -------------------------------------------------------------------------------


class CredentialsSerializer(serializers.Serializer):
    username = serializers.CharField()
    password = serializers.CharField(style={"input_type": "password"}, trim_whitespace=False)


class UserBriefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()


class MembershipBriefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    role = serializers.ChoiceField(choices=Membership.Role.choices)
    archived = serializers.BooleanField()


class MeSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    is_staff = serializers.BooleanField()
    is_superuser = serializers.BooleanField()
    can_create_projects = serializers.BooleanField(
        help_text="Superusers and Django staff users may create projects."
    )
    projects = MembershipBriefSerializer(many=True)


class TokenSerializer(serializers.Serializer):
    token = serializers.CharField()


class EmptySerializer(serializers.Serializer):
    pass


# --- projects and documents -------------------------------------------------------------


class ProgressSerializer(serializers.Serializer):
    done = serializers.IntegerField(
        help_text="Annotator: my submitted documents. "
        "Reviewer/admin: documents with a submitted annotation."
    )
    total = serializers.IntegerField(
        help_text="Annotator: documents assigned to me. "
        "Reviewer/admin: all documents of the project."
    )
    assignments = serializers.IntegerField(
        required=False, help_text="Reviewer/admin only: (document, annotator) assignments."
    )
    submitted = serializers.IntegerField(
        required=False, help_text="Reviewer/admin only: submitted annotations."
    )


class _ProjectBase(serializers.ModelSerializer):
    # Reads (role, progress) from context["progress"][project.id] (see progress_for).

    role = serializers.SerializerMethodField()
    progress = serializers.SerializerMethodField()

    def _entry(self, obj: Project) -> tuple[str | None, dict[str, int]]:
        return self.context["progress"].get(obj.pk, (None, {"done": 0, "total": 0}))

    @extend_schema_field(serializers.ChoiceField(choices=Membership.Role.choices))
    def get_role(self, obj: Project) -> str | None:
        return self._entry(obj)[0]

    @extend_schema_field(ProgressSerializer)
    def get_progress(self, obj: Project) -> dict[str, int]:
        return self._entry(obj)[1]


class ArchivedField(serializers.BooleanField):
    """``archived``: whether the project has an ``archived_at``."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(source="*", read_only=True, **kwargs)

    def to_representation(self, value: Project) -> bool:
        return value.archived_at is not None


class ProjectListSerializer(_ProjectBase):
    archived = ArchivedField()

    class Meta:
        model = Project
        fields = [
            "id",
            "name",
            "description",
            "role",
            "taxonomy",
            "progress",
            "archived",
            "annotators_per_document",
        ]


class TaxonomyTypeSerializer(serializers.Serializer):
    name = serializers.CharField()
    aliases = serializers.ListField(child=serializers.CharField())
    definition = serializers.CharField()
    template = serializers.CharField()
    slots = serializers.ListField(child=serializers.CharField())
    example = serializers.CharField()


class TaxonomyCategorySerializer(serializers.Serializer):
    name = serializers.CharField()
    definition = serializers.CharField()
    types = TaxonomyTypeSerializer(many=True)


class TaxonomyTreeSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    version = serializers.CharField()
    title = serializers.CharField()
    description = serializers.CharField()
    categories = TaxonomyCategorySerializer(many=True)


class ProjectDetailSerializer(_ProjectBase):
    taxonomy = serializers.SerializerMethodField()
    archived = ArchivedField()
    # A plain string (spans|items): a ChoiceField's enum would collide with other "kind"s.
    kind = serializers.CharField(read_only=True)

    class Meta:
        model = Project
        fields = [
            "id",
            "name",
            "description",
            "guidelines",
            "role",
            "taxonomy",
            "progress",
            "archived",
            "annotators_per_document",
            "taxonomy_id",
            "kind",
            "justification_templates",
        ]

    @extend_schema_field(TaxonomyTreeSerializer)
    def get_taxonomy(self, obj: Project) -> dict[str, Any]:
        from annotations.selectors.taxonomy import taxonomy_tree

        return taxonomy_tree(obj.taxonomy)


class NextDocumentSerializer(serializers.Serializer):
    document = serializers.IntegerField(allow_null=True)


class NeighbourSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    external_id = serializers.CharField()


class NeighboursSerializer(serializers.Serializer):
    queue = serializers.ChoiceField(
        choices=["assigned", "project", "annotator"],
        help_text="assigned: the documents assigned to me, in my queue's order; project: "
        "the documents I see of the project, in project order (a document not assigned to me); "
        "annotator: those with an annotation by ?annotator= (reviewers and admins).",
    )
    position = serializers.IntegerField(help_text="This document's place in the queue, from 1.")
    total = serializers.IntegerField()
    previous = NeighbourSerializer(allow_null=True)
    next = NeighbourSerializer(allow_null=True)


OFFSET_KWARGS = {"start": {"help_text": START_HELP}, "end": {"help_text": END_HELP}}


class SentenceSerializer(serializers.ModelSerializer):
    class Meta:
        model = Sentence
        fields = ["index", "start", "end"]
        extra_kwargs = OFFSET_KWARGS


class DocumentSerializer(serializers.ModelSerializer):
    sentences = SentenceSerializer(many=True, read_only=True)
    my_status = serializers.SerializerMethodField()
    project_kind = serializers.CharField(source="project.kind", read_only=True)  # spans|items

    class Meta:
        model = Document
        fields = [
            "id",
            "project",
            "name",
            "external_id",
            "text",
            "sentences",
            "my_status",
            "project_kind",
        ]

    @extend_schema_field(
        serializers.CharField(
            allow_null=True,
            help_text="My own work on it: todo (assigned, not started), in_progress, "
            "submitted; null when it is not assigned to me and I have no annotation.",
        )
    )
    def get_my_status(self, obj: Document) -> str | None:
        status = getattr(obj, "my_annotation_status", None)
        if status:
            return status
        return "todo" if getattr(obj, "assigned_to_me", False) else None


# --- annotations and spans --------------------------------------------------------------


class SlotDetailSerializer(serializers.Serializer):
    slots = serializers.DictField(child=serializers.CharField(), required=False)
    explanation = serializers.CharField(required=False, allow_blank=True)


DETAILS_HELP = (
    'Per label of the span (not "no fallacy"): {"slots": {slot: value}, "explanation": str}; '
    "slots must be slots of that label's template."
)


class SpanSerializer(serializers.ModelSerializer):
    labels = serializers.ListField(
        child=serializers.CharField(),
        help_text='Alternative canonical labels, sorted; may include "no fallacy".',
    )
    details = serializers.DictField(child=SlotDetailSerializer(), help_text=DETAILS_HELP)

    class Meta:
        model = Span
        fields = ["id", "client_id", "start", "end", "labels", "details", "revision"]
        extra_kwargs = OFFSET_KWARGS


def _slot_detail(entry: Any) -> Any:
    """``SlotDetailSerializer().to_representation`` of a stored entry."""
    out = {}
    if "slots" in entry:
        slots = entry["slots"]
        out["slots"] = {str(k): None if v is None else str(v) for k, v in slots.items()}
    if "explanation" in entry:
        explanation = entry["explanation"]
        out["explanation"] = None if explanation is None else str(explanation)
    return out


def span_data(span: Span) -> dict[str, Any]:
    """``SpanSerializer(span).data`` without building a serializer: the write path answers
    with it on every request (``tests/annotations/api/test_write_query_counts.py`` checks they are
    equal)."""
    return {
        "id": span.pk,
        "client_id": None if span.client_id is None else str(span.client_id),
        "start": int(span.start),
        "end": int(span.end),
        "labels": [None if x is None else str(x) for x in span.labels],
        "details": {
            str(label): None if entry is None else _slot_detail(entry)
            for label, entry in span.details.items()
        },
        "revision": int(span.revision),
    }


class SpanCreateSerializer(serializers.Serializer):
    start = serializers.IntegerField(min_value=0, help_text=f"Start of a sentence, {CODE_POINTS}.")
    end = serializers.IntegerField(
        min_value=1, help_text=f"End of a sentence (exclusive), {CODE_POINTS}."
    )
    labels = serializers.ListField(
        child=serializers.CharField(),
        help_text="Fallacy types of the project's taxonomy (case-insensitive); "
        '"no fallacy" may be one of the alternatives.',
    )
    details = serializers.DictField(
        child=serializers.JSONField(), required=False, help_text=DETAILS_HELP
    )
    client_id = serializers.UUIDField(
        required=False,
        allow_null=True,
        help_text="Chosen by the client: repeating a create with the same client_id "
        "returns the span created the first time (200) instead of a duplicate.",
    )


class SpanPatchSerializer(serializers.Serializer):
    revision = serializers.IntegerField(
        min_value=1, help_text="The span revision the client last saw (409 if stale)."
    )
    start = serializers.IntegerField(min_value=0, required=False, help_text=START_HELP)
    end = serializers.IntegerField(min_value=1, required=False, help_text=END_HELP)
    labels = serializers.ListField(child=serializers.CharField(), required=False)
    details = serializers.DictField(
        child=serializers.JSONField(), required=False, help_text=DETAILS_HELP
    )


class SpanDeleteQuerySerializer(serializers.Serializer):
    revision = serializers.IntegerField(
        min_value=1, help_text="The span revision the client last saw (409 if stale)."
    )


class AnnotationSerializer(serializers.ModelSerializer):
    spans = SpanSerializer(many=True, read_only=True)

    class Meta:
        model = Annotation
        fields = [
            "id",
            "document",
            "annotator",
            "status",
            "revision",
            "comments",
            "submitted_at",
            "spans",
        ]


class SubmitSerializer(serializers.Serializer):
    revision = serializers.IntegerField(
        min_value=1,
        required=False,
        help_text="Optional: the annotation revision the client last saw (409 if stale).",
    )


class SpanConflictSerializer(serializers.Serializer):
    detail = serializers.CharField()
    current = SpanSerializer()


class AnnotationConflictSerializer(serializers.Serializer):
    detail = serializers.CharField()
    current = AnnotationSerializer()
