"""REST API of evaluation jobs: runs (launch, cancel, resume, rescore), a run's requests,
and the leaderboard of a gold version. Prompt variants are ``evaluation.runs.variants_api``,
the launch form's options ``evaluation.runs.launch_options_api``; they share this module's
schema parts (``TAGS``, ``ERRORS``, ``CONFLICT``).

Roles (``annotations.selectors.access``): project admins and superusers launch, cancel,
resume and rescore runs, and save prompt variants in their project (its own copies; the
global built-ins are superusers' to edit, ``evaluation.ownership``); reviewers and admins
view runs, requests, leaderboards and the variants of their projects (and the global ones).
A project, run or gold version the user cannot see is a 404 (existence does not leak); a
reviewer asking for an admin's action gets a 403.

Validation errors are ``{field: [messages]}`` with nested fields flattened the way the
launch service names them (``models[0].backend``, ``params.top_p``); a launch that is
refused creates nothing. Launches go through ``evaluation.runs.launch`` (item runs:
``evaluation.items.launch``), the other writes through ``evaluation.runs.services``; the
leaderboard is ``evaluation.runs.leaderboard``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db.models import Prefetch, Q, QuerySet
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from fallacy_platform.api.lookups import body_project_id, require, staff_project
from fallacy_platform.api.negotiation import IgnoreFormatParameter
from fallacy_platform.api.serializers import DetailSerializer
from rest_framework import generics, serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.exceptions import ValidationError as DRFValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotations.models import Project
from annotations.selectors.access import gold_standards_for
from annotations.selectors.policy import may_launch
from evaluation import ownership
from evaluation.access import admin_project_ids, runs_for, visible_run
from evaluation.backends import ModelSpec
from evaluation.items.launch import launch_item_runs
from evaluation.models import ModelRun, PromptVariant, RunOutput, RunScore
from evaluation.results import board_of, gold_results_json
from evaluation.runs import leaderboard, selectors
from evaluation.runs.comparable import CompareError
from evaluation.runs.launch import LaunchError, launch_runs
from evaluation.runs.prompts import parse_answer, run_parser
from evaluation.runs.scores_api import ScoringErrorsMixin, visible_gold
from evaluation.runs.serializers import (
    LaunchResponseSerializer,
    LaunchSerializer,
    LeaderboardQuerySerializer,
    RequestsQuerySerializer,
    RunDetailSerializer,
    RunOutputSerializer,
    RunSerializer,
    RunsQuerySerializer,
    flatten_errors,
)
from evaluation.runs.services import RunStateError, cancel_run, rescore_run, resume_run
from evaluation.runs.stored import taxonomy_mapping

TAGS = ["evaluation jobs"]
ERRORS = {
    400: OpenApiResponse(OpenApiTypes.OBJECT, description="{field: [messages]}"),
    403: OpenApiResponse(DetailSerializer, description="Not a project admin."),
    404: OpenApiResponse(DetailSerializer, description="Not visible to the user."),
}
LAUNCHERS = "Only a project admin may do this."
CONFLICT = {409: OpenApiResponse(DetailSerializer, description="Not in a state that allows it.")}


def run_context(request: Request) -> dict[str, Any]:
    return {"request": request, "admin_projects": admin_project_ids(request.user)}


def runs_with_counts(runs: QuerySet[ModelRun]) -> QuerySet[ModelRun]:
    return selectors.with_counts(runs).select_related("gold_standard", "prompt_variant")


def serialize_runs(request: Request, runs: list[ModelRun]) -> list[dict[str, Any]]:
    """Runs as ``Run`` (fetched again with their counts), in the order given."""
    found = runs_with_counts(ModelRun.objects.filter(pk__in=[run.pk for run in runs])).in_bulk()
    ordered = [found[run.pk] for run in runs]
    return RunSerializer(ordered, many=True, context=run_context(request)).data


def admin_launch_body(
    request: Request, serializer_class: type[serializers.Serializer]
) -> tuple[Project, dict[str, Any]]:
    """A launch's project and validated body. Roles first (404 / 403) when the project can
    be read at all; then a body that is not valid is a 400 naming each field."""
    project_id = body_project_id(request.data)
    if project_id is not None:
        require(may_launch(request.user, staff_project(request, project_id)), LAUNCHERS)
    body = serializer_class(data=request.data)
    if not body.is_valid():
        raise DRFValidationError(flatten_errors(body.errors))
    data = body.validated_data
    project = staff_project(request, data["project"])
    require(may_launch(request.user, project), LAUNCHERS)
    return project, data


def model_specs(models: list[dict[str, Any]]) -> list[ModelSpec]:
    return [
        ModelSpec(model["backend"], model["model"], dict(model["settings"])) for model in models
    ]


def launched(request: Request, start: Callable[[], list[ModelRun]]) -> Response:
    """201 with the runs a launch created (as ``Run``), or 400 naming each refused field."""
    try:
        runs = start()
    except LaunchError as error:
        return Response(error.as_dict(), status=status.HTTP_400_BAD_REQUEST)
    return Response({"runs": serialize_runs(request, runs)}, status=status.HTTP_201_CREATED)


# --- runs -----------------------------------------------------------------------------------


@extend_schema(tags=TAGS)
class RunListView(generics.ListAPIView):
    serializer_class = RunSerializer

    def get_serializer_context(self) -> dict[str, Any]:
        return {**super().get_serializer_context(), **run_context(self.request)}

    def get_queryset(self) -> QuerySet[ModelRun]:
        runs = runs_for(self.request.user)
        filters = RunsQuerySerializer(data=self.request.query_params)
        if not filters.is_valid():
            raise DRFValidationError(filters.errors)
        query = filters.validated_data
        if query.get("project") is not None:
            staff_project(self.request, query["project"])
            runs = runs.filter(project_id=query["project"])
        if query.get("gold_standard") is not None:
            runs = runs.filter(gold_standard_id=query["gold_standard"])
        if query.get("status"):
            runs = runs.filter(status=query["status"])
        return runs_with_counts(runs).order_by("-created_at", "-id")

    @extend_schema(
        summary="Model runs of the projects I review or administer",
        parameters=[RunsQuerySerializer],
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        summary="Launch runs: one per model and prompt variant, queued on the gpu queue",
        description="Project admins only. Every problem is named by its field "
        "(`models[0].model`, `prompt_variants[1]`, `gold_standard`…) and nothing is created. "
        "On an item project, `field` names the form field the runs answer (no gold version).",
        request=LaunchSerializer,
        responses={201: LaunchResponseSerializer, **ERRORS},
    )
    def post(self, request: Request) -> Response:
        project, data = admin_launch_body(request, LaunchSerializer)
        if project.kind == "items" and not data["field"]:
            return Response(
                {"field": ["an item project's runs answer a form field: name it"]},
                status=status.HTTP_400_BAD_REQUEST,
            )
        gold = None
        if project.kind != "items":
            if data["gold_standard"] is None:
                return Response(
                    {"gold_standard": ["a span project's runs need a gold version"]},
                    status=status.HTTP_400_BAD_REQUEST,
                )
            gold = gold_standards_for(request.user).filter(pk=data["gold_standard"]).first()
            if gold is None:
                raise NotFound("No gold standard with this id.")
        found, missing = self.variants_of(project, data)
        if missing:
            return Response(missing, status=status.HTTP_400_BAD_REQUEST)
        common: dict[str, Any] = {
            "project": project,
            "models": model_specs(data["models"]),
            "variants": [found[pk] for pk in data["prompt_variants"]],
            "limit": data["limit"],
            "shards": data["shards"],
            "params": data.get("params") or {},
            "created_by": request.user,
            "name": data.get("name") or None,
        }
        if gold is None:  # an item project: the runs answer the form field
            return launched(request, lambda: launch_item_runs(field=data["field"], **common))
        return launched(
            request, lambda: launch_runs(gold_standard=gold, level=data["level"], **common)
        )

    @staticmethod
    def variants_of(
        project: Project, data: dict[str, Any]
    ) -> tuple[dict[int, PromptVariant], dict[str, list[str]]]:
        """The chosen variants among the project's own and the global ones."""
        found = ownership.variants_for(project).in_bulk(data["prompt_variants"])
        missing = {
            f"prompt_variants[{index}]": [f"no prompt variant with id {pk}"]
            for index, pk in enumerate(data["prompt_variants"])
            if pk not in found
        }
        return found, missing


