"""REST API of LLM-as-judge runs and rating agreement (routes in ``judging.urls``).

- ``POST /api/evaluation/judges/``: a project admin launches a judge run
  (``evaluation.judging.launch``); 201 with the run as ``Run``; every refused
  field named (``judged_run``, ``judge_model.backend``, ``repeats``…), nothing created.
- ``GET /api/evaluation/projects/<id>/ratings/?judge_run=<id>``: the agreement of the
  project's rating fields (``evaluation.judging.ratings_api``).

A project the user does not review or administer is a 404; a reviewer launching gets
a 403 (the roles of ``evaluation.runs.api``).
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from evaluation import ownership
from evaluation.judging.launch import launch_judge_run
from evaluation.models import ModelRun
from evaluation.runs.api import ERRORS, TAGS, admin_launch_body, launched, model_specs
from evaluation.runs.serializers import LaunchResponseSerializer, ModelChoiceSerializer


class JudgeLaunchSerializer(serializers.Serializer):
    project = serializers.IntegerField()
    judge_model = ModelChoiceSerializer()
    prompt_variant = serializers.IntegerField()
    judged_run = serializers.IntegerField(required=False, allow_null=True, default=None)
    field = serializers.CharField(required=False, allow_blank=True, default="")
    repeats = serializers.IntegerField(required=False, allow_null=True, default=None)
    limit = serializers.IntegerField(required=False, allow_null=True, default=None)
    name = serializers.CharField(required=False, allow_blank=True, max_length=180)


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
        project, data = admin_launch_body(request, JudgeLaunchSerializer)
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
        return launched(
            request,
            lambda: [
                launch_judge_run(
                    project=project,
                    judge_model=model_specs([data["judge_model"]])[0],
                    variant=variant,
                    judged_run=judged,
                    field=data["field"] or None,
                    repeats=data["repeats"],
                    limit=data["limit"],
                    created_by=request.user,
                    name=data.get("name") or None,
                )
            ],
        )
