"""REST API of generation jobs, their review and report, under /api/evaluation/.

- ``GET generation-jobs/`` (``?project=ID``): jobs of the projects I review or administer.
- ``POST generation-jobs/`` ``{project, type, method, backend, model, settings, n}``: launch
  a job, the same service and refusals as ``manage.py generate_fallacies`` (400 naming each
  field, nothing queued). ``project`` is a project name: an existing item project's admins
  only; a new name (created with the SmartyPat form) only for users who may create projects.
- ``GET generation-jobs/<id>/``: a job's progress (status, stage, counters) and report.
- ``GET generation-jobs/<id>/items/``: its items with scores and review state.
- ``POST generation-items/<id>/review/`` ``{decision: accept|reject|pending, text?}``:
  reviewers and admins of the item's project.
- ``GET|POST projects/<id>/generation-releases/``: published gold versions of the accepted
  items (POST: admins; 409 when nothing is accepted).
- ``GET generation-report/`` (``?project=ID``): per type and method across finished jobs.
- ``GET generation-options/``: what the launch form offers (the projects that fit, whether a
  new one may be created, local models, backends, credentials).
"""

from __future__ import annotations

import json
from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import Count, QuerySet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
)
from fallacy_platform.api.lookups import staff_project
from fallacy_platform.api.serializers import DetailSerializer, not_found
from rest_framework import generics, serializers, status
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotations.models import Project
from annotations.selectors.policy import may_create_projects, may_generate, may_launch
from evaluation import access
from evaluation.backends import BACKENDS, ModelSpec
from evaluation.models import GeneratedItem, GenerationJob, GenerationRelease
from evaluation.runs.launch import LaunchError
from evaluation.runs.launch_options_api import credential_options
from evaluation.runs.launch_options_serializers import CredentialOptionSerializer
from evaluation.runs.serializers import flatten_errors
from evaluation.synthesis.options import BASELINES, generation_models, generation_projects
from evaluation.synthesis.review import (
    NothingToRelease,
    ReviewError,
    generation_report,
    publish_release,
    review_item,
)
from evaluation.synthesis.services import MAX_N, METHODS, launch_generation

TAGS = ["generation"]
AUTH = {401: OpenApiResponse(DetailSerializer, description="Not signed in.")}
NOT_FOUND = not_found()
BAD = {400: OpenApiResponse(OpenApiTypes.OBJECT, description="{field: [messages]}")}


def visible_jobs(request: Request) -> QuerySet[GenerationJob]:
    return access.generation_jobs_for(request.user).select_related("rule", "project", "created_by")


def project_filter(request: Request) -> int | None:
    raw = request.query_params.get("project")
    if raw in (None, ""):
        return None
    if not (raw.isascii() and raw.isdigit()) or int(raw) > 2**31:
        raise NotFound("No project with this id.")
    return staff_project(request, int(raw)).pk


# --- serializers ----------------------------------------------------------------------------


class GenerationReviewCountsSerializer(serializers.Serializer):
    pending = serializers.IntegerField()
    accepted = serializers.IntegerField()
    rejected = serializers.IntegerField()


class GenerationJobSerializer(serializers.ModelSerializer):
    project_name = serializers.CharField(source="project.name", read_only=True)
    type = serializers.CharField(source="rule.type", read_only=True)
    rule_version = serializers.IntegerField(source="rule.version", read_only=True)
    stage = serializers.SerializerMethodField()
    created_by = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )
    review = serializers.SerializerMethodField()

    class Meta:
        model = GenerationJob
        fields = [
            "id", "project", "project_name", "type", "rule", "rule_version", "method",
            "backend", "model_name", "n", "status", "stage", "error", "proposed", "valid",
            "rejected", "rejections", "satisfying", "items_kept", "requests_sent", "from_cache",
            "review", "created_by", "created_at", "started_at", "finished_at",
        ]  # fmt: skip
        read_only_fields = fields

    def get_stage(self, job: GenerationJob) -> str | None:
        if job.status != GenerationJob.Status.RUNNING:
            return None
        return (job.report or {}).get("stage")

    @extend_schema_field(GenerationReviewCountsSerializer)
    def get_review(self, job: GenerationJob) -> dict[str, int]:
        counts = {"pending": 0, "accepted": 0, "rejected": 0}
        for row in job.items.values("review").annotate(n=Count("id")):
            counts[row["review"]] = row["n"]
        return counts


