"""Admin pages of gold standards: editable while a draft, view-only once published (the
version, its documents and spans, and their history's "Revert")."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.db.models import Count, QuerySet
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from simple_history.admin import SimpleHistoryAdmin

from annotations.models import (
    GoldDocument,
    GoldSpan,
    GoldStandard,
)


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
