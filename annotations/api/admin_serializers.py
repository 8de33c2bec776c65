"""JSON shapes of the project set-up API: projects, taxonomies, imports, members, users."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from fallacy_platform.inputs import StrictBooleanField
from rest_framework import serializers

from annotations.form_presets import FORM_PRESETS
from annotations.importing.job_options import FORMATS
from annotations.items import PROJECT_KINDS
from annotations.models import ImportJob, Membership, Project
from annotations.models.projects import TEMPLATE_MODES
from annotations.selectors.access import sees_email_of
from annotations.selectors.projects import SUGGEST_LIMIT, SUGGEST_MIN_LENGTH

# --- projects ---------------------------------------------------------------------------


def _check_kind(value: str) -> None:
    if value not in PROJECT_KINDS:
        raise serializers.ValidationError(f"must be one of {', '.join(PROJECT_KINDS)}")


@extend_schema_field({"type": "string", "enum": list(PROJECT_KINDS)})
class ProjectKindField(serializers.CharField):
    """A project kind (a plain string checked by ``_check_kind``, not a ChoiceField whose
    enum would collide with other "kind" enums), documented as ``ProjectKindEnum``."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(validators=[_check_kind], **kwargs)


class ProjectCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=Project._meta.get_field("name").max_length)
    description = serializers.CharField(required=False, allow_blank=True, default="")
    guidelines = serializers.CharField(
        required=False, allow_blank=True, default="", help_text="Markdown shown to annotators."
    )
    taxonomy = serializers.IntegerField(
        required=False,
        help_text="Taxonomy id (see GET /api/taxonomies/); with a form_preset, by default "
        "the preset's taxonomy.",
    )
    annotators_per_document = serializers.IntegerField(
        min_value=1,
        required=False,
        default=1,
        help_text="A document is done when this many annotators submitted it.",
    )
    kind = ProjectKindField(
        required=False,
        help_text="spans (span annotation, the default) or items (a form answered per item; "
        "the default with a form_preset).",
    )
    form = serializers.JSONField(
        required=False, help_text="Item projects: the form (annotations.items)."
    )
    form_preset = serializers.ChoiceField(
        choices=list(FORM_PRESETS),
        required=False,
        help_text="Item projects: a built-in form (flub, smartypat, argbench) instead of form.",
    )
    justification_templates = serializers.ChoiceField(
        choices=list(TEMPLATE_MODES),
        required=False,
        help_text="Span projects: the labels' template slots are required (submitting "
        "refuses a span with an empty slot), optional (the default; submitting warns) or off "
        "(the annotation page shows no template).",
    )

    def validate(self, data: dict) -> dict:
        if "form" in data and "form_preset" in data:
            raise serializers.ValidationError(
                {"form_preset": ["send either a form or the name of a form preset"]}
            )
        if "taxonomy" not in data and "form_preset" not in data:
            raise serializers.ValidationError({"taxonomy": ["This field is required."]})
        return data


class ProjectPatchSerializer(serializers.Serializer):
    name = serializers.CharField(
        required=False, max_length=Project._meta.get_field("name").max_length
    )
    description = serializers.CharField(required=False, allow_blank=True)
    guidelines = serializers.CharField(required=False, allow_blank=True)
    annotators_per_document = serializers.IntegerField(min_value=1, required=False)
    archived = StrictBooleanField(required=False, help_text="Archive or unarchive.")
    taxonomy = serializers.IntegerField(
        required=False,
        help_text="Taxonomy id; refused once the project has a span or a gold standard.",
    )
    kind = ProjectKindField(
        required=False,
        help_text="spans or items; refused once the project has documents.",
    )
    form = serializers.JSONField(required=False, help_text="Item projects: the form.")
    form_preset = serializers.ChoiceField(
        choices=list(FORM_PRESETS), required=False, help_text="Replace the form by a preset's."
    )
    justification_templates = serializers.ChoiceField(
        choices=list(TEMPLATE_MODES),
        required=False,
        help_text="Span projects: the labels' template slots are required (submitting "
        "refuses a span with an empty slot), optional (the default; submitting warns) or off "
        "(the annotation page shows no template).",
    )

    def validate(self, data: dict) -> dict:
        if "form" in data and "form_preset" in data:
            raise serializers.ValidationError(
                {"form_preset": ["send either a form or the name of a form preset"]}
            )
        return data


# --- taxonomies -------------------------------------------------------------------------


class TaxonomySummarySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    version = serializers.CharField()
    title = serializers.CharField()
    type_count = serializers.IntegerField(help_text="Level-2 fallacy types.")


class PresetSerializer(serializers.Serializer):
    name = serializers.CharField()
    title = serializers.CharField()
    installed_id = serializers.IntegerField(
        allow_null=True, help_text="The installed taxonomy of this preset's name and version."
    )


class FormPresetSerializer(serializers.Serializer):
    name = serializers.CharField()
    title = serializers.CharField()
    taxonomy = serializers.CharField(help_text="The taxonomy preset a new project of it uses.")
    format = serializers.CharField(help_text="The import format its items come in.")
    form = serializers.JSONField()


class TaxonomyListSerializer(serializers.Serializer):
    taxonomies = TaxonomySummarySerializer(many=True)
    presets = PresetSerializer(many=True)
    form_presets = FormPresetSerializer(many=True, help_text="Item projects' built-in forms.")


class TaxonomyUploadSerializer(serializers.Serializer):
    file = serializers.FileField(
        required=False, help_text="A taxonomy file: .yaml, .yml or .json (load_taxonomy's)."
    )
    preset = serializers.CharField(required=False, help_text='A built-in preset, e.g. "mafalda".')

    def validate(self, data: dict) -> dict:
        if ("file" in data) == ("preset" in data):
            raise serializers.ValidationError(
                {"file": ["send either a taxonomy file or the name of a preset"]}
            )
        return data