@extend_schema(tags=TAGS, summary="A model run with its shards and stored scores")
class RunDetailView(generics.RetrieveAPIView):
    serializer_class = RunDetailSerializer

    def get_serializer_context(self) -> dict[str, Any]:
        return {**super().get_serializer_context(), **run_context(self.request)}

    def get_queryset(self) -> QuerySet[ModelRun]:
        scores = Prefetch("scores", queryset=RunScore.objects.order_by("pk"))  # paper first
        return runs_with_counts(runs_for(self.request.user)).prefetch_related("run_shards", scores)


class RunActionView(APIView):
    """POST on a run: a state change by a project admin (409 when the state refuses)."""

    service: Callable[..., ModelRun]

    def post(self, request: Request, pk: int) -> Response:
        run = visible_run(request, pk)
        require(may_launch(request.user, run.project_id), LAUNCHERS)
        try:
            run = type(self).service(run=run)
        except RunStateError as error:
            return Response({"detail": str(error)}, status=status.HTTP_409_CONFLICT)
        return Response(serialize_runs(request, [run])[0])


def _action_schema(summary: str) -> Callable:
    return extend_schema(
        tags=TAGS, summary=summary, request=None, responses={200: RunSerializer, **CONFLICT}
    )


class RunCancelView(RunActionView):
    service = staticmethod(cancel_run)

    @_action_schema("Cancel a queued or running run (what it produced is kept)")
    def post(self, request: Request, pk: int) -> Response:
        return super().post(request, pk)


