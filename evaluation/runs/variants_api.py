"""REST API of prompt variants (views routed by ``evaluation.runs.urls``): every version of
the global (built-in) variants and of the projects' own copies, and saving a new version.

Roles as in ``evaluation.runs.api``: reviewers and admins see the variants of their projects
and the global ones; a project's admins save its own copies; global variants are
superusers' to edit (``evaluation.ownership``). Saving goes through
``evaluation.runs.variants``.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiParameter, extend_schema
from fallacy_platform.api.lookups import body_project_id, require, staff_project
from fallacy_platform.query import query_id
from rest_framework import generics, status
from rest_framework.exceptions import PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response

from annotations.selectors.policy import may_configure, may_configure_somewhere, may_edit_global
from evaluation import ownership
from evaluation.access import is_staff_anywhere, readable
from evaluation.models import PromptVariant
from evaluation.runs.api import CONFLICT, ERRORS, TAGS
from evaluation.runs.serializers import VariantSerializer, flatten_errors
from evaluation.runs.variants import VariantConflict, save_variant_version

CONFIGURERS = "Only a project admin may save the project's prompt variants."


@extend_schema(tags=TAGS)
class VariantListView(generics.ListCreateAPIView):
    serializer_class = VariantSerializer
    pagination_class = None

    def check_permissions(self, request: Request) -> None:
        super().check_permissions(request)
        if not is_staff_anywhere(request.user):
            raise PermissionDenied("Only reviewers and admins see prompt variants.")
        if request.method == "POST" and not may_configure_somewhere(request.user):
            raise PermissionDenied("Only a project admin may create prompt variants.")

    def get_queryset(self) -> QuerySet[PromptVariant]:
        project = query_id(self.request, "project")
        if project is not None:
            variants = ownership.variants_for(staff_project(self.request, project))
        else:
            variants = readable(PromptVariant.objects.all(), self.request.user)
        task = self.request.query_params.get("task")
        return variants.filter(task=task) if task else variants

    @extend_schema(
        summary="Prompt variants, every version (by task and name, newest version first)",
        description="The global (built-in) variants and those of the projects I review or "
        "administer; with `project`, that project's own and the global ones.",
        parameters=[
            OpenApiParameter("task", str, description="Only this task's variants (mafalda)."),
            OpenApiParameter("project", int, description="A project's own and the global ones."),
        ],
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        summary="Create a prompt variant (a new version when the name exists)",
        description="`project` names the owner: the variant is that project's own (its admins "
        "only; copying a built-in makes the project's copy, numbered one past the highest "
        "version the project sees). Without `project` the variant is global: superusers only "
        '(403 for others). "Copy and edit" a variant by posting it again.',
        responses={201: VariantSerializer, **ERRORS, **CONFLICT},
    )
    def post(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        project_id = body_project_id(request.data)
        if project_id is not None:  # roles first: 404 / 403 before a 400
            require(may_configure(request.user, staff_project(request, project_id)), CONFIGURERS)
        variant = VariantSerializer(data=request.data)
        if not variant.is_valid():
            return Response(flatten_errors(variant.errors), status=status.HTTP_400_BAD_REQUEST)
        values = dict(variant.validated_data)
        project_id = values.pop("project_id", None)
        project = None
        if project_id is not None:
            project = staff_project(request, project_id)
            require(may_configure(request.user, project), CONFIGURERS)
        elif not may_edit_global(request.user):
            raise PermissionDenied(
                "Global (built-in) variants are edited by superusers only; name your project "
                "(project) to save the project's own copy."
            )
        try:
            created = save_variant_version(values=values, project=project, created_by=request.user)
        except VariantConflict as error:
            return Response({"detail": str(error)}, status=status.HTTP_409_CONFLICT)
        return Response(VariantSerializer(created).data, status=status.HTTP_201_CREATED)


@extend_schema(tags=TAGS, summary="A prompt variant")
class VariantDetailView(generics.RetrieveAPIView):
    serializer_class = VariantSerializer

    def get_queryset(self) -> QuerySet[PromptVariant]:
        return readable(PromptVariant.objects.all(), self.request.user)

    def check_permissions(self, request: Request) -> None:
        super().check_permissions(request)
        if not is_staff_anywhere(request.user):
            raise PermissionDenied("Only reviewers and admins see prompt variants.")
