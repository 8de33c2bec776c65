"""Admin pages of documents (added and changed through ``services.documents``), their
sentences (view only) and import jobs (view only)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.http import HttpRequest

from annotations.admin.shared import ReadOnlyInlineMixin, preview_text
from annotations.models import (
    Document,
    GoldDocument,
    GoldStandard,
    ImportJob,
    ImportUpload,
    Sentence,
)
from annotations.services.documents import (
    add_document,
    check_text,
    check_text_can_change,
    update_document,
)


class SentenceInline(ReadOnlyInlineMixin, admin.TabularInline):
    model = Sentence
    fields = ["index", "start", "end", "text"]
    readonly_fields = fields

    @admin.display(description="text")
    def text(self, obj: Sentence) -> str:
        return preview_text(obj.document.text[obj.start : obj.end])


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
        return preview_text(obj.text)

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