class GenerationJobDetailSerializer(GenerationJobSerializer):
    report = serializers.JSONField(read_only=True)

    class Meta(GenerationJobSerializer.Meta):
        fields = [*GenerationJobSerializer.Meta.fields, "backend_settings", "report"]
        read_only_fields = fields


class GenerationLaunchSerializer(serializers.Serializer):
    project = serializers.CharField(
        max_length=120, help_text="An item project's name (new: created)."
    )
    type = serializers.CharField(max_length=100, help_text="A rule file's fallacy type.")
    method = serializers.ChoiceField(choices=list(METHODS), default="prolog")
    backend = serializers.CharField(max_length=64)
    model = serializers.CharField(max_length=255, allow_blank=True, default="")
    settings = serializers.DictField(default=dict, help_text="Backend settings (no key).")
    n = serializers.IntegerField(min_value=1, max_value=MAX_N, default=20)


class GenerationProjectOptionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class GenerationModelOptionSerializer(serializers.Serializer):
    label = serializers.CharField()
    backend = serializers.CharField()
    model = serializers.CharField(allow_blank=True)
    settings = serializers.DictField()


class GenerationOptionsSerializer(serializers.Serializer):
    projects = GenerationProjectOptionSerializer(
        many=True, help_text="Item projects with a ranked field that I administer."
    )
    can_create = serializers.BooleanField(help_text="Whether a new project name is accepted.")
    models = GenerationModelOptionSerializer(many=True, help_text="Local models (SmolLM2).")
    backends = serializers.ListField(child=serializers.CharField())
    credentials = CredentialOptionSerializer(many=True)


class GeneratedItemSerializer(serializers.ModelSerializer):
    text = serializers.CharField(source="document.text", read_only=True)
    document = serializers.IntegerField(source="document_id", read_only=True)
    reviewed_by = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )

    class Meta:
        model = GeneratedItem
        fields = [
            "id", "job", "position", "document", "text", "edited_text", "bindings", "facts",
            "scores", "review", "reviewed_by", "reviewed_at",
        ]  # fmt: skip
        read_only_fields = fields


class GenerationReviewSerializer(serializers.Serializer):
    # a plain string (an enum would collide with the suggestions' "decision" in the schema);
    # anything else is a 400 naming the field
    decision = serializers.CharField(max_length=16, help_text="accept, reject or pending")
    text = serializers.CharField(
        max_length=2000, required=False, help_text="An edited sentence (with accept)."
    )


class GenerationReleaseSerializer(serializers.ModelSerializer):
    gold_project_name = serializers.CharField(
        source="gold_project.name", read_only=True, allow_null=True
    )
    created_by = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )

    class Meta:
        model = GenerationRelease
        fields = [
            "id", "project", "version", "gold_project", "gold_project_name", "items", "note",
            "created_by", "created_at",
        ]  # fmt: skip
        read_only_fields = fields


class GenerationPublishSerializer(serializers.Serializer):
    note = serializers.CharField(max_length=2000, required=False, allow_blank=True, default="")


class GenerationReportRowSerializer(serializers.Serializer):
    type = serializers.CharField()
    method = serializers.CharField()
    jobs = serializers.IntegerField()
    models = serializers.ListField(child=serializers.CharField())
    facts = serializers.JSONField(help_text="proposed / valid / rejected (null: direct), by_reason")
    satisfying = serializers.IntegerField(allow_null=True)
    items = serializers.IntegerField()
    judge = serializers.JSONField(help_text="judgements, unparseable, mean, share {0..3}")
    review = serializers.JSONField(help_text="pending, accepted, edited, rejected, acceptance_rate")


# --- views ----------------------------------------------------------------------------------


