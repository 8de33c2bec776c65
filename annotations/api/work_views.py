"""Thin REST views for running a project: assignment, the document list, progress, and a
document's annotations.

Visibility: outside the user's projects everything is a 404 (``projects_for``); assignment
writes need the project's admin role (superusers count as admin), other members get a 403.
Nothing here creates an annotation: opening a document reads only.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError as DjangoValidationError
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from fallacy_platform.api.lookups import member_project
from fallacy_platform.api.mixins import ServiceErrorsMixin, conflict
from fallacy_platform.api.pagination import StrictLimitOffsetPagination
from rest_framework import generics
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotations.api.work_serializers import (
    AssignRequestSerializer,
    AssignResultSerializer,
    DocumentAnnotationSerializer,
    DocumentListQuerySerializer,
    DocumentOpenedSerializer,
    DocumentRowSerializer,
    ProjectProgressSerializer,
    ReassignRequestSerializer,
    ReassignResultSerializer,
    UnassignRequestSerializer,
    UnassignResultSerializer,
    WorkInProgressSerializer,
    document_query,
)
from annotations.models import Project
from annotations.selectors.access import (
    documents_for,
    is_staff_role,
    listed_annotations,
    rules,
    users_named_in,
)
from annotations.selectors.annotations import annotation_with_spans
from annotations.selectors.document_page import DocumentRow, document_page
from annotations.selectors.documents import (
    DocumentQuery,
    default_ordering,
    document_list,
    project_progress,
)
from annotations.selectors.opening import document_opened, project_with_role
from annotations.selectors.policy import may_assign
from annotations.services import assignments as services


class WorkErrorsMixin(ServiceErrorsMixin):
    """ServiceErrorsMixin, plus: work in progress on the documents -> 409 with their ids."""

    def handle_exception(self, exc: Exception) -> Response:
        if isinstance(exc, services.WorkInProgress):
            return conflict(exc, documents=exc.documents)
        return super().handle_exception(exc)


def _project_and_role(request: Request, pk: int) -> tuple[Project, str | None]:
    """The project (404 outside ``access.projects_for``) and the role the user acts with in
    it, in one query."""
    user = request.user
    if not user.is_authenticated:
        raise NotFound()
    project = project_with_role(user, pk)
    if project is None or not project.visible:
        raise NotFound()
    return project, project.role


def _admin_project(request: Request, pk: int) -> Project:
    return member_project(request, pk, may_assign, "only the project's admins assign documents")


def _users(
    request: Request, project: Project, ids: list[int], field_name: str
) -> list[AbstractBaseUser]:
    """Users for ids, in the given order, among those the user may name in the project
    (``access.users_named_in``); any other id, existing or not, is the same 400."""
    ids = list(dict.fromkeys(ids))
    found = users_named_in(request.user, project).in_bulk(ids)
    missing = [i for i in ids if i not in found]
    if missing:
        raise DjangoValidationError(
            {field_name: [f"no user with id {i} in this project" for i in missing]}
        )
    return [found[i] for i in ids]


# --- assignment -----------------------------------------------------------------------------


class AssignView(WorkErrorsMixin, APIView):
    @extend_schema(
        tags=["assignment"],
        summary="Give each chosen document to N of the chosen annotators (balanced)",
        description="Project admins. Tops each document of the selection (all, unassigned, a "
        "seeded random sample, the selected ids, or every document matching the document "
        "list's filters, selected by the server in the same transaction) up to per_document "
        "assignments among the chosen annotators, least-loaded first, never twice the same "
        "one; running it again changes nothing. 400 naming anyone who is not an annotator "
        "of the project (nothing written).",
        request=AssignRequestSerializer,
        responses={200: AssignResultSerializer, 400: OpenApiResponse()},
    )
    def post(self, request: Request, pk: int) -> Response:
        project = _admin_project(request, pk)
        data = AssignRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        body = data.validated_data
        choice: services.DocumentChoice = body["documents"]
        if choice == "sample":
            choice = services.Sample(size=body["sample_size"], seed=body.get("seed"))
        elif choice == "selected":
            choice = body["document_ids"]
        elif choice == "matching":
            choice = services.Matching(document_query(body.get("filters") or {}, staff=True))
        report = services.assign_to_annotators(
            project=project,
            annotators=_users(request, project, body["annotators"], "annotators"),
            per_document=body["per_document"],
            documents=choice,
            seed=body.get("seed"),
        )
        return Response(report.as_dict())


class UnassignView(WorkErrorsMixin, APIView):
    @extend_schema(
        tags=["assignment"],
        summary="Take documents out of an annotator's queue",
        description="Project admins. 409 listing the documents the annotator has an annotation "
        "on (nothing removed) unless force is true; annotations always stay.",
        request=UnassignRequestSerializer,
        responses={200: UnassignResultSerializer, 409: WorkInProgressSerializer},
    )
    def post(self, request: Request, pk: int) -> Response:
        project = _admin_project(request, pk)
        data = UnassignRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        body = data.validated_data
        (annotator,) = _users(request, project, [body["annotator"]], "annotator")
        removed = services.unassign(
            project=project,
            annotator=annotator,
            documents=body["document_ids"],
            force=body["force"],
        )
        return Response({"removed": removed})


class ReassignView(WorkErrorsMixin, APIView):
    @extend_schema(
        tags=["assignment"],
        summary="Move documents from one annotator's queue to another's",
        description="Project admins. 409 listing the documents from_annotator has an annotation "
        "on (nothing moved) unless force is true; annotations always stay.",
        request=ReassignRequestSerializer,
        responses={200: ReassignResultSerializer, 409: WorkInProgressSerializer},
    )
    def post(self, request: Request, pk: int) -> Response:
        project = _admin_project(request, pk)
        data = ReassignRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        body = data.validated_data
        (source,) = _users(request, project, [body["from_annotator"]], "from_annotator")
        (target,) = _users(request, project, [body["to_annotator"]], "to_annotator")
        moved = services.reassign(
            project=project,
            documents=body["document_ids"],
            from_annotator=source,
            to_annotator=target,
            force=body["force"],
        )
        return Response({"moved": moved})


# --- the document list, progress ------------------------------------------------------------


class DocumentPagination(StrictLimitOffsetPagination):  # ?limit=abc: 400
    default_limit = 25
    max_limit = 100


def _unfiltered_count(project: Project, query: DocumentQuery, *, staff: bool) -> int | None:
    """The list's size without a search or filter, from the counters the database keeps
    (no COUNT over the project's documents); None when the query filters."""
    if query.q or query.status or query.annotator is not None or query.fewer_than is not None:
        return None
    if staff or rules().annotators_see_unassigned_documents:
        return project.document_count
    return project.my_assigned  # an annotator member: their assignments (None: no member)


@extend_schema(
    tags=["projects"],
    summary="The project's documents: paginated, searchable, filterable, sortable",
    description="Annotators: their assigned documents; status is their own (todo, "
    "in_progress, submitted) and the per-annotator fields are omitted. Reviewers/admins: "
    "every document with its project-level status (done = at least annotators_per_document "
    "submitted annotations), counts and annotators.",
    parameters=[DocumentListQuerySerializer],
)
class ProjectDocumentListView(ServiceErrorsMixin, generics.ListAPIView):
    serializer_class = DocumentRowSerializer
    pagination_class = DocumentPagination

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        project, role = _project_and_role(request, kwargs["pk"])
        staff = is_staff_role(role)
        params = DocumentListQuerySerializer(data=request.query_params, context={"staff": staff})
        params.is_valid(raise_exception=True)
        p = params.validated_data
        default = default_ordering(project, staff=staff)
        query = document_query(p, staff=staff, default_ordering=default)
        known = _unfiltered_count(project, query, staff=staff)

        def fetch(offset: int, limit: int) -> tuple[list[DocumentRow], int]:
            if known is not None:
                count = known
            else:
                count = document_list(request.user, project, query, staff=staff).order_by().count()
            if count == 0 or offset > count:
                return [], count
            rows = document_page(
                request.user, project, query, staff=staff, offset=offset, limit=limit
            )
            return rows, count

        rows = self.paginator.paginate_rows(request, fetch)
        return self.get_paginated_response(DocumentRowSerializer(rows, many=True).data)


class ProjectProgressView(APIView):
    @extend_schema(
        tags=["projects"],
        summary="Progress: totals and the per-annotator table",
        description="Reviewers/admins: the project's totals and a row per annotator. "
        "Annotators: their own queue and their own row.",
        responses={200: ProjectProgressSerializer},
    )
    def get(self, request: Request, pk: int) -> Response:
        project, role = _project_and_role(request, pk)
        progress = project_progress(request.user, project, role)
        return Response(ProjectProgressSerializer(progress).data)


class DocumentAnnotationsView(APIView):
    @extend_schema(
        tags=["annotations"],
        summary="The annotations of a document, with their spans",
        description="Reviewers/admins: every annotator's; annotators: only their own (0 or 1).",
        responses={200: DocumentAnnotationSerializer(many=True)},
    )
    def get(self, request: Request, pk: int) -> Response:
        document = get_object_or_404(documents_for(request.user), pk=pk)
        annotations = annotation_with_spans(
            listed_annotations(request.user, document)
        ).select_related("annotator")
        annotations = annotations.order_by("annotator__username", "id")
        return Response(DocumentAnnotationSerializer(annotations, many=True).data)


class DocumentOpenView(APIView):
    @extend_schema(
        tags=["documents"],
        summary="Open a document: its text, sentences and the annotations I may read",
        description="One call for the annotation page: the document as GET /documents/ID/ "
        "gives it, plus annotations as GET /documents/ID/annotations/ (reviewers/admins: "
        "every annotator's; annotators: only their own, 0 or 1). Reads only: opening a "
        "document creates nothing.",
        responses={200: DocumentOpenedSerializer, 404: OpenApiResponse()},
    )
    def get(self, request: Request, pk: int) -> Response:
        opened = document_opened(request.user, pk)
        if opened is None:
            raise NotFound()
        return Response(opened)
