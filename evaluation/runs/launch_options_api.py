"""REST API of what a launch form offers for a project (view routed by
``evaluation.runs.urls``): its gold versions or form fields, the backends, models and
credentials a launch may name (never a path or a key), the prompt variants and the
form's defaults. Reviewers and admins of the project see it; ``can_launch`` says whether
the user may launch there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.conf import settings
from drf_spectacular.utils import OpenApiParameter, extend_schema
from fallacy_platform.api.lookups import staff_project
from fallacy_platform.query import query_id
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotations.items import FormError, parse_form
from annotations.models import Project
from annotations.selectors.access import gold_standards_for
from annotations.selectors.policy import may_launch
from evaluation import ownership
from evaluation.backends import BACKENDS, GenerationParams
from evaluation.backends.credentials import credentials
from evaluation.backends.registry import registry
from evaluation.benchmarks.items import ITEM_TASKS
from evaluation.benchmarks.mafalda import MafaldaTask
from evaluation.models import PromptVariant
from evaluation.runs import selectors
from evaluation.runs.api import ERRORS, TAGS
from evaluation.runs.launch_options_serializers import LaunchOptionsSerializer
from evaluation.runs.serializers import VariantSerializer

#: A first span run reads this many texts (the whole gold version is one click away).
SAMPLE_TEXTS = 2
#: The decoding the launch form offers: what ``bench/eval_throughput.py`` measures.
LAUNCH_MAX_NEW_TOKENS = 24


def launch_defaults(kind: str) -> dict[str, Any]:
    """The launch form's defaults (``bench/demo_run.py`` launches with them too): a short
    sample of a span project's gold texts, all of an item project's items."""
    return {
        "level": 2,
        "limit": None if kind == "items" else SAMPLE_TEXTS,
        "shards": None,
        "params": GenerationParams(max_new_tokens=LAUNCH_MAX_NEW_TOKENS).to_dict(),
    }


def registered_models() -> list[dict[str, Any]]:
    """The operator's registered models a launch may name: names and backends, no path."""
    return [
        {"name": entry.name, "backends": list(entry.backends)}
        for entry in sorted(registry().values(), key=lambda e: e.name)
    ]


def credential_options(projects: Sequence[Project] | None) -> list[dict[str, Any]]:
    """The operator's credentials a run of one of ``projects`` may name (None: of any
    project): names and servers, never keys."""
    return [
        {"name": name, "base_urls": list(credential.base_urls)}
        for name, credential in sorted(credentials().items())
        if projects is None or any(credential.allows_project(p) for p in projects)
    ]


def newest_first(variants: list[PromptVariant]) -> list[PromptVariant]:
    """The newest version of each name first (by name), then the older versions."""
    newest: dict[str, int] = {}
    for variant in variants:
        newest[variant.name] = max(newest.get(variant.name, 0), variant.version)
    return sorted(
        variants, key=lambda v: (v.version != newest[v.name], v.name.casefold(), -v.version)
    )


@extend_schema(tags=TAGS)
class LaunchOptionsView(APIView):
    @extend_schema(
        summary="What a launch form offers for a project",
        parameters=[OpenApiParameter("project", int, required=True)],
        responses={200: LaunchOptionsSerializer, **ERRORS},
    )
    def get(self, request: Request) -> Response:
        project_id = query_id(request, "project", required=True)
        assert project_id is not None  # required
        project = staff_project(request, project_id)
        golds = gold_standards_for(request.user).filter(project=project).order_by("-version")
        fields: list[dict[str, str]] = []
        if project.kind == "items":
            try:
                form_fields = parse_form(project.form).fields
            except FormError:
                form_fields = ()
            fields = [{"name": f.name, "kind": f.kind, "title": f.title} for f in form_fields]
            variants = ownership.variants_for(project).filter(task__in=sorted(ITEM_TASKS))
        else:
            variants = ownership.variants_for(project).filter(task=MafaldaTask.name)
        return Response(
            {
                "can_launch": may_launch(request.user, project),
                "kind": project.kind,
                "fields": fields,
                "gold_standards": [
                    {
                        "id": gold.pk,
                        "version": gold.version,
                        "status": gold.status,
                        "documents": gold.documents.count(),
                    }
                    for gold in golds
                ],
                "backends": sorted(BACKENDS),
                "suggested_models": selectors.suggested_models(),
                "registered_models": registered_models(),
                "hub_allowed": list(settings.MODEL_HUB_ALLOWED),
                "credentials": credential_options([project]),
                "variants": VariantSerializer(newest_first(list(variants)), many=True).data,
                "levels": [2, 1, 0],
                "defaults": launch_defaults(project.kind),
            }
        )