# --- imports ----------------------------------------------------------------------------


class FileSerializer(serializers.Serializer):
    file = serializers.FileField()


class CsvInspectionSerializer(serializers.Serializer):
    columns = serializers.ListField(child=serializers.CharField())
    rows = serializers.IntegerField(help_text="Data rows (the header not counted).")
    sample = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField()), help_text="The first 3 rows."
    )


class ImportCreateSerializer(serializers.Serializer):
    file = serializers.FileField()
    format = serializers.ChoiceField(choices=FORMATS)
    text_column = serializers.CharField(
        required=False,
        allow_blank=True,
        help_text='CSV: the column of the texts ("text"). SmartyPat: the item text: rewrite, '
        "post, a header's column name or a 1-based position (default: the rewrite in a file "
        "without a header, else the post).",
    )
    id_column = serializers.CharField(
        required=False, allow_blank=True, help_text="CSV: the column of the ids (optional)."
    )
    annotator = serializers.CharField(
        required=False,
        allow_blank=True,
        help_text="doccano: username or e-mail of the annotator whose work the file holds "
        "(default: the uploader).",
    )
    columns = serializers.CharField(
        required=False,
        allow_blank=True,
        help_text='items: the column mapping as JSON, e.g. {"text": "post", "id": "pid", '
        '"options": ["A", "B", "C", "D"], "answer": "gold"}.',
    )
    set_metadata = serializers.ListField(
        child=serializers.CharField(max_length=300),
        required=False,
        help_text="Item formats: key=value written on every item of the file (split=bench); "
        "repeat the part for several keys. The Results tab offers the values as subsets.",
    )
    texts_only = StrictBooleanField(
        required=False,
        default=False,
        help_text="labelstudio: import the tasks' texts only (no annotations, no predictions).",
    )
    annotators = serializers.CharField(
        required=False,
        allow_blank=True,
        help_text="labelstudio: JSON mapping each annotator's key (its Label Studio id, else "
        'its e-mail) to a choice: {"action": "member", "user": "alice"}, {"action": '
        '"invite", "email": "a@b.org"} (an inactive placeholder holds the work until the '
        'invitation is accepted) or {"action": "drop"}; unlisted: the user remembered for '
        "it in this project, else a member with its e-mail, else a new placeholder.",
    )


class ImportErrorSerializer(serializers.Serializer):
    line = serializers.IntegerField(allow_null=True)
    field = serializers.CharField(allow_null=True)
    message = serializers.CharField()
    text = serializers.CharField(help_text='"LINE: FIELD: message" (or "LINE: message").')


class ImportJobSerializer(serializers.ModelSerializer):
    report = serializers.DictField(
        help_text="ImportReport: texts, documents_created, documents_reused, sentences, "
        "spans, skipped_to_clean, ...; empty until the job succeeded."
    )
    errors = ImportErrorSerializer(
        many=True, help_text="Every bad record, all of them, in line order."
    )

    class Meta:
        model = ImportJob
        fields = [
            "id",
            "project",
            "format",
            "file_name",
            "size",
            "status",
            "lines_total",
            "lines_done",
            "report",
            "errors",
            "created_at",
            "started_at",
            "finished_at",
        ]


# --- members and users ------------------------------------------------------------------


class UserSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    email = serializers.CharField()


class MemberUserSerializer(serializers.Serializer):
    """A member's account; its e-mail only to the member themself and to superusers
    (``access.sees_email_of``: the context's request user)."""

    id = serializers.IntegerField()
    username = serializers.CharField()
    email = serializers.CharField(
        required=False, help_text="Only in your own row (every row for a superuser)."
    )

    def to_representation(self, instance: Any) -> dict[str, Any]:
        data = super().to_representation(instance)
        request = self.context.get("request")
        if not sees_email_of(getattr(request, "user", None), instance):
            data.pop("email", None)
        return data


class MemberSerializer(serializers.ModelSerializer):
    user = MemberUserSerializer()
    assigned = serializers.IntegerField(read_only=True)
    in_progress = serializers.IntegerField(read_only=True)
    submitted = serializers.IntegerField(read_only=True)

    class Meta:
        model = Membership
        fields = ["id", "user", "role", "assigned", "in_progress", "submitted"]


class MemberCreateSerializer(serializers.Serializer):
    user = serializers.CharField(
        help_text="Username or e-mail (case-insensitive) of an account I already share a "
        "project with (a superuser: any account); anyone else: invite them."
    )
    role = serializers.ChoiceField(choices=Membership.Role.choices)


class MemberSuggestionQuerySerializer(serializers.Serializer):
    q = serializers.CharField(
        min_length=SUGGEST_MIN_LENGTH,
        max_length=150,
        trim_whitespace=False,  # as the schema says: any 2 characters are a valid query
        help_text=f"The start of a username (at least {SUGGEST_MIN_LENGTH} characters).",
    )


class MemberSuggestionsSerializer(serializers.Serializer):
    usernames = serializers.ListField(
        child=serializers.CharField(),
        help_text="Matching usernames of accounts I already see (members of the projects I "
        "review or administer; superusers: every account), not yet members; at most "
        f"{SUGGEST_LIMIT}.",
    )


class MemberPatchSerializer(serializers.Serializer):
    role = serializers.ChoiceField(choices=Membership.Role.choices)


class UserCreateSerializer(serializers.Serializer):
    username = serializers.CharField()
    email = serializers.CharField(required=False, allow_blank=True, default="")
    password = serializers.CharField(style={"input_type": "password"}, trim_whitespace=False)
