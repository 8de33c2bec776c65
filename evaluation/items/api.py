"""REST API of an item project's results (thin: the work is in ``items.leaderboard``; the
board is stored and sent again while its inputs are unchanged: ``evaluation.results``).

Mounted at /api/evaluation/ (routes in ``items.urls``).
Reviewers and admins of the project (superusers everywhere); anyone else gets 404, so the
project's existence does not leak. A span project has no item results: 404 too.
"""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from fallacy_platform.api.lookups import staff_project
from fallacy_platform.api.negotiation import IgnoreFormatParameter
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotations.items import FormError
from evaluation.items.leaderboard import QueryError, to_csv, to_latex
from evaluation.results import board_of, item_results_json
from evaluation.runs.serializers import COMPARE_PATTERN

FORMATS = ("json", "csv", "latex")


def compare_pair(value: str | None) -> tuple[str, str] | None:
    """``?compare=A,B`` -> ``(A, B)``; 400 naming ``compare`` when it is not two rows."""
    if not value:
        return None
    first, sep, second = value.partition(",")
    if not sep or not first.strip() or not second.strip():
        raise ValidationError({"compare": ["two rows are needed, as A,B (keys or names)"]})
    return first.strip(), second.strip()


class ItemLeaderboardView(APIView):
    content_negotiation_class = IgnoreFormatParameter

    @extend_schema(
        tags=["evaluation"],
        summary="Results of an item project: models, prompt variants and humans per task",
        description="Rows (models × prompt variants, imported runs and human annotators) per "
        "scoring profile, with each form field's primary figure, per skill and overall (only "
        "figures on the 0-1 scale; overall_basis says how it was formed), coverage, group and "
        "rank (rows ranked only against rows scored on the same items) and the paired test "
        "against the next row; every figure of the reports (figures); chain-of-thought vs "
        "direct and few-shot vs zero-shot deltas; predicted vs gold label distributions. "
        "profile=NAME shows one profile; subset=KEY=VALUE (split=bench, gold=fallacious) "
        "scores the stored outputs on those items only. format=csv|latex exports the rows.",
        parameters=[
            OpenApiParameter("format", str, enum=list(FORMATS)),
            OpenApiParameter("profile", str, description="A scoring profile (default: all)."),
            OpenApiParameter(
                "subset", str, description="KEY=VALUE of the items' metadata, or gold=KIND."
            ),
            OpenApiParameter(
                "compare",
                str,
                pattern=COMPARE_PATTERN,
                description="A,B: two rows (keys or names); the paired test of A minus B per "
                "profile and task on their common items (compare in the answer).",
            ),
        ],
        responses={
            (200, "application/json"): OpenApiResponse(OpenApiTypes.OBJECT),
            (200, "text/csv"): OpenApiResponse(OpenApiTypes.STR),
            (200, "application/x-latex"): OpenApiResponse(OpenApiTypes.STR),
            400: OpenApiResponse(description="An unknown format, profile, subset or row."),
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
        profile = request.query_params.get("profile") or None
        subset = request.query_params.get("subset") or None
        pair = compare_pair(request.query_params.get("compare"))
        try:
            text = item_results_json(project=project, profile=profile, subset=subset, pair=pair)
        except FormError as error:
            raise ValidationError({"form": [f"the project's form is invalid: {error}"]}) from error
        except QueryError as error:
            place = str(error).split(" ", 1)[0].rstrip(":")
            place = place if place in ("subset", "compare") else "profile"
            raise ValidationError({place: [str(error)]}) from error
        if output == "json":
            return HttpResponse(text, content_type="application/json")
        board = board_of(text)
        if output == "csv":
            body, kind, suffix = to_csv(board), "text/csv", "csv"
        else:
            body, kind, suffix = to_latex(board), "application/x-latex", "tex"
        response = HttpResponse(body, content_type=f"{kind}; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="results-{project.pk}.{suffix}"'
        return response
