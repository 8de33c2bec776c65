"""Thin REST views for setting a project up: projects, taxonomies, members, users (imports
are in ``import_views``).

Visibility as everywhere (``selectors.access``): a project outside the user's projects is a
404; a member without the needed role gets a 403 (admins write; reviewers also read the
members). Writes go through ``services.projects`` and ``services.taxonomy``; their
``ValidationError``s become 400 bodies naming the field.
"""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from fallacy_platform.api.lookups import member_project
from fallacy_platform.api.mixins import ServiceErrorsMixin
from fallacy_platform.inputs import StrictJSONParser
from fallacy_platform.query import query_flag
from rest_framework import generics, status
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotations.api.admin_serializers import (
    MemberCreateSerializer,
    MemberPatchSerializer,
    MemberSerializer,
    MemberSuggestionQuerySerializer,
    MemberSuggestionsSerializer,
    ProjectCreateSerializer,
    ProjectPatchSerializer,
    TaxonomyListSerializer,
    TaxonomySummarySerializer,
    TaxonomyUploadSerializer,
    UserCreateSerializer,
    UserSerializer,
)
from annotations.api.serializers import ProjectDetailSerializer, ProjectListSerializer
from annotations.form_presets import FORM_PRESETS, form_preset, get_form_preset
from annotations.models import Membership, Project, Taxonomy
from annotations.selectors.access import users_named_in
from annotations.selectors.annotations import progress_for
from annotations.selectors.policy import (
    may_change_project,
    may_create_projects,
    may_create_users,
    may_manage_members,
    may_manage_taxonomies,
    may_read_members,
)
from annotations.selectors.project_page import project_page
from annotations.selectors.projects import (
    member_suggestions,
    members_with_counts,
    preset_rows,
    taxonomy_rows,
)
from annotations.services import projects
from annotations.services.taxonomy import (
    TaxonomyExistsError,
    install_preset,
    install_preset_reporting,
    load_taxonomy_upload,
)
from annotations.taxonomy_files import TaxonomyFileError

CHANGERS = "only the project's admins change its settings"
MEMBER_READERS = "only the project's reviewers and admins see its members"
MEMBER_MANAGERS = "only the project's admins manage its members"


def _taxonomy(pk: int) -> Taxonomy:
    taxonomy = Taxonomy.objects.filter(pk=pk).first()
    if taxonomy is None:
        raise ValidationError({"taxonomy": [f"no taxonomy with id {pk}"]})
    return taxonomy


def _detail(request: Request, project: Project) -> dict[str, Any]:
    context = {"progress": progress_for(request.user, [project]), "request": request}
    data = dict(ProjectDetailSerializer(project, context=context).data)
    data.setdefault("kind", project.kind)
    data.setdefault("form", project.form)
    return data


def _form_fields(fields: dict[str, Any]) -> dict[str, Any]:
    """``form_preset`` -> the preset's form (and kind items, and its taxonomy when none)."""
    name = fields.pop("form_preset", None)
    if name is None:
        return fields
    preset = get_form_preset(name)
    fields["form"] = form_preset(name)
    fields.setdefault("kind", "items")
    if "taxonomy" not in fields:
        fields["taxonomy_preset"] = preset.taxonomy
    return fields


def _form_preset_rows() -> list[dict[str, Any]]:
    return [
        {
            "name": preset.name,
            "title": preset.title,
            "taxonomy": preset.taxonomy,
            "format": preset.format,
            "form": form_preset(preset.name),
        }
        for preset in FORM_PRESETS.values()
    ]


# --- projects -----------------------------------------------------------------------------


