"""REST API of the Prolog rule files, mounted under /api/evaluation/.

Rule files belong to a project (its own copies) or are global (the built-ins;
``evaluation.ownership``).

- ``GET prolog-rules/``: every version of every type's rule file (type, newest first) that
  I may read: the global ones and those of the projects I review or administer;
  ``?project=`` that project's own and the global ones; ``?type=`` one type's versions.
- ``GET prolog-rules/<id>/``: one version with its source (404 when not readable).
- ``POST prolog-rules/`` ``{type, source, project}``: a new version of the type owned by
  ``project`` (the copy-and-edit of the browser; its admins only). Without ``project`` the
  version is global: superusers only, 403 for a project admin. Refused with 400 naming
  swipl's message and line when the file does not parse or gives any swipl error or
  warning (nothing written); 429 with ``Retry-After`` at once when the server already runs
  its bound of rule-file checks, or this user's previous one (``synthesis.checks``).
"""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError
from django.db.models import QuerySet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from fallacy_platform.api.lookups import body_project_id, require, staff_project
from fallacy_platform.api.serializers import DetailSerializer
from fallacy_platform.query import query_id
from rest_framework import generics, serializers, status
from rest_framework.exceptions import PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response

from annotations.selectors.policy import may_configure, may_configure_somewhere, may_edit_global
from evaluation import ownership
from evaluation.access import is_staff_anywhere, readable
from evaluation.models import PrologRule
from evaluation.runs.serializers import flatten_errors, owner_project_field
from evaluation.synthesis.services import RuleVersionError, save_rule_version

MAX_SOURCE = 200_000
READ_ERRORS = {
    401: OpenApiResponse(DetailSerializer, description="Not signed in."),
    403: OpenApiResponse(DetailSerializer, description="Not a reviewer or admin of a project."),
}


class PrologRuleSerializer(serializers.ModelSerializer):
    created_by = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )
    project = owner_project_field()

    class Meta:
        model = PrologRule
        fields = [
            "id", "type", "version", "source", "builtin", "project", "created_by", "created_at",
        ]  # fmt: skip
        read_only_fields = ["id", "version", "builtin", "created_by", "created_at"]
        validators: list[Any] = []  # the version is the service's to choose
        extra_kwargs = {
            "type": {"max_length": 100},
            "source": {"max_length": MAX_SOURCE, "trim_whitespace": False},
        }


CONFIGURERS = "Only a project admin may save the project's rule files."


class _Staff:
    def check_permissions(self, request: Request) -> None:
        super().check_permissions(request)  # type: ignore[misc]
        if not is_staff_anywhere(request.user):
            raise PermissionDenied("Only reviewers and admins see rule files.")


class PrologRuleListView(_Staff, generics.ListCreateAPIView):
    serializer_class = PrologRuleSerializer
    pagination_class = None

    def check_permissions(self, request: Request) -> None:
        super().check_permissions(request)
        if request.method == "POST" and not may_configure_somewhere(request.user):
            raise PermissionDenied("Only a project admin may save rule files.")

    def get_queryset(self) -> QuerySet[PrologRule]:
        rules = PrologRule.objects.select_related("created_by")
        project = query_id(self.request, "project")
        if project is not None:
            rules = ownership.in_scope(rules, staff_project(self.request, project))
        else:
            rules = readable(rules, self.request.user)
        type_name = self.request.query_params.get("type")
        return rules.filter(type__iexact=type_name) if type_name else rules

    @extend_schema(
        summary="Prolog rule files, every version (by type, newest version first)",
        parameters=[
            OpenApiParameter("type", str, description="Only this type's versions."),
            OpenApiParameter("project", int, description="A project's own and the global ones."),
        ],
        responses={200: PrologRuleSerializer(many=True), **READ_ERRORS},
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        summary="Save a new version of a type's rule file",
        description="Refused (400, swipl's message and line) when the file does not parse or "
        "swipl gives any error or warning loading it; nothing is written. `project`: the "
        "project's own version (its admins); none: a global version (superusers only).",
        request=PrologRuleSerializer,
        responses={
            201: PrologRuleSerializer,
            400: OpenApiResponse(OpenApiTypes.OBJECT, description="{field: [messages]}"),
            401: READ_ERRORS[401],
            403: OpenApiResponse(DetailSerializer, description="Not a project admin."),
            404: OpenApiResponse(DetailSerializer, description="No such project visible."),
            409: OpenApiResponse(DetailSerializer, description="Saved concurrently; retry."),
            429: OpenApiResponse(
                DetailSerializer, description="Too many rule-file checks running; Retry-After."
            ),
        },
    )
    def post(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        project_id = body_project_id(request.data)
        if project_id is not None:  # roles first: 404 / 403 before a 400
            require(may_configure(request.user, staff_project(request, project_id)), CONFIGURERS)
        rule = PrologRuleSerializer(data=request.data)
        if not rule.is_valid():
            return Response(flatten_errors(rule.errors), status=status.HTTP_400_BAD_REQUEST)
        data = rule.validated_data
        if "\x00" in data["source"] or "\x00" in data["type"]:
            return Response(
                {"source": ["NUL characters are not allowed"]}, status=status.HTTP_400_BAD_REQUEST
            )
        project = None
        if data.get("project_id") is not None:
            project = staff_project(request, data["project_id"])
            require(may_configure(request.user, project), CONFIGURERS)
        elif not may_edit_global(request.user):
            raise PermissionDenied(
                "Global (built-in) rule files are edited by superusers only; name your project "
                "(project) to save the project's own version."
            )
        try:
            created = save_rule_version(
                type_name=data["type"],
                source=data["source"],
                project=project,
                created_by=request.user,
            )
        except RuleVersionError as error:
            return Response({"source": [str(error)]}, status=status.HTTP_400_BAD_REQUEST)
        except IntegrityError:
            return Response({"detail": "another version was saved meanwhile; retry"}, status=409)
        return Response(PrologRuleSerializer(created).data, status=status.HTTP_201_CREATED)


class PrologRuleDetailView(_Staff, generics.RetrieveAPIView):
    serializer_class = PrologRuleSerializer

    def get_queryset(self) -> QuerySet[PrologRule]:
        rules = PrologRule.objects.select_related("created_by")
        return readable(rules, self.request.user)

    @extend_schema(
        summary="One version of a rule file",
        responses={
            200: PrologRuleSerializer,
            **READ_ERRORS,
            404: OpenApiResponse(DetailSerializer, description="No such version."),
        },
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)
