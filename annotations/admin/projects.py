"""Admin pages of projects and the people in them: memberships, invitations, counted work
and Label Studio annotators (the last three view only)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import Count, QuerySet
from django.http import HttpRequest

from annotations.models import (
    AnnotatorCounter,
    Invitation,
    LabelStudioAnnotator,
    Membership,
    Project,
)


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
