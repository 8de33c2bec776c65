"""Admin pages of Prolog-checked generation (imported by ``evaluation.admin``): rule
versions and jobs are read here, never edited (a new rule version goes through the API's
service, which checks it with swipl)."""

from django.contrib import admin
from django.http import HttpRequest

from evaluation.models import GeneratedItem, GenerationJob, GenerationRelease, PrologRule


class _ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(PrologRule)
class PrologRuleAdmin(_ReadOnly):
    list_display = ["type", "version", "builtin", "created_by", "created_at"]
    list_filter = ["builtin"]
    search_fields = ["type", "source"]


@admin.register(GenerationJob)
class GenerationJobAdmin(_ReadOnly):
    list_display = ["id", "project", "rule", "method", "model_name", "status", "items_kept"]
    list_filter = ["status", "method"]
    raw_id_fields = ["project", "rule", "judge_variant", "created_by"]


@admin.register(GeneratedItem)
class GeneratedItemAdmin(_ReadOnly):
    list_display = ["job", "position", "document", "review"]
    list_filter = ["review"]
    raw_id_fields = ["job", "document", "reviewed_by"]


@admin.register(GenerationRelease)
class GenerationReleaseAdmin(_ReadOnly):
    list_display = ["project", "version", "gold_project", "items", "created_by", "created_at"]
    raw_id_fields = ["project", "gold_project", "created_by"]
