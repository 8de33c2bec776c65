"""Django admin for stored model runs and their raw outputs."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Count, QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html

from evaluation.models import ModelRun, RunOutput


@admin.register(ModelRun)
class ModelRunAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "project",
        "model_name",
        "backend",
        "task",
        "status",
        "outputs_link",
        "created_at",
        "finished_at",
    ]
    list_filter = ["status", "backend", "task", "project"]
    search_fields = ["name", "model_name", "project__name"]
    list_select_related = ["project"]
    autocomplete_fields = ["project", "created_by"]
    raw_id_fields = ["gold_standard"]
    readonly_fields = ["created_at"]
    date_hierarchy = "created_at"

    def get_queryset(self, request: HttpRequest) -> QuerySet[ModelRun]:
        return super().get_queryset(request).annotate(_outputs=Count("outputs"))

    @admin.display(description="outputs", ordering="_outputs")
    def outputs_link(self, obj: ModelRun) -> str:
        url = reverse("admin:evaluation_runoutput_changelist") + f"?run__id__exact={obj.pk}"
        return format_html('<a href="{}">{}</a>', url, obj._outputs)


@admin.register(RunOutput)
class RunOutputAdmin(admin.ModelAdmin):
    list_display = ["run", "document", "unit_index", "unit_preview", "output_preview"]
    list_filter = ["run__project", "run"]
    search_fields = ["run__name", "document__external_id", "unit_text", "raw_output"]
    list_select_related = ["run", "document"]
    raw_id_fields = ["run", "document"]

    @admin.display(description="unit")
    def unit_preview(self, obj: RunOutput) -> str:
        return obj.unit_text[:60]

    @admin.display(description="output")
    def output_preview(self, obj: RunOutput) -> str:
        return obj.raw_output[:60]
