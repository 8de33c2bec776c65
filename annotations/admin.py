"""Django admin for the annotation data.

Spans and sentences are read-only here: spans change through the API (which validates them
against the taxonomy and sentences and bumps revisions), sentences are derived from the text.
Documents are added and changed through ``services.documents`` (sentences split, readable
name set; a text with annotations or gold spans on it cannot change: a form error says so).
Published gold standards are immutable: their page, documents and spans are view-only, and a
document a published version covers cannot be deleted. Annotations, spans and gold rows show
their history (django-simple-history's "History" page).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Count, QuerySet
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from simple_history.admin import SimpleHistoryAdmin

from annotations.models import (
    Annotation,
    AnnotatorCounter,
    Assignment,
    Document,
    GoldDocument,
    GoldSpan,
    GoldStandard,
    ImportJob,
    ImportUpload,
    Invitation,
    LabelStudioAnnotator,
    Membership,
    Project,
    Sentence,
    Span,
    Taxonomy,
    TaxonomyNode,
)
from annotations.services.documents import (
    add_document,
    check_text,
    check_text_can_change,
    update_document,
)

PREVIEW = 80


def _preview(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= PREVIEW else text[: PREVIEW - 1] + "…"


class ReadOnlyInlineMixin:
    """An inline that lists rows but never adds, changes or deletes them."""

    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


# --- taxonomies ---------------------------------------------------------------------------


class TaxonomyNodeInline(admin.TabularInline):
    model = TaxonomyNode
    fields = ["level", "name", "parent", "position", "slots", "aliases"]
    raw_id_fields = ["parent"]
    extra = 0
    show_change_link = True


@admin.register(Taxonomy)
class TaxonomyAdmin(admin.ModelAdmin):
    list_display = ["name", "version", "title", "node_count", "created_at"]
    search_fields = ["name", "title", "version"]
    inlines = [TaxonomyNodeInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Taxonomy]:
        return super().get_queryset(request).annotate(_nodes=Count("nodes"))

    @admin.display(description="nodes", ordering="_nodes")
    def node_count(self, obj: Taxonomy) -> int:
        return obj._nodes


@admin.register(TaxonomyNode)
class TaxonomyNodeAdmin(admin.ModelAdmin):
    list_display = ["name", "level", "parent", "taxonomy", "position"]
    list_filter = ["taxonomy", "level"]
    search_fields = ["name", "definition", "template"]
    list_select_related = ["taxonomy", "parent"]
    autocomplete_fields = ["taxonomy"]
    raw_id_fields = ["parent"]


# --- projects, members, documents --------------------------------------------------------


class MembershipInline(admin.TabularInline):
    model = Membership
    fields = ["user", "role"]
    autocomplete_fields = ["user"]
    extra = 0


@admin.register(Project)
class ProjectAdmin(admin.ModelAdmin):
    list_display = ["name", "taxonomy", "document_count", "member_count", "created_at"]
    search_fields = ["name", "description"]
    list_filter = ["taxonomy"]
    autocomplete_fields = ["taxonomy"]
    inlines = [MembershipInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Project]:
        return (
            super()
            .get_queryset(request)
            .select_related("taxonomy")
            .annotate(
                _docs=Count("documents", distinct=True),
                _members=Count("memberships", distinct=True),
            )
        )

    @admin.display(description="documents", ordering="_docs")
    def document_count(self, obj: Project) -> int:
        return obj._docs

    @admin.display(description="members", ordering="_members")
    def member_count(self, obj: Project) -> int:
        return obj._members


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ["user", "project", "role"]
    list_filter = ["role", "project"]
    search_fields = ["user__username", "user__email", "project__name"]
    list_select_related = ["user", "project"]
    autocomplete_fields = ["user", "project"]


class SentenceInline(ReadOnlyInlineMixin, admin.TabularInline):
    model = Sentence
    fields = ["index", "start", "end", "text"]
    readonly_fields = fields

    @admin.display(description="text")
    def text(self, obj: Sentence) -> str:
        return _preview(obj.document.text[obj.start : obj.end])


def _same_text(submitted: str, stored: str) -> bool:
    # Browsers send a textarea's line breaks as CRLF: that alone is no change.
    return submitted.replace("\r\n", "\n") == stored.replace("\r\n", "\n")


class DocumentForm(forms.ModelForm):
    """Surfaces the document services' refusals (blank text, a text with annotations or gold
    spans on it) as form errors; the services do the saving (``DocumentAdmin.save_model``)."""

    text = forms.CharField(widget=forms.Textarea, strip=False)

    class Meta:
        model = Document
        fields = ["project", "external_id", "text", "source", "metadata", "position"]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        text = data.get("text")
        if text is None:
            return data
        if self.instance.pk and _same_text(text, self.instance.text):
            data["text"] = self.instance.text  # unchanged: keep the stored text as it is
            return data
        try:
            check_text(text)
            if self.instance.pk:
                check_text_can_change(Document.objects.get(pk=self.instance.pk))
        except ValidationError as error:
            self.add_error(None, error)
        return data


@admin.register(Document)
class DocumentAdmin(admin.ModelAdmin):
    form = DocumentForm
    list_display = ["__str__", "project", "position", "source", "preview", "created_at"]
    list_filter = ["project"]
    search_fields = ["name", "external_id", "source", "text"]
    list_select_related = ["project"]
    autocomplete_fields = ["project"]
    inlines = [SentenceInline]

    def get_fields(self, request: HttpRequest, obj: Document | None = None) -> list[str]:
        # Added documents go to the end of their project (the service picks the position).
        if obj is None:
            return ["project", "external_id", "text", "source", "metadata"]
        return ["project", "name", "external_id", "text", "source", "metadata", "position"]

    def get_readonly_fields(self, request: HttpRequest, obj: Document | None = None) -> list[str]:
        return ["project", "name"] if obj is not None else []

    def save_model(
        self, request: HttpRequest, obj: Document, form: forms.ModelForm, change: bool
    ) -> None:
        data = form.cleaned_data
        fields = {
            "external_id": data.get("external_id", ""),
            "text": data["text"],
            "source": data.get("source", ""),
            "metadata": data.get("metadata") or {},
        }
        if change:
            update_document(document=obj, position=data.get("position"), **fields)
        else:
            obj.pk = add_document(project=data["project"], **fields).pk
            obj._state.adding = False
        obj.refresh_from_db()

    @admin.display(description="text")
    def preview(self, obj: Document) -> str:
        return _preview(obj.text)

    def has_delete_permission(self, request: HttpRequest, obj: Document | None = None) -> bool:
        if obj is not None and _in_published_gold(Document.objects.filter(pk=obj.pk)):
            return False
        return super().has_delete_permission(request, obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Document]) -> None:
        if _in_published_gold(queryset):
            self.message_user(
                request,
                "Nothing deleted: some of these documents are in a published gold standard "
                "version, which never changes.",
                messages.ERROR,
            )
            return
        super().delete_queryset(request, queryset)


def _in_published_gold(documents: QuerySet[Document]) -> bool:
    return GoldDocument.objects.filter(
        document__in=documents, gold_standard__status=GoldStandard.Status.PUBLISHED
    ).exists()


@admin.register(ImportJob)
class ImportJobAdmin(admin.ModelAdmin):
    """View only: jobs are made by uploads in the app (``importing.jobs``)."""

    list_display = ["id", "file_name", "project", "format", "status", "size", "created_at"]
    list_filter = ["status", "format", "project"]
    search_fields = ["file_name", "project__name"]
    list_select_related = ["project"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(ImportUpload)
class ImportUploadAdmin(admin.ModelAdmin):
    """View only: the bytes of an unfinished import job (not shown; deleted when it ends)."""

    list_display = ["job"]
    list_select_related = ["job"]
    exclude = ["content"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[ImportUpload]:
        return super().get_queryset(request).defer("content")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Invitation)
class InvitationAdmin(admin.ModelAdmin):
    """View only (revoke from the project's Members page): who invited whom, with which role,
    and what became of the link; the token's hash is not shown."""

    list_display = ["project", "role", "email", "created_by", "expires_at", "accepted_by"]
    list_filter = ["role"]
    list_select_related = ["project", "created_by", "accepted_by"]
    exclude = ["token_hash"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(AnnotatorCounter)
class AnnotatorCounterAdmin(admin.ModelAdmin):
    """View only: each person's counted work in a project (kept by the database)."""

    list_display = ["annotator", "project", "assigned_count", "submitted_count", "last_active"]
    list_select_related = ["project", "annotator"]
    search_fields = ["annotator__username", "project__name"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(LabelStudioAnnotator)
class LabelStudioAnnotatorAdmin(admin.ModelAdmin):
    """View only: which account holds each Label Studio annotator's work in a project (kept
    by the Label Studio import)."""

    list_display = ["project", "source_id", "email", "user", "invitation"]
    list_select_related = ["project", "user"]
    search_fields = ["email", "source_id", "user__username"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Sentence)
class SentenceAdmin(admin.ModelAdmin):
    """Derived from the document text: view only."""

    list_display = ["document", "index", "start", "end"]
    list_filter = ["document__project"]
    search_fields = ["document__external_id"]
    raw_id_fields = ["document"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ["document", "annotator", "project", "created_at"]
    list_filter = ["document__project"]
    search_fields = ["annotator__username", "document__external_id"]
    list_select_related = ["document__project", "annotator"]
    autocomplete_fields = ["annotator"]
    raw_id_fields = ["document"]

    @admin.display(description="project", ordering="document__project__name")
    def project(self, obj: Assignment) -> Project:
        return obj.document.project


# --- annotations --------------------------------------------------------------------------


class SpanInline(ReadOnlyInlineMixin, admin.TabularInline):
    model = Span
    fields = ["start", "end", "labels", "details", "revision", "client_id"]
    readonly_fields = fields
    show_change_link = True


@admin.register(Annotation)
class AnnotationAdmin(SimpleHistoryAdmin):
    list_display = [
        "id",
        "document",
        "annotator",
        "project",
        "status",
        "span_count",
        "revision",
        "submitted_at",
        "updated_at",
    ]
    list_filter = ["status", "document__project"]
    search_fields = ["annotator__username", "document__external_id"]
    list_select_related = ["document__project", "annotator"]
    autocomplete_fields = ["annotator"]
    raw_id_fields = ["document"]
    readonly_fields = ["revision", "created_at", "updated_at"]
    date_hierarchy = "updated_at"
    inlines = [SpanInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Annotation]:
        return super().get_queryset(request).annotate(_spans=Count("spans"))

    @admin.display(description="project", ordering="document__project__name")
    def project(self, obj: Annotation) -> Project:
        return obj.document.project

    @admin.display(description="spans", ordering="_spans")
    def span_count(self, obj: Annotation) -> int:
        return obj._spans


@admin.register(Span)
class SpanAdmin(SimpleHistoryAdmin):
    """View and delete only: edits go through the API, which validates and bumps revisions."""

    list_display = ["id", "annotation", "start", "end", "labels", "revision", "updated_at"]
    list_filter = ["annotation__document__project", "annotation__status"]
    search_fields = ["labels", "annotation__annotator__username"]
    list_select_related = ["annotation__document", "annotation__annotator"]
    raw_id_fields = ["annotation"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


# --- gold standards -----------------------------------------------------------------------


def _published(obj: Any) -> bool:
    gold = obj if isinstance(obj, GoldStandard) else getattr(obj, "gold_standard", None)
    return bool(gold is not None and gold.is_published)


class GoldInlineMixin:
    """Editable while the gold standard is a draft, view-only once published."""

    extra = 0

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return not _published(obj) and super().has_add_permission(request, obj)  # type: ignore[misc]

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return not _published(obj) and super().has_change_permission(request, obj)  # type: ignore[misc]

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return not _published(obj) and super().has_delete_permission(request, obj)  # type: ignore[misc]


class GoldDocumentInline(GoldInlineMixin, admin.TabularInline):
    model = GoldDocument
    fields = ["document", "comments"]
    raw_id_fields = ["document"]


class GoldSpanInline(GoldInlineMixin, admin.TabularInline):
    model = GoldSpan
    fields = ["document", "start", "end", "labels", "details"]
    raw_id_fields = ["document"]


class PublishedReadOnlyMixin:
    """No change or delete of a published gold version (or of its parts)."""

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return not _published(obj) and super().has_change_permission(request, obj)  # type: ignore[misc]

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return not _published(obj) and super().has_delete_permission(request, obj)  # type: ignore[misc]


class PublishedHistoryMixin(PublishedReadOnlyMixin):
    """History pages of gold rows: viewable always, no "Revert" on a published version."""

    def revert_disabled(self, request: HttpRequest, obj: Any = None) -> bool:
        return _published(obj) or super().revert_disabled(request, obj)  # type: ignore[misc]

    def history_form_view(
        self, request: HttpRequest, object_id: str, version_id: str, extra_context: Any = None
    ) -> HttpResponse:
        if request.method == "POST":
            record = self.model.history.filter(id=object_id, history_id=version_id).first()  # type: ignore[attr-defined]
            if record is not None and _published(record.instance):
                raise PermissionDenied("a published gold version cannot change")
        return super().history_form_view(request, object_id, version_id, extra_context)  # type: ignore[misc]


class GoldStandardForm(forms.ModelForm):
    """Keeps ``published_at`` in step with ``status`` (the model requires both or neither)."""

    class Meta:
        model = GoldStandard
        fields = ["project", "version", "status", "source", "note", "created_by"]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("status") == GoldStandard.Status.PUBLISHED:
            self.instance.published_at = self.instance.published_at or timezone.now()
        else:
            self.instance.published_at = None
        return data


@admin.register(GoldStandard)
class GoldStandardAdmin(PublishedReadOnlyMixin, admin.ModelAdmin):
    form = GoldStandardForm
    list_display = [
        "project",
        "version",
        "status",
        "document_count",
        "source",
        "created_by",
        "published_at",
    ]
    list_filter = ["status", "project"]
    search_fields = ["project__name", "source", "note"]
    list_select_related = ["project", "created_by"]
    autocomplete_fields = ["project", "created_by"]
    readonly_fields = ["published_at", "created_at"]
    inlines = [GoldDocumentInline, GoldSpanInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet[GoldStandard]:
        return super().get_queryset(request).annotate(_docs=Count("gold_documents"))

    @admin.display(description="documents", ordering="_docs")
    def document_count(self, obj: GoldStandard) -> int:
        return obj._docs


@admin.register(GoldDocument)
class GoldDocumentAdmin(PublishedHistoryMixin, SimpleHistoryAdmin):
    list_display = ["gold_standard", "document"]
    list_filter = ["gold_standard__project", "gold_standard__status"]
    search_fields = ["document__external_id"]
    list_select_related = ["gold_standard__project", "document"]
    raw_id_fields = ["gold_standard", "document"]


@admin.register(GoldSpan)
class GoldSpanAdmin(PublishedHistoryMixin, SimpleHistoryAdmin):
    list_display = ["id", "gold_standard", "document", "start", "end", "labels"]
    list_filter = ["gold_standard__project", "gold_standard__status"]
    search_fields = ["labels", "document__external_id"]
    list_select_related = ["gold_standard__project", "document"]
    raw_id_fields = ["gold_standard", "document"]
