"""REST API of LLM-as-judge runs and rating agreement, and their routes.

- ``POST /api/evaluation/judges/``: a project admin launches a judge run
  (``evaluation.judging.launch``); 201 with the run as ``Run``; every refused
  field named (``judged_run``, ``judge_model.backend``, ``repeats``…), nothing created.
- ``GET /api/evaluation/projects/<id>/ratings/?judge_run=<id>``: the agreement of the
  project's rating fields (``evaluation.judging.ratings_api``).

A project the user does not review or administer is a 404; a reviewer launching gets
a 403 (the roles of ``evaluation.runs.api``).
"""

from __future__ import annotations

from typing import Any

from django.urls import path
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from evaluation import ownership
from evaluation.access import require_admin, staff_project
from evaluation.backends import ModelSpec
from evaluation.judging import ratings_api as api_ratings
from evaluation.judging.launch import launch_judge_run
from evaluation.models import ModelRun
from evaluation.runs.api import ERRORS, TAGS, serialize_runs
from evaluation.runs.serializers import (
    LaunchResponseSerializer,
    ModelChoiceSerializer,
    flatten_errors,
)
from evaluation.runs.services import LaunchError


class JudgeLaunchSerializer(serializers.Serializer):
    project = serializers.IntegerField()
    judge_model = ModelChoiceSerializer()
    prompt_variant = serializers.IntegerField()
    judged_run = serializers.IntegerField(required=False, allow_null=True, default=None)
    field = serializers.CharField(required=False, allow_blank=True, default="")
    repeats = serializers.IntegerField(required=False, allow_null=True, default=None)
    limit = serializers.IntegerField(required=False, allow_null=True, default=None)
    name = serializers.CharField(required=False, allow_blank=True, max_length=180)


def _project_id(data: Any) -> int | None:
    raw = data.get("project") if hasattr(data, "get") else None
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw
    if isinstance(raw, str) and raw.isdigit():
        return int(raw)
    return None


class JudgeLaunchView(APIView):
    @extend_schema(
        tags=TAGS,
        summary="Launch an LLM-as-judge run over a finished free-text run (or the items' "
        "candidates)",
        description="Project admins only. The judge rates each item `repeats` times at "
        "temperature 0; its raw judgements are the run's requests, its report's primary "
        "figure is `judge_mean`. Every problem is named by its field and nothing is created.",
        request=JudgeLaunchSerializer,
        responses={201: LaunchResponseSerializer, **ERRORS},
    )
    def post(self, request: Request) -> Response:
        project_id = _project_id(request.data)
        if project_id is not None:  # roles first: 404 / 403 before the body's details
            require_admin(request, staff_project(request, project_id))
        launch = JudgeLaunchSerializer(data=request.data)
        if not launch.is_valid():
            return Response(flatten_errors(launch.errors), status=status.HTTP_400_BAD_REQUEST)
        data = launch.validated_data
        project = staff_project(request, data["project"])
        require_admin(request, project)
        variant = ownership.variants_for(project).filter(pk=data["prompt_variant"]).first()
        if variant is None:
            return Response(
                {"prompt_variant": [f"no prompt variant with id {data['prompt_variant']}"]},
                status=status.HTTP_400_BAD_REQUEST,
            )
        judged = None
        if data["judged_run"] is not None:
            judged = ModelRun.objects.filter(pk=data["judged_run"], project=project).first()
            if judged is None:
                return Response(
                    {"judged_run": [f"no run {data['judged_run']} in project {project.name!r}"]},
                    status=status.HTTP_400_BAD_REQUEST,
                )
        model = data["judge_model"]
        try:
            run = launch_judge_run(
                project=project,
                judge_model=ModelSpec(model["backend"], model["model"], dict(model["settings"])),
                variant=variant,
                judged_run=judged,
                field=data["field"] or None,
                repeats=data["repeats"],
                limit=data["limit"],
                created_by=request.user,
                name=data.get("name") or None,
            )
        except LaunchError as error:
            return Response(error.as_dict(), status=status.HTTP_400_BAD_REQUEST)
        return Response({"runs": serialize_runs(request, [run])}, status=status.HTTP_201_CREATED)


urlpatterns = [
    path("judges/", JudgeLaunchView.as_view(), name="evaluation-judge-launch"),
    path(
        "projects/<int:pk>/ratings/",
        api_ratings.ProjectRatingsView.as_view(),
        name="evaluation-project-ratings",
    ),
]