class RunResumeView(RunActionView):
    service = staticmethod(resume_run)

    @_action_schema("Resume a failed or cancelled run (answered requests are not sent again)")
    def post(self, request: Request, pk: int) -> Response:
        return super().post(request, pk)


class RunRescoreView(RunActionView):
    service = staticmethod(rescore_run)

    @_action_schema("Score a finished run's stored outputs again")
    def post(self, request: Request, pk: int) -> Response:
        return super().post(request, pk)


# --- a run's requests -----------------------------------------------------------------------


def parse_imported(run: ModelRun, outputs: list[RunOutput]) -> list[RunOutput]:
    """A span run's imported outputs were never parsed: read them (in memory) as scoring
    does. (An item run's scoring stores what it read, imported or not.)"""
    parser, mapping = run_parser(run), taxonomy_mapping(run.project.taxonomy)
    for output in outputs:
        answer = output.answer if output.answer is not None else output.raw_output
        output.parsed_labels = parse_answer(parser, answer, run=run, mapping=mapping)
    return outputs


@extend_schema(tags=TAGS)
class RunRequestsView(generics.ListAPIView):
    serializer_class = RunOutputSerializer

    @extend_schema(
        summary="A run's requests: prompt, raw output and what the parser read",
        parameters=[RequestsQuerySerializer],
    )
    def get(self, request: Request, pk: int) -> Response:
        run = visible_run(request, pk)
        query = RequestsQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        options = query.validated_data
        outputs = run.outputs.select_related("document").order_by(
            "document__position", "document_id", "unit_index"
        )
        if options.get("document") is not None:
            outputs = outputs.filter(document_id=options["document"])
        if options.get("search"):
            text = options["search"]
            outputs = outputs.filter(Q(unit_text__icontains=text) | Q(raw_output__icontains=text))
        unparseable = options.get("unparseable")
        rows: Any = outputs
        unparsed = run.imported and not run.field
        if unparsed:
            if unparseable is not None:
                rows = [
                    output
                    for output in parse_imported(run, list(outputs))
                    if output.unparseable == unparseable
                ]
        elif unparseable is not None:
            rows = outputs.filter(parsed_labels__isnull=unparseable)
        page = self.paginate_queryset(rows)
        if unparsed and unparseable is None:
            parse_imported(run, page)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)


# --- leaderboard ----------------------------------------------------------------------------


@extend_schema(tags=TAGS)
class LeaderboardView(ScoringErrorsMixin, APIView):
    content_negotiation_class = IgnoreFormatParameter

    @extend_schema(
        summary="Leaderboard of a gold version: finished runs and human annotators",
        description="Sorted by level-2 F1 (rows without one last). format=csv gives a CSV "
        "attachment, format=latex a booktabs table (text/plain).",
        parameters=[LeaderboardQuerySerializer],
        responses={
            (200, "application/json"): OpenApiResponse(OpenApiTypes.OBJECT),
            (200, "text/csv"): OpenApiResponse(OpenApiTypes.STR),
            (200, "text/plain"): OpenApiResponse(OpenApiTypes.STR),
            **ERRORS,
        },
    )
    def get(self, request: Request) -> Response | HttpResponse:
        query = LeaderboardQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        options = query.validated_data
        gold = visible_gold(request, options["gold_standard"])
        try:
            text = gold_results_json(
                gold_standard=gold, profile=options["profile"], pair=options.get("compare")
            )
        except CompareError as error:
            raise DRFValidationError({"compare": [str(error)]}) from error
        if options["format"] == "json":
            return HttpResponse(text, content_type="application/json")
        board = board_of(text)
        stem = f"leaderboard-{gold.project_id}-v{gold.version}-{options['profile']}"
        if options["format"] == "csv":
            response = HttpResponse(
                leaderboard.to_csv(board), content_type="text/csv; charset=utf-8"
            )
            response["Content-Disposition"] = f'attachment; filename="{stem}.csv"'
            return response
        response = HttpResponse(
            leaderboard.to_latex(board), content_type="text/plain; charset=utf-8"
        )
        response["Content-Disposition"] = f'inline; filename="{stem}.tex"'
        return response