class GenerationJobListView(generics.ListAPIView):
    serializer_class = GenerationJobSerializer
    pagination_class = None

    def get_queryset(self) -> QuerySet[GenerationJob]:
        jobs = visible_jobs(self.request)
        project = project_filter(self.request)
        return jobs.filter(project_id=project) if project else jobs

    @extend_schema(
        tags=TAGS,
        summary="Generation jobs of the projects I review or administer",
        parameters=[OpenApiParameter("project", int, description="Only this project's jobs.")],
        responses={200: GenerationJobSerializer(many=True), **AUTH, **NOT_FOUND},
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        tags=TAGS,
        summary="Launch a generation job (Prolog-checked or direct), queued on the gpu queue",
        description="The same checks as `manage.py generate_fallacies`: an unknown type, a "
        "missing model, a stored rule file that does not load cleanly (named with its line), "
        "a span project: 400 naming the field, nothing created or queued. An existing "
        "project: its admins only; a new name: users who may create projects.",
        request=GenerationLaunchSerializer,
        responses={
            201: GenerationJobDetailSerializer,
            **BAD,
            **AUTH,
            403: OpenApiResponse(DetailSerializer, description="Not an admin of the project."),
            429: OpenApiResponse(
                DetailSerializer, description="Too many rule-file checks running; Retry-After."
            ),
        },
    )
    def post(self, request: Request) -> Response:
        raw = request.data.get("project") if hasattr(request.data, "get") else None
        if isinstance(raw, str):  # roles first: 403 before a 400
            generation_project(request, raw)
        launch = GenerationLaunchSerializer(data=request.data)
        if not launch.is_valid():
            return Response(flatten_errors(launch.errors), status=status.HTTP_400_BAD_REQUEST)
        data = launch.validated_data
        for field in ("project", "type", "backend", "model"):
            if "\x00" in data[field]:
                return Response({field: ["NUL characters are not allowed"]}, status=400)
        if "\\u0000" in json.dumps(data["settings"]):
            return Response({"settings": ["NUL characters are not allowed"]}, status=400)
        name = generation_project(request, data["project"])
        try:
            job = launch_generation(
                project_name=name,
                type_name=data["type"],
                model=ModelSpec(data["backend"], data["model"], dict(data["settings"])),
                n=data["n"],
                method=data["method"],
                created_by=request.user,
            )
        except LaunchError as error:
            return Response(error.as_dict(), status=status.HTTP_400_BAD_REQUEST)
        except DjangoValidationError as error:  # the new project (its name)
            fields = getattr(error, "message_dict", None) or {"project": error.messages}
            return Response(
                {("project" if k == "name" else k): v for k, v in fields.items()}, status=400
            )
        return Response(GenerationJobDetailSerializer(job).data, status=status.HTTP_201_CREATED)


def generation_project(request: Request, raw_name: str) -> str:
    """The (whitespace-normalised) name of the project a generation job goes into: one the
    user may launch in, or a new one when they may create projects (403 otherwise)."""
    name = " ".join(raw_name.split())
    project = Project.objects.filter(name=name).first()
    if project is not None:
        if not may_launch(request.user, project):
            raise PermissionDenied("Only an admin of the project may generate its items.")
    elif not may_create_projects(request.user):
        raise PermissionDenied("No such project, and you may not create one.")
    return name


def visible_job(request: Request, pk: int) -> GenerationJob:
    job = visible_jobs(request).filter(pk=pk).first()
    if job is None:
        raise NotFound("No generation job with this id.")
    return job


class GenerationJobDetailView(APIView):
    @extend_schema(
        tags=TAGS,
        summary="A generation job's progress (status, stage, counters) and report",
        responses={200: GenerationJobDetailSerializer, **AUTH, **NOT_FOUND},
    )
    def get(self, request: Request, pk: int) -> Response:
        return Response(GenerationJobDetailSerializer(visible_job(request, pk)).data)


class GenerationItemsView(APIView):
    @extend_schema(
        tags=TAGS,
        summary="A generation job's items, their judge scores and review",
        responses={200: GeneratedItemSerializer(many=True), **AUTH, **NOT_FOUND},
    )
    def get(self, request: Request, pk: int) -> Response:
        job = visible_job(request, pk)
        items = job.items.select_related("document", "reviewed_by").order_by("position")
        return Response(GeneratedItemSerializer(items, many=True).data)


class GeneratedItemReviewView(APIView):
    @extend_schema(
        tags=TAGS,
        summary="Review a generated item: accept (optionally with an edited sentence), "
        "reject, or set back to pending",
        request=GenerationReviewSerializer,
        responses={200: GeneratedItemSerializer, **BAD, **AUTH, **NOT_FOUND},
    )
    def post(self, request: Request, pk: int) -> Response:
        item = (
            access.generated_items_for(request.user)
            .select_related("document", "job")
            .filter(pk=pk)
            .first()
        )
        if item is None:
            raise NotFound("No generated item with this id.")
        review = GenerationReviewSerializer(data=request.data)
        if not review.is_valid():
            return Response(flatten_errors(review.errors), status=status.HTTP_400_BAD_REQUEST)
        data = review.validated_data
        if "\x00" in data.get("text", ""):
            return Response({"text": ["NUL characters are not allowed"]}, status=400)
        try:
            review_item(item, decision=data["decision"], text=data.get("text"), by=request.user)
        except ReviewError as error:
            return Response({error.field: [str(error)]}, status=status.HTTP_400_BAD_REQUEST)
        return Response(GeneratedItemSerializer(item).data)


