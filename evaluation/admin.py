"""Django admin for stored model runs and their raw outputs."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Count, QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html

from evaluation.models import (
    AgreementResult,
    DocumentDisagreement,
    GenerationCache,
    ModelRun,
    PromptVariant,
    RunOutput,
    RunScore,
    RunShard,
    StoredBoard,
    Suggestion,
    SuggestionDecision,
    SuggestionSettings,
    SuggestionShown,
)


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
    readonly_fields = ["created_at", "started_at", "environment"]
    raw_id_fields = ["gold_standard", "prompt_variant"]
    date_hierarchy = "created_at"
    inlines = []

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


class RunShardInline(admin.TabularInline):
    model = RunShard
    extra = 0
    readonly_fields = ["index", "status", "runner_pid", "worker", "attempts", "error"]


ModelRunAdmin.inlines = [RunShardInline]


@admin.register(PromptVariant)
class PromptVariantAdmin(admin.ModelAdmin):
    list_display = [
        "task", "name", "version", "project", "kind", "parser", "shots", "builtin", "created_at",
    ]  # fmt: skip
    list_filter = ["task", "kind", "parser", "builtin", "project"]
    search_fields = ["name", "template", "description"]
    raw_id_fields = ["created_by", "project"]


@admin.register(RunShard)
class RunShardAdmin(admin.ModelAdmin):
    list_display = ["run", "index", "status", "attempts", "worker", "started_at", "finished_at"]
    list_filter = ["status"]
    search_fields = ["run__name", "worker", "error"]
    raw_id_fields = ["run"]


@admin.register(GenerationCache)
class GenerationCacheAdmin(admin.ModelAdmin):
    list_display = ["key", "backend", "model_name", "seconds", "created_at"]
    list_filter = ["backend"]
    search_fields = ["key", "model_name", "output"]
    raw_id_fields = ["run"]


@admin.register(RunScore)
class RunScoreAdmin(admin.ModelAdmin):
    list_display = ["run", "gold_standard", "profile", "parser", "computed_at"]
    list_filter = ["profile"]
    search_fields = ["run__name"]
    raw_id_fields = ["run", "gold_standard"]


@admin.register(AgreementResult)
class AgreementResultAdmin(admin.ModelAdmin):
    """Cached agreement figures: computed by a task, never edited by hand."""

    list_display = ["project", "key", "status", "gold_standard", "created_at", "finished_at"]
    list_filter = ["status"]
    readonly_fields = [f.name for f in AgreementResult._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(StoredBoard)
class StoredBoardAdmin(admin.ModelAdmin):
    """Stored result boards: written by reads of the boards, never edited by hand (deleting
    one only makes the next read compute it again)."""

    list_display = ["kind", "scope", "project", "query_text", "seconds", "computed_at"]
    list_filter = ["kind"]
    readonly_fields = [f.name for f in StoredBoard._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(SuggestionSettings)
class SuggestionSettingsAdmin(admin.ModelAdmin):
    list_display = ["project", "assisted", "ordering", "updated_at"]
    list_filter = ["assisted", "ordering"]
    search_fields = ["project__name"]
    raw_id_fields = ["project", "runs"]


@admin.register(DocumentDisagreement)
class DocumentDisagreementAdmin(admin.ModelAdmin):
    """Per-document disagreement of the suggesting runs (computed, read only)."""

    list_display = ["document", "score", "runs", "computed_at"]
    search_fields = ["document__external_id", "document__name"]
    readonly_fields = [f.name for f in DocumentDisagreement._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(SuggestionShown)
class SuggestionShownAdmin(admin.ModelAdmin):
    """When suggestions of a document were first served to an annotator (read only)."""

    list_display = ["document", "annotator", "shown_at"]
    search_fields = ["annotator__username", "document__external_id"]
    readonly_fields = [f.name for f in SuggestionShown._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(Suggestion)
class SuggestionAdmin(admin.ModelAdmin):
    """A run's labels offered to annotators (made by ``create_suggestions``, not by hand)."""

    list_display = ["run", "document", "unit_index", "labels", "created_at"]
    list_filter = ["run__project", "run"]
    search_fields = ["run__name", "document__external_id"]
    list_select_related = ["run", "document"]
    raw_id_fields = ["run", "document", "created_by"]


@admin.register(SuggestionDecision)
class SuggestionDecisionAdmin(admin.ModelAdmin):
    """Annotators' decisions, read only: an accept made a span through the span service."""

    list_display = ["suggestion", "annotator", "decision", "decided_at", "span_id"]
    list_filter = ["decision"]
    search_fields = ["annotator__username", "suggestion__run__name"]
    readonly_fields = [f.name for f in SuggestionDecision._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


import evaluation.synthesis.admin  # noqa: E402,F401 - Prolog generation pages
