"""REST API of an item project's results (thin: the work is in ``items.leaderboard``).

Mounted at /api/evaluation/ (``evaluation.urls`` includes this module's ``urlpatterns``).
Reviewers and admins of the project (superusers everywhere); anyone else gets 404, so the
project's existence does not leak. A span project has no item results: 404 too.
"""

from __future__ import annotations

from django.http import HttpResponse
from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotations.api.dataset_views import IgnoreFormatParameter
from annotations.api.gold_views import staff_project
from annotations.items import FormError
from evaluation.items.leaderboard import item_leaderboard, to_csv

FORMATS = ("json", "csv")


class ItemLeaderboardView(APIView):
    content_negotiation_class = IgnoreFormatParameter

    @extend_schema(
        tags=["evaluation"],
        summary="Results of an item project: models, prompt variants and humans per task",
        description="Rows (models × prompt variants, and human annotators) with each form "
        "field's primary figure, per skill and overall (the form's aggregate: macro or "
        "geometric mean); chain-of-thought vs direct and few-shot vs zero-shot deltas; "
        "predicted vs gold label distributions. format=csv gives the rows as a CSV file.",
        parameters=[OpenApiParameter("format", str, enum=list(FORMATS))],
        responses={
            (200, "application/json"): OpenApiResponse(OpenApiTypes.OBJECT),
            (200, "text/csv"): OpenApiResponse(OpenApiTypes.STR),
            404: OpenApiResponse(description="No visible item project with this id."),
        },
    )
    def get(self, request: Request, pk: int) -> Response | HttpResponse:
        project = staff_project(request, pk)
        if project.kind != "items":
            raise NotFound("No item project with this id.")
        output = request.query_params.get("format", "json")
        if output not in FORMATS:
            raise ValidationError({"format": [f"must be one of {', '.join(FORMATS)}"]})
        try:
            board = item_leaderboard(project=project)
        except FormError as error:
            raise ValidationError({"form": [f"the project's form is invalid: {error}"]}) from error
        if output == "json":
            return Response(board)
        response = HttpResponse(to_csv(board), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="results-{project.pk}.csv"'
        return response


urlpatterns = [
    path(
        "projects/<int:pk>/item-leaderboard/",
        ItemLeaderboardView.as_view(),
        name="evaluation-item-leaderboard",
    ),
]