@extend_schema(tags=["projects"])
class ProjectListView(ServiceErrorsMixin, generics.ListAPIView):
    serializer_class = ProjectListSerializer

    @extend_schema(
        summary="My projects, with my role and progress",
        description="Active projects by default; ?archived=1 lists only the archived ones.",
        parameters=[
            OpenApiParameter(
                "archived", str, enum=["1", "0", "true", "false"], description="Only archived."
            )
        ],
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return self.list(request, *args, **kwargs)

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        # the rows as ProjectListSerializer gives them, in one statement (selectors.project_page)
        archived = query_flag(request, "archived")  # 400 unless true/false/1/0
        rows = self.paginator.paginate_rows(
            request,
            lambda offset, limit: project_page(
                request.user, archived=archived, offset=offset, limit=limit
            ),
        )
        return self.get_paginated_response(rows)

    @extend_schema(
        summary="Create a project (I become its admin)",
        description="Superusers and Django staff users only (me.can_create_projects).",
        request=ProjectCreateSerializer,
        responses={201: ProjectDetailSerializer, 400: OpenApiResponse(), 403: OpenApiResponse()},
    )
    def post(self, request: Request) -> Response:
        if not may_create_projects(request.user):
            raise PermissionDenied("only superusers and staff users create projects")
        data = ProjectCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = _form_fields(dict(data.validated_data))
        preset_taxonomy = fields.pop("taxonomy_preset", None)
        if preset_taxonomy is not None:
            taxonomy = install_preset(name=preset_taxonomy)
        else:
            taxonomy = _taxonomy(fields.pop("taxonomy"))
        project = projects.create_project(**fields, taxonomy=taxonomy, created_by=request.user)
        return Response(_detail(request, project), status=status.HTTP_201_CREATED)


class ProjectDetailView(ServiceErrorsMixin, APIView):
    @extend_schema(
        tags=["projects"],
        summary="A project with its guidelines and taxonomy tree",
        responses={200: ProjectDetailSerializer},
    )
    def get(self, request: Request, pk: int) -> Response:
        return Response(_detail(request, member_project(request, pk)))

    @extend_schema(
        tags=["projects"],
        summary="Change a project's settings, archive or unarchive it (project admins)",
        request=ProjectPatchSerializer,
        responses={200: ProjectDetailSerializer, 400: OpenApiResponse(), 403: OpenApiResponse()},
    )
    def patch(self, request: Request, pk: int) -> Response:
        project = member_project(request, pk, may_change_project, CHANGERS)
        data = ProjectPatchSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        changes = dict(data.validated_data)
        if "form_preset" in changes:
            changes["form"] = form_preset(changes.pop("form_preset"))
        if "taxonomy" in changes:
            changes["taxonomy"] = _taxonomy(changes["taxonomy"])
        project = projects.update_project(project=project, **changes)
        project.refresh_from_db(fields=Project.COUNTERS)  # the database may have moved them
        return Response(_detail(request, project))


# --- taxonomies ---------------------------------------------------------------------------


class TaxonomyListView(ServiceErrorsMixin, APIView):
    parser_classes = [MultiPartParser, FormParser, StrictJSONParser]

    def _check(self, request: Request) -> None:
        if not may_manage_taxonomies(request.user):
            raise PermissionDenied("only project creators and project admins manage taxonomies")

    @extend_schema(
        tags=["taxonomies"],
        summary="Installed taxonomies and the built-in presets",
        responses={200: TaxonomyListSerializer},
    )
    def get(self, request: Request) -> Response:
        self._check(request)
        return Response(
            {
                "taxonomies": taxonomy_rows(),
                "presets": preset_rows(),
                "form_presets": _form_preset_rows(),
            }
        )

    @extend_schema(
        tags=["taxonomies"],
        summary="Upload a taxonomy file (YAML/JSON) or install a preset",
        description="201 when created; 200 when that name and version is installed already "
        'with the same content. 400 {"file": ["<place>: <message>", ...]}: the problems '
        "manage.py load_taxonomy reports; nothing is created.",
        request={
            "multipart/form-data": TaxonomyUploadSerializer,
            "application/json": TaxonomyUploadSerializer,
        },
        responses={201: TaxonomySummarySerializer, 200: TaxonomySummarySerializer},
    )
    def post(self, request: Request) -> Response:
        self._check(request)
        data = TaxonomyUploadSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            if "preset" in data.validated_data:
                taxonomy, created = install_preset_reporting(name=data.validated_data["preset"])
            else:
                upload = data.validated_data["file"]
                taxonomy, created = load_taxonomy_upload(
                    content=upload.read(), file_name=upload.name
                )
        except LookupError as error:
            raise ValidationError({"preset": [str(error)]}) from error
        except TaxonomyFileError as error:
            problems = [f"{place}: {text}" if place else text for place, text in error.problems]
            raise ValidationError({"file": problems}) from error
        except TaxonomyExistsError as error:
            raise ValidationError({"file": [str(error)]}) from error
        row = next(row for row in taxonomy_rows() if row["id"] == taxonomy.pk)
        return Response(row, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


# --- members and users --------------------------------------------------------------------


def _member(project: Project, membership_id: int) -> Membership:
    return members_with_counts(project).get(pk=membership_id)


class MemberListView(ServiceErrorsMixin, APIView):
    @extend_schema(
        tags=["members"],
        summary="The project's members with their assignments and annotations (staff)",
        responses={200: MemberSerializer(many=True)},
    )
    def get(self, request: Request, pk: int) -> Response:
        project = member_project(request, pk, may_read_members, MEMBER_READERS)
        members = MemberSerializer(
            members_with_counts(project), many=True, context={"request": request}
        )
        return Response(members.data)

    @extend_schema(
        tags=["members"],
        summary="Add a user by username or e-mail with a role (project admins)",
        description="201 with the new membership; 200 with the changed one when the user "
        "already is a member. Only accounts I already share a project with (as the "
        "suggestions); any other name is a 400 worded as for a missing account: invite "
        "them instead (POST /api/projects/ID/invitations/).",
        request=MemberCreateSerializer,
        responses={201: MemberSerializer, 200: MemberSerializer, 400: OpenApiResponse()},
    )
    def post(self, request: Request, pk: int) -> Response:
        project = member_project(request, pk, may_manage_members, MEMBER_MANAGERS)
        data = MemberCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = projects.find_user(
            data.validated_data["user"], among=users_named_in(request.user, project)
        )
        existed = Membership.objects.filter(project=project, user=user).exists()
        membership = projects.add_member(
            project=project, user=user, role=data.validated_data["role"]
        )
        return Response(
            MemberSerializer(_member(project, membership.pk), context={"request": request}).data,
            status=status.HTTP_200_OK if existed else status.HTTP_201_CREATED,
        )


class MemberSuggestionsView(APIView):
    @extend_schema(
        tags=["members"],
        summary="Usernames to add as one types (project admins)",
        description="Accounts whose username starts with q (case-insensitive) among those I "
        "already see: the members of the projects I review or administer (a superuser: "
        "every active account); never e-mails, never the instance's other users.",
        parameters=[MemberSuggestionQuerySerializer],
        responses={200: MemberSuggestionsSerializer, 400: OpenApiResponse()},
    )
    def get(self, request: Request, pk: int) -> Response:
        project = member_project(request, pk, may_manage_members, MEMBER_MANAGERS)
        query = MemberSuggestionQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        usernames = member_suggestions(request.user, project, query.validated_data["q"])
        return Response({"usernames": usernames})


class MemberDetailView(ServiceErrorsMixin, APIView):
    @extend_schema(
        tags=["members"],
        summary="Change a member's role (project admins; the last admin stays admin)",
        request=MemberPatchSerializer,
        responses={200: MemberSerializer, 400: OpenApiResponse()},
    )
    def patch(self, request: Request, pk: int, membership_id: int) -> Response:
        project = member_project(request, pk, may_manage_members, MEMBER_MANAGERS)
        membership = get_object_or_404(Membership, project=project, pk=membership_id)
        data = MemberPatchSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        projects.change_role(membership=membership, role=data.validated_data["role"])
        member = _member(project, membership.pk)
        return Response(MemberSerializer(member, context={"request": request}).data)

    @extend_schema(
        tags=["members"],
        summary="Remove a member (project admins)",
        description="Their annotations stay, attributed to them; their assignments without "
        "an annotation are removed. Removing the project's last admin is refused (400).",
        responses={204: None, 400: OpenApiResponse()},
    )
    def delete(self, request: Request, pk: int, membership_id: int) -> Response:
        project = member_project(request, pk, may_manage_members, MEMBER_MANAGERS)
        membership = get_object_or_404(Membership, project=project, pk=membership_id)
        projects.remove_member(membership=membership)
        return Response(status=status.HTTP_204_NO_CONTENT)


class UserCreateView(ServiceErrorsMixin, APIView):
    @extend_schema(
        tags=["users"],
        summary="Create a user account (superusers only)",
        request=UserCreateSerializer,
        responses={201: UserSerializer, 400: OpenApiResponse(), 403: OpenApiResponse()},
    )
    def post(self, request: Request) -> Response:
        if not may_create_users(request.user):
            raise PermissionDenied("only superusers create accounts")
        data = UserCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = projects.create_user(**data.validated_data)
        return Response(
            {"id": user.pk, "username": user.get_username(), "email": user.email},
            status=status.HTTP_201_CREATED,
        )
