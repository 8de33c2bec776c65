"""REST API of a project's agreement figures (thin: the work is in ``agreement.jobs``).

Reviewers and admins of the project (superusers everywhere); anyone else gets 404, so the
project's existence does not leak. The figures are computed by a Celery task: the first
request for new inputs answers 202 ``computing`` and the page polls until 200 ``done``.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from fallacy_platform.api.lookups import staff_project
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotations.models import GoldStandard
from evaluation.agreement.jobs import agreement_for
from evaluation.models import AgreementResult


def _int_param(request: Request, name: str) -> int | None:
    raw = request.query_params.get(name)
    if raw in (None, ""):
        return None
    if not raw.isdigit():
        raise ValidationError({name: [f"{raw!r} is not an id"]})
    return int(raw)


class ProjectAgreementView(APIView):
    @extend_schema(
        tags=["evaluation"],
        summary="Agreement figures of a project (computed by a background task, cached)",
        description="Krippendorff's alpha (MASI and Jaccard) over sentence units, per-label "
        "alpha, Cohen's and Fleiss' kappa, the disjunctive cross-comparison (profile paper), "
        "label co-occurrence and distributions, at levels 0, 1 and 2, and per document. "
        "202 `computing` while the task runs; poll until 200 `done`.",
        parameters=[
            OpenApiParameter(
                "gold_standard",
                int,
                description="A published version's id (default: the latest published version).",
            ),
            OpenApiParameter("document", int, description="Only this document's figures."),
        ],
        responses={
            200: OpenApiResponse(OpenApiTypes.OBJECT, description="Done (or failed)."),
            202: OpenApiResponse(OpenApiTypes.OBJECT, description="Computing."),
            404: OpenApiResponse(description="No visible project with this id."),
        },
    )
    def get(self, request: Request, pk: int) -> Response:
        project = staff_project(request, pk)
        gold_id = _int_param(request, "gold_standard")
        gold = None
        if gold_id is not None:
            gold = GoldStandard.objects.filter(
                pk=gold_id, project=project, status=GoldStandard.Status.PUBLISHED
            ).first()
            if gold is None:
                raise ValidationError(
                    {"gold_standard": ["No published gold standard with this id in the project."]}
                )
        document_id = _int_param(request, "document")
        result = agreement_for(project=project, gold_standard=gold)
        return answer(result, document_id)


def answer(result: AgreementResult, document_id: int | None) -> Response:
    head: dict[str, Any] = {"key": result.key}
    if result.status == AgreementResult.Status.FAILED:
        return Response({"status": "failed", **head, "error": result.error})
    if result.status != AgreementResult.Status.DONE:
        return Response({"status": "computing", **head}, status=status.HTTP_202_ACCEPTED)
    head["computed_at"] = result.finished_at
    payload = result.payload or {}
    if document_id is None:
        return Response({"status": "done", **head, **payload})
    entry = next((e for e in payload.get("per_document", []) if e["document"] == document_id), None)
    return Response({"status": "done", **head, "document": entry})
