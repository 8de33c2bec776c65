"""REST API for scoring stored runs and annotators and for agreement (thin views); the
evaluation-jobs API is ``evaluation.runs.api`` (serializers in ``runs.serializers``).

Everything here belongs to the reviewers and admins of a project (superusers everywhere).
A gold standard or run outside ``gold_standards_for`` / ``runs_for`` is a 404, so its
existence does not leak. Option checks live in the serializers; the work in
``evaluation.runs.selectors`` / ``evaluation.runs.stored`` and the scoring package.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from fallacy_platform.query import QuerySerializer
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.exceptions import ValidationError as DRFValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotations.models import GoldStandard, Membership
from annotations.selectors.access import gold_standards_for
from evaluation.access import visible_run
from evaluation.models import ModelRun
from evaluation.runs import selectors, stored
from evaluation.runs.scored import score_stored
from evaluation.runs.scorers import ITEMS, run_scorer, task_kind
from evaluation.scoring import AVERAGES, PARSER_NAMES, PROFILES, ScoringInputError
from evaluation.scoring.item_profiles import DEFINITION
from evaluation.scoring.item_profiles import PROFILES as ITEM_PROFILES

LEVEL_CHOICES = (0, 1, 2)
SPAN_PROFILE = "paper"  # humans produce spans; mafalda-2024 scores per-sentence outputs only


def visible_gold(request: Request, pk: int) -> GoldStandard:
    gold = (
        gold_standards_for(request.user).select_related("project__taxonomy").filter(pk=pk).first()
    )
    if gold is None:
        raise NotFound("No gold standard with this id.")
    return gold


class ScoringErrorsMixin:
    """Invalid stored data for the scorer (e.g. a label outside the taxonomy) -> 400."""

    def handle_exception(self, exc: Exception) -> Response:
        if isinstance(exc, ScoringInputError):
            exc = DRFValidationError({"detail": str(exc)})
        return super().handle_exception(exc)  # type: ignore[misc]


# --- serializers ----------------------------------------------------------------------------


class ScoreRequestSerializer(serializers.Serializer):
    gold_standard = serializers.IntegerField(
        required=False,
        allow_null=True,
        help_text="Gold standard version id (span runs and annotators; an item run is scored "
        "against its items' answer key, without one).",
    )
    run = serializers.IntegerField(
        required=False, allow_null=True, help_text="A run of the gold's project."
    )
    annotator = serializers.IntegerField(
        required=False,
        allow_null=True,
        help_text="User id: their submitted annotations in the gold's project, scored on "
        "the gold's documents they submitted.",
    )
    levels = serializers.ListField(
        child=serializers.ChoiceField(choices=LEVEL_CHOICES),
        allow_empty=False,
        default=list(LEVEL_CHOICES),
    )
    profile = serializers.ChoiceField(
        choices=[*PROFILES, *ITEM_PROFILES, "items"],
        required=False,
        help_text="Spans: paper (default) or mafalda-2024; item runs: definition (default) or "
        "their benchmark's.",
    )
    parser = serializers.ChoiceField(
        choices=PARSER_NAMES,
        required=False,
        help_text="Reads raw run outputs (default: the run's own, as the leaderboard scores "
        "it); ignored for annotators.",
    )
    average = serializers.ChoiceField(choices=AVERAGES, default="text")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        run_id, annotator_id = attrs.get("run"), attrs.get("annotator")
        if (run_id is None) == (annotator_id is None):
            raise serializers.ValidationError(
                {"non_field_errors": ["Give exactly one of `run` and `annotator`."]}
            )
        if attrs.get("gold_standard") is None:
            return self._item_run(attrs)
        attrs["profile"] = attrs.get("profile") or SPAN_PROFILE
        if attrs["profile"] not in PROFILES:
            raise serializers.ValidationError(
                {"profile": [f"Spans are scored with profile {' or '.join(PROFILES)}."]}
            )
        gold = visible_gold(self.context["request"], attrs["gold_standard"])
        attrs["gold_standard"] = gold
        attrs["levels"] = sorted(set(attrs["levels"]))
        if run_id is not None:
            run = ModelRun.objects.filter(pk=run_id, project_id=gold.project_id).first()
            if run is None:
                raise serializers.ValidationError(
                    {"run": ["No run with this id in the gold standard's project."]}
                )
            attrs["run"] = run
            return attrs
        if attrs["profile"] != SPAN_PROFILE:
            raise serializers.ValidationError(
                {
                    "profile": [
                        f"Annotators are scored with profile {SPAN_PROFILE!r} only "
                        "(mafalda-2024 scores per-sentence model outputs)."
                    ]
                }
            )
        member = Membership.objects.filter(project_id=gold.project_id, user_id=annotator_id)
        if not member.exists():
            raise serializers.ValidationError(
                {"annotator": ["No member with this id in the gold standard's project."]}
            )
        if not stored.submitted_annotations(
            gold.project, annotator_id, gold_standard=gold
        ).exists():
            raise serializers.ValidationError(
                {"annotator": ["No submitted annotation on this gold standard's documents."]}
            )
        attrs["annotator"] = get_user_model().objects.get(pk=annotator_id)
        return attrs

    def _item_run(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """An item run, scored without a gold version (span runs and annotators need one)."""
        run_id = attrs.get("run")
        run = visible_run(self.context["request"], run_id) if run_id is not None else None
        if run is None or task_kind(run.task) != ITEMS:
            raise serializers.ValidationError(
                {"gold_standard": ["Required, but for an item run (scored on its items)."]}
            )
        attrs["run"], attrs["profile"] = run, attrs.get("profile") or DEFINITION
        return attrs


class AgreementQuerySerializer(QuerySerializer):
    gold_standard = serializers.IntegerField()
    profile = serializers.ChoiceField(
        choices=(SPAN_PROFILE,),
        default=SPAN_PROFILE,
        help_text="Annotators produce spans: profile paper only.",
        error_messages={
            "invalid_choice": f'"{{input}}" is not available: agreement uses profile '
            f"{SPAN_PROFILE!r} only (mafalda-2024 scores per-sentence model outputs)."
        },
    )
    average = serializers.ChoiceField(choices=AVERAGES, default="text")


# --- evaluation jobs: errors ----------------------------------------------------------------


class ScoreView(ScoringErrorsMixin, APIView):
    @extend_schema(
        tags=["evaluation"],
        summary="Score a stored run or an annotator against a gold standard version",
        description="Exactly one of `run` and `annotator`. An item run is scored without "
        "`gold_standard`, against its items' answer key: its report as stored under `profile` "
        "(with `coverage` `{items, of}`). Otherwise the answer is the scoring "
        "report: profile, parser, average, texts and, per level, P/R/F1 with span counts, "
        "a bootstrap 95% interval of F1, per-label scores and a confusion table; "
        "`coverage` `{texts, of}`: the version's texts it was scored on (a limited run: its "
        "first N; an imported run: those it has outputs for; an annotator: those they "
        "submitted), the same figures as the leaderboard's. Parser: the run's own by default. "
        "Reviewers and admins of the gold's project only (404 otherwise).",
        request=ScoreRequestSerializer,
        responses={
            200: OpenApiResponse(OpenApiTypes.OBJECT, description="The scoring report."),
            400: OpenApiResponse(description="Invalid options, named by field."),
            404: OpenApiResponse(description="No visible gold standard with this id."),
        },
    )
    def post(self, request: Request) -> Response:
        options = ScoreRequestSerializer(data=request.data, context={"request": request})
        options.is_valid(raise_exception=True)
        data = options.validated_data
        if data.get("gold_standard") is None:  # an item run
            scoring = run_scorer(data["run"]).score(data["run"], profile=data["profile"])
            return Response({**scoring.report, "coverage": scoring.coverage.to_dict()})
        found = score_stored(
            gold_standard=data["gold_standard"],
            run=data.get("run"),
            annotator=data.get("annotator"),
            profile=data["profile"],
            levels=data["levels"],
            parser=data.get("parser"),
            average=data["average"],
        )
        return Response(found.to_dict())


class AgreementView(ScoringErrorsMixin, APIView):
    @extend_schema(
        tags=["evaluation"],
        summary="Inter-annotator agreement on a gold standard version's documents",
        description="The annotators (users with a submitted annotation on the version's "
        "documents) each in turn as the reference, every other one scored against it "
        "(n x (n - 1) pairs), and each one against the gold; all on the documents every "
        "one of them submitted. P/R/F1 per level, profile paper.",
        parameters=[AgreementQuerySerializer],
        responses={
            200: OpenApiResponse(OpenApiTypes.OBJECT, description="Pairs and vs-gold scores."),
            404: OpenApiResponse(description="No visible gold standard with this id."),
        },
    )
    def get(self, request: Request) -> Response:
        query = AgreementQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        gold = visible_gold(request, query.validated_data["gold_standard"])
        return Response(
            selectors.annotator_agreement(
                gold_standard=gold, average=query.validated_data["average"]
            )
        )
