"""Admin pages of taxonomies and their nodes."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Count, QuerySet
from django.http import HttpRequest

from annotations.models import (
    Taxonomy,
    TaxonomyNode,
)


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
