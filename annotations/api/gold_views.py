"""REST API of review: adjudication, gold versions and a document's history (thin views).

Reviewers and admins of the project only (superusers everywhere): anyone else gets 404, so
neither the annotators' work nor any gold standard exists for annotators before review.
The work is in ``annotations.services.gold`` (writes), ``annotations.selectors.gold`` and
``annotations.selectors.document_history``.
"""

from __future__ import annotations

import io

from django.core.exceptions import ValidationError
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from fallacy_platform.api.lookups import project_where, staff_document, staff_project
from fallacy_platform.api.serializers import CODE_POINTS
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.exceptions import ValidationError as DRFValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotations.models import GoldStandard, Project
from annotations.selectors import gold as gold_selectors
from annotations.selectors.document_history import document_history
from annotations.selectors.policy import may_export_gold
from annotations.services import gold as gold_services
from annotations.services.exports import export_mafalda

OBJECT = OpenApiResponse(OpenApiTypes.OBJECT)
NOT_FOUND = OpenApiResponse(description="Not visible to you (annotators, other projects).")


def _version(project: Project, number: int) -> GoldStandard:
    gold = (
        project.gold_standards.filter(version=number)
        .select_related("published_by", "created_by", "based_on")
        .first()
    )
    if gold is None:
        raise NotFound(f"Project {project.name!r} has no gold version {number}.")
    return gold


class GoldSaveSerializer(serializers.Serializer):
    revision = serializers.IntegerField(min_value=0, help_text="The revision you loaded (0: new).")
    spans = serializers.ListField(
        child=serializers.DictField(),
        allow_empty=True,
        help_text=f"Gold spans {{start, end, labels, details, proposed_by}}; start and end "
        f"{CODE_POINTS}.",
    )
    comments = serializers.ListField(required=False)


class PublishSerializer(serializers.Serializer):
    note = serializers.CharField(allow_blank=False, max_length=5000)


class GoldVersionsView(APIView):
    @extend_schema(
        tags=["review"],
        summary="The project's gold draft and published versions",
        operation_id="projects_gold_versions",
        responses={200: OBJECT, 404: NOT_FOUND},
    )
    def get(self, request: Request, pk: int) -> Response:
        return Response(gold_selectors.gold_overview(staff_project(request, pk)))


class PublishView(APIView):
    @extend_schema(
        tags=["review"],
        summary="Publish the draft as the next immutable version",
        request=PublishSerializer,
        responses={201: OBJECT, 400: OBJECT, 404: NOT_FOUND},
    )
    def post(self, request: Request, pk: int) -> Response:
        project = staff_project(request, pk)
        body = PublishSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            gold = gold_services.publish_draft(
                project=project, note=body.validated_data["note"], by=request.user
            )
        except gold_services.NothingToPublish as error:
            raise DRFValidationError({"detail": str(error)}) from error
        return Response(gold_selectors.version_detail(gold), status=status.HTTP_201_CREATED)


class GoldVersionView(APIView):
    @extend_schema(
        tags=["review"],
        summary="A gold version with its diff against the previous one",
        operation_id="projects_gold_version_retrieve",
        responses={200: OBJECT, 404: NOT_FOUND},
    )
    def get(self, request: Request, pk: int, version: int) -> Response:
        project = staff_project(request, pk)
        return Response(gold_selectors.version_detail(_version(project, version)))


class GoldExportView(APIView):
    @extend_schema(
        tags=["review"],
        summary="A published version as MAFALDA JSON Lines",
        responses={(200, "application/jsonl"): OpenApiTypes.STR, 404: NOT_FOUND},
    )
    def get(self, request: Request, pk: int, version: int) -> HttpResponse:
        project = project_where(request, pk, may_export_gold)
        gold = _version(project, version)
        if not gold.is_published:
            raise NotFound(f"Gold version {version} is a draft: publish it to export it.")
        out = io.StringIO()
        export_mafalda(project=project, gold_standard=gold, out=out)
        response = HttpResponse(out.getvalue(), content_type="application/jsonl; charset=utf-8")
        name = f"{project.name}-gold-v{gold.version}.jsonl".replace(" ", "_").replace('"', "")
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        return response


class AdjudicationQueueView(APIView):
    @extend_schema(
        tags=["review"],
        summary="Documents to adjudicate: undecided first, highest disagreement first",
        description=(
            "Undecided documents first (highest disagreement, then the longest text), decided "
            "ones (adjudicated: true) last; undecided: how many are left. "
            "sort_key: the share of the document's sentences whose annotators gave different "
            "label sets (types), 0 to 1; null until compared or with one annotator."
        ),
        responses={200: OBJECT, 404: NOT_FOUND},
    )
    def get(self, request: Request, pk: int) -> Response:
        project = staff_project(request, pk)

        def number(name: str, default: int, top: int) -> int:
            raw = request.query_params.get(name, str(default))
            if not raw.isdigit() or not 1 <= int(raw) <= top:
                raise DRFValidationError({name: [f"must be a number from 1 to {top}"]})
            return int(raw)

        return Response(
            gold_selectors.adjudication_queue(
                project, page=number("page", 1, 10**6), page_size=number("page_size", 50, 200)
            )
        )


class DocumentAdjudicationView(APIView):
    @extend_schema(
        tags=["review"],
        summary="Annotators' spans side by side, proposals, the gold",
        responses={200: OBJECT, 404: NOT_FOUND},
    )
    def get(self, request: Request, pk: int) -> Response:
        return Response(gold_selectors.adjudication_state(staff_document(request, pk)))

    @extend_schema(
        tags=["review"],
        summary="Replace the document's spans in the gold draft",
        description="Send the revision you loaded: a stale one is a 409 whose "
        "`current` is the gold as it is now (re-apply your spans on it).",
        request=GoldSaveSerializer,
        responses={200: OBJECT, 400: OBJECT, 409: OBJECT, 404: NOT_FOUND},
    )
    def put(self, request: Request, pk: int) -> Response:
        document = staff_document(request, pk)
        body = GoldSaveSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        try:
            gold_services.save_document_gold(
                document=document,
                revision=data["revision"],
                spans=data["spans"],
                comments=data.get("comments"),
                by=request.user,
            )
        except gold_services.GoldConflict as conflict:
            return Response(
                {"detail": str(conflict), "current": gold_selectors.gold_state(document)},
                status=status.HTTP_409_CONFLICT,
            )
        except ValidationError as error:
            raise DRFValidationError(error.message_dict) from error
        return Response(gold_selectors.gold_state(document))


class AdjudicationNeighboursView(APIView):
    @extend_schema(
        tags=["review"],
        summary="The previous and next document of the adjudication queue (its order)",
        description=(
            "position counts from 1 of total; null when the document has no submitted "
            "annotation (then next is the queue's first). previous / next: {id, name} or null."
        ),
        responses={200: OBJECT, 404: NOT_FOUND},
    )
    def get(self, request: Request, pk: int) -> Response:
        return Response(gold_selectors.adjudication_neighbours(staff_document(request, pk)))


class DocumentHistoryView(APIView):
    @extend_schema(
        tags=["review"],
        summary="Every recorded change to a document's annotations "
        "and gold rows (who, when, before, after)",
        responses={200: OBJECT, 404: NOT_FOUND},
    )
    def get(self, request: Request, pk: int) -> Response:
        return Response({"results": document_history(staff_document(request, pk))})