class GenerationReleasesView(APIView):
    @extend_schema(
        tags=TAGS,
        summary="Published gold versions of a project's accepted generated items",
        responses={200: GenerationReleaseSerializer(many=True), **AUTH, **NOT_FOUND},
    )
    def get(self, request: Request, pk: int) -> Response:
        project = staff_project(request, pk)
        releases = GenerationRelease.objects.filter(project=project).select_related(
            "gold_project", "created_by"
        )
        return Response(GenerationReleaseSerializer(releases, many=True).data)

    @extend_schema(
        tags=TAGS,
        summary="Publish the accepted items as a gold version (a new item project)",
        request=GenerationPublishSerializer,
        responses={
            201: GenerationReleaseSerializer,
            **BAD,
            **AUTH,
            403: OpenApiResponse(DetailSerializer, description="Not a project admin."),
            **NOT_FOUND,
            409: OpenApiResponse(DetailSerializer, description="No accepted item to publish."),
        },
    )
    def post(self, request: Request, pk: int) -> Response:
        project = staff_project(request, pk)
        if not may_launch(request.user, project):
            raise PermissionDenied("Only a project admin may publish.")
        body = GenerationPublishSerializer(data=request.data)
        if not body.is_valid():
            return Response(flatten_errors(body.errors), status=status.HTTP_400_BAD_REQUEST)
        note = body.validated_data.get("note", "")
        if "\x00" in note:
            return Response({"note": ["NUL characters are not allowed"]}, status=400)
        try:
            release = publish_release(project=project, note=note, by=request.user)
        except NothingToRelease as error:
            return Response({"detail": str(error)}, status=status.HTTP_409_CONFLICT)
        return Response(GenerationReleaseSerializer(release).data, status=status.HTTP_201_CREATED)


class GenerationReportView(APIView):
    @extend_schema(
        tags=TAGS,
        summary="Generation report per fallacy type and method, across finished jobs",
        description="Mean judge score and share of scores 0/1/2/3, facts proposed / valid / "
        "rejected, solutions, items and the reviewers' acceptance rate.",
        parameters=[OpenApiParameter("project", int, description="Only this project's jobs.")],
        responses={200: GenerationReportRowSerializer(many=True), **AUTH, **NOT_FOUND},
    )
    def get(self, request: Request) -> Response:
        jobs = visible_jobs(request).filter(status=GenerationJob.Status.DONE)
        project = project_filter(request)
        if project:
            jobs = jobs.filter(project_id=project)
        return Response(generation_report(jobs))


def generation_credentials(user: Any) -> list[dict[str, Any]]:
    """The credentials a generation job of the user may name: those of the projects they
    administer, every one when they may create a project (its name may be listed)."""
    ids = access.admin_project_ids(user)
    if ids is None or may_create_projects(user):
        return credential_options(None)
    return credential_options(list(Project.objects.filter(pk__in=ids).only("id", "name")))


class GenerationCredentialsView(APIView):
    @extend_schema(
        tags=TAGS,
        summary="The operator's model-server credentials a job may name (names, never keys)",
        responses={200: CredentialOptionSerializer(many=True), **AUTH, 403: DetailSerializer},
    )
    def get(self, request: Request) -> Response:
        if not may_generate(request.user):
            raise PermissionDenied("Only those who may generate items see the credentials.")
        return Response(generation_credentials(request.user))


class GenerationOptionsView(APIView):
    @extend_schema(
        tags=TAGS,
        summary="What the generation launch form offers: fitting projects, local models",
        responses={200: GenerationOptionsSerializer, **AUTH, 403: DetailSerializer},
    )
    def get(self, request: Request) -> Response:
        can_create = may_create_projects(request.user)
        if not may_generate(request.user):
            raise PermissionDenied("Only project admins and project creators generate items.")
        return Response(
            {
                "projects": [
                    {"id": p.pk, "name": p.name} for p in generation_projects(request.user)
                ],
                "can_create": can_create,
                "models": generation_models(),
                "backends": sorted(set(BACKENDS) - set(BASELINES)),
                "credentials": generation_credentials(request.user),
            }
        )
