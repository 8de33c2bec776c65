"""REST API of a project's rating agreement (thin: the reads are ``judging.rating_stats``).

``GET /api/evaluation/projects/<id>/ratings/?judge_run=<id>``: for every rating field
(likert, rubric) of an item project's form, Krippendorff's α between the raters
(interval and ordinal), each item's mean human rating, and, with ``judge_run``, Spearman's
ρ between those means and the judge run's per-item scores. Reviewers and admins of the
project (superusers everywhere); anyone else gets 404. A bad ``judge_run`` (not a run of
the project, not a judge) or a project that is not an item project is a 400 naming it.
"""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from fallacy_platform.api.lookups import staff_project
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from evaluation.judging.rating_stats import RatingStatsError, rating_stats


class ProjectRatingsView(APIView):
    @extend_schema(
        tags=["evaluation"],
        summary="Agreement of a project's rating fields (raters' alpha, judge correlation)",
        description="Per likert/rubric field: Krippendorff's alpha over the submitted "
        "ratings (interval and ordinal), the mean human rating of each item (document id), "
        "and with `judge_run` Spearman's rho (rho, p, n items rated by both) against the "
        "judge run's per-item scores.",
        parameters=[OpenApiParameter("judge_run", int, description="A judge run's id.")],
        responses={
            200: OpenApiResponse(OpenApiTypes.OBJECT, description="The figures."),
            400: OpenApiResponse(OpenApiTypes.OBJECT, description="{field: [messages]}"),
            404: OpenApiResponse(description="No visible project with this id."),
        },
    )
    def get(self, request: Request, pk: int) -> Response:
        project = staff_project(request, pk)
        raw = request.query_params.get("judge_run", "")
        if raw and not raw.isdigit():
            raise ValidationError({"judge_run": [f"{raw!r} is not an id"]})
        try:
            stats = rating_stats(project=project, judge_run_id=int(raw) if raw else None)
        except RatingStatsError as error:
            raise ValidationError({error.field: [str(error)]}) from None
        return Response(stats)
