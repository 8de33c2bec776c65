"""``GET /api/evaluation/launch-preview/``: what a launch over a gold version would send
(texts, requests per run) and each chosen model's estimated time on this machine
(``evaluation.runs.preview``), before anything is launched. Reviewers and admins of the
gold version's project read it; any other gold version is a 404."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from fallacy_platform.query import query_id
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from evaluation.backends import BACKENDS
from evaluation.runs.preview import launch_preview
from evaluation.runs.scores_api import visible_gold

MAX_MODELS = 32


class ModelEstimateSerializer(serializers.Serializer):
    backend = serializers.CharField()
    model = serializers.CharField(allow_blank=True)
    seconds = serializers.FloatField(allow_null=True)
    per_request_seconds = serializers.FloatField(allow_null=True)
    load_seconds = serializers.FloatField(allow_null=True)
    measured_by_run = serializers.IntegerField(allow_null=True)


class LaunchPreviewSerializer(serializers.Serializer):
    texts = serializers.IntegerField()
    requests = serializers.IntegerField()
    estimates = ModelEstimateSerializer(many=True)


def _limit(request: Request) -> int | None:
    values = request.query_params.getlist("limit")
    if not values or values == [""]:
        return None
    if len(values) > 1 or not values[0].isdigit() or int(values[0]) < 1:
        raise ValidationError({"limit": [f"expected a whole number >= 1, not {values[-1][:40]!r}"]})
    return int(values[0])


def _models(request: Request) -> list[tuple[str, str]]:
    values = request.query_params.getlist("model")
    if len(values) > MAX_MODELS:
        raise ValidationError({"model": [f"at most {MAX_MODELS} models"]})
    models = []
    for index, value in enumerate(values):
        backend, _, name = value.partition(":")
        if backend not in BACKENDS:
            raise ValidationError(
                {f"model[{index}]": [f"expected BACKEND:MODEL, {backend[:40]!r} is no backend"]}
            )
        models.append((backend, name))
    return models


@extend_schema(tags=["evaluation jobs"])
class LaunchPreviewView(APIView):
    @extend_schema(
        summary="The requests and estimated time of a launch, before launching",
        parameters=[
            OpenApiParameter("gold_standard", int, required=True),
            OpenApiParameter("limit", int, description="the first N texts (absent: all)"),
            OpenApiParameter("model", str, many=True, description="BACKEND:MODEL, repeated"),
        ],
        responses={200: LaunchPreviewSerializer},
    )
    def get(self, request: Request) -> Response:
        gold_id = query_id(request, "gold_standard", required=True)
        assert gold_id is not None  # required
        limit, models = _limit(request), _models(request)
        preview = launch_preview(
            gold_standard=visible_gold(request, gold_id), limit=limit, models=models
        )
        return Response(LaunchPreviewSerializer(preview).data)
