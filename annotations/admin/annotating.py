"""Admin pages of assignments, annotations and spans (spans view and delete only)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import Count, QuerySet
from django.http import HttpRequest
from simple_history.admin import SimpleHistoryAdmin

from annotations.admin.shared import ReadOnlyInlineMixin
from annotations.models import (
    Annotation,
    Assignment,
    Project,
    Span,
)


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
