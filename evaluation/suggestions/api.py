"""REST API of suggestions: a finished run's labels offered to annotators (routes: ``urls``).

- ``GET|PUT /api/evaluation/projects/<id>/suggestions/settings/``: whether the project is
  assisted, and the annotators' queue ordering (``position``, or ``disagreement``: documents
  where the suggesting runs disagree first) (members read; admins change).
- ``POST /api/evaluation/projects/<id>/suggestions/``: a project admin turns finished runs
  into suggestions (idempotent); every refused run named, nothing created.
- ``GET /api/evaluation/projects/<id>/suggestions/report/``: reviewers and admins: per run
  and label, suggestions, acceptances, rejections and the acceptance rate; and the time per
  document of annotations with and without suggestions shown.
- ``GET /api/evaluation/documents/<id>/suggestions/``: the suggestions of a document with
  my decisions. Annotators: only on a document of their queue, and none when the project
  is unassisted; reviewers and admins see them either way.
- ``POST /api/evaluation/suggestions/<id>/decision/``: accept or reject (201; the same
  decision again 200; the other one 409).
- ``POST /api/evaluation/documents/<id>/suggestions/accept-sentence/``: accept every
  undecided suggestion of one sentence.

Visibility follows the document endpoints: a project or document the user cannot see is a
404, and so is a suggestion an annotator is not shown; a non-admin changing things a 403.
Views are thin: the writes are ``evaluation.suggestions.services``.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema
from fallacy_platform.api.lookups import member_project, require, staff_project, visible_document
from fallacy_platform.api.mixins import ServiceErrorsMixin
from fallacy_platform.api.serializers import END_HELP, INVALID, START_HELP, forbidden, not_found
from fallacy_platform.inputs import StrictBooleanField
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotations.models import Project
from annotations.selectors.access import documents_for
from annotations.selectors.policy import may_configure, may_launch
from evaluation.access import suggestions_for
from evaluation.models import ModelRun, Suggestion, SuggestionDecision
from evaluation.suggestions import reports, services

TAGS = ["suggestions"]


class AssistedSerializer(serializers.Serializer):
    assisted = serializers.BooleanField()
    ordering = serializers.ChoiceField(
        choices=list(services.ORDERINGS),
        help_text="Annotators' queue: position (project order) or disagreement (documents "
        "where the suggesting runs disagree first).",
    )


class SettingsChangeSerializer(serializers.Serializer):
    """What to change (a field left out stays as it is)."""

    assisted = StrictBooleanField(required=False)
    ordering = serializers.ChoiceField(choices=list(services.ORDERINGS), required=False)


class CreateSuggestionsSerializer(serializers.Serializer):
    runs = serializers.ListField(
        child=serializers.IntegerField(min_value=1), min_length=1, max_length=100
    )


class RunCountsSerializer(serializers.Serializer):
    run = serializers.IntegerField()
    name = serializers.CharField()
    created = serializers.IntegerField(help_text="Suggestions made now.")
    existing = serializers.IntegerField(help_text="Suggestions the run had already.")
    no_fallacy = serializers.IntegerField(help_text="Units whose labels name no fallacy type.")
    skipped = serializers.ListField(child=serializers.CharField())


class CreatedSuggestionsSerializer(serializers.Serializer):
    created = serializers.IntegerField()
    runs = RunCountsSerializer(many=True)


class SuggestionRunSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    model_label = serializers.CharField(help_text="The model's readable name (never a path).")


class SuggestionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    run = SuggestionRunSerializer()
    unit_index = serializers.IntegerField()
    start = serializers.IntegerField(help_text=START_HELP)
    end = serializers.IntegerField(help_text=END_HELP)
    labels = serializers.ListField(child=serializers.CharField())
    decision = serializers.ChoiceField(
        choices=["accept", "reject"], allow_null=True, help_text="Mine; null: undecided."
    )
    span = serializers.IntegerField(allow_null=True, help_text="The span my accept made.")


class DocumentSuggestionsSerializer(serializers.Serializer):
    assisted = serializers.BooleanField()
    suggestions = SuggestionSerializer(many=True)


class DecisionRequestSerializer(serializers.Serializer):
    decision = serializers.ChoiceField(choices=["accept", "reject"])


class DecisionSerializer(serializers.Serializer):
    suggestion = serializers.IntegerField(source="suggestion_id")
    annotator = serializers.IntegerField(source="annotator_id")
    decision = serializers.CharField()
    decided_at = serializers.DateTimeField()
    span = serializers.IntegerField(
        source="span_id", allow_null=True, help_text="Accepted: the span the accept made."
    )


class DecisionConflictSerializer(serializers.Serializer):
    detail = serializers.CharField()
    current = DecisionSerializer()


class AcceptSentenceSerializer(serializers.Serializer):
    unit_index = serializers.IntegerField(min_value=0, max_value=2**31 - 1)


class AcceptedSentenceSerializer(serializers.Serializer):
    decisions = DecisionSerializer(many=True)


class ReportRowSerializer(serializers.Serializer):
    run = serializers.IntegerField()
    run_name = serializers.CharField()
    label = serializers.CharField()
    suggestions = serializers.IntegerField()
    accepted = serializers.IntegerField()
    rejected = serializers.IntegerField()
    acceptance_rate = serializers.FloatField(allow_null=True)


class TimingSerializer(serializers.Serializer):
    annotations = serializers.IntegerField(help_text="Submitted annotations measured.")
    mean_seconds = serializers.FloatField(allow_null=True)
    median_seconds = serializers.FloatField(allow_null=True)


class RunTimingSerializer(TimingSerializer):
    run = serializers.IntegerField()
    run_name = serializers.CharField()


class TimingReportSerializer(serializers.Serializer):
    measure = serializers.CharField(help_text="What exactly is measured.")
    with_suggestions = TimingSerializer()
    without_suggestions = TimingSerializer()
    runs = RunTimingSerializer(many=True)


class ReportSerializer(serializers.Serializer):
    rows = ReportRowSerializer(many=True)
    timing = TimingReportSerializer()


NOT_FOUND = not_found()
ADMINS_ONLY = "Only a project admin may do this."
FORBIDDEN = forbidden("Not a project admin.")


class SuggestionErrorsMixin(ServiceErrorsMixin):
    """ServiceErrorsMixin, plus: a conflicting decision -> 409 with the stored one."""

    def handle_exception(self, exc: Exception) -> Response:
        if isinstance(exc, services.DecisionConflict):
            body = {"detail": str(exc), "current": DecisionSerializer(exc.current).data}
            return Response(body, status=status.HTTP_409_CONFLICT)
        return super().handle_exception(exc)


class AssistedView(SuggestionErrorsMixin, APIView):
    @extend_schema(
        tags=TAGS,
        summary="Whether the project's annotators are shown suggestions",
        responses={200: AssistedSerializer, **NOT_FOUND},
    )
    def get(self, request: Request, pk: int) -> Response:
        project = member_project(request, pk)
        return Response(_settings(project))

    @extend_schema(
        tags=TAGS,
        summary="Make the project assisted or unassisted; order its annotators' queue",
        description="Project admins only; a field left out is kept. Unassisted (the "
        "default) suits agreement studies and human baselines: annotators are served no "
        "suggestion. ordering=disagreement puts the documents where the suggesting runs "
        "disagree first in the annotators' queue (next document; their document list's "
        "default order); it reads a score stored when suggestions are created.",
        request=SettingsChangeSerializer,
        responses={200: AssistedSerializer, **INVALID, **FORBIDDEN, **NOT_FOUND},
    )
    def put(self, request: Request, pk: int) -> Response:
        project = member_project(request, pk, may_configure, ADMINS_ONLY)
        body = SettingsChangeSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        change = body.validated_data
        if "assisted" in change:
            services.set_assisted(project=project, assisted=change["assisted"], by=request.user)
        if "ordering" in change:
            services.set_ordering(project=project, ordering=change["ordering"], by=request.user)
        return Response(_settings(project))


def _settings(project: Project) -> dict[str, Any]:
    return {
        "assisted": services.is_assisted(project),
        "ordering": services.queue_ordering(project),
    }


class CreateSuggestionsView(SuggestionErrorsMixin, APIView):
    @extend_schema(
        tags=TAGS,
        summary="Turn finished runs into suggestions for the project's documents",
        description="Project admins only. One suggestion per sentence whose parsed labels "
        "name a fallacy type; running it again creates nothing new. A run that is not "
        "finished, of another project or answering items is refused by name, nothing "
        "created.",
        request=CreateSuggestionsSerializer,
        responses={201: CreatedSuggestionsSerializer, **INVALID, **FORBIDDEN, **NOT_FOUND},
    )
    def post(self, request: Request, pk: int) -> Response:
        project = staff_project(request, pk)
        require(may_launch(request.user, project), ADMINS_ONLY)
        body = CreateSuggestionsSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        ids = list(dict.fromkeys(body.validated_data["runs"]))
        found = ModelRun.objects.filter(project=project).in_bulk(ids)
        missing = [i for i in ids if i not in found]
        if missing:
            return Response(
                {"runs": [f"no run with id {i} in project '{project.name}'" for i in missing]},
                status=status.HTTP_400_BAD_REQUEST,
            )
        runs = [found[i] for i in ids]
        report = services.create_suggestions(project=project, runs=runs, by=request.user)
        rows = [
            {
                "run": run.pk,
                "name": run.name,
                "created": report.created[run.pk],
                "existing": report.existing[run.pk],
                "no_fallacy": report.no_fallacy[run.pk],
                "skipped": report.skipped[run.pk],
            }
            for run in runs
        ]
        return Response(
            {"created": report.total_created, "runs": rows}, status=status.HTTP_201_CREATED
        )


class SuggestionReportView(APIView):
    @extend_schema(
        tags=TAGS,
        summary="Per run and label: suggestions, acceptances, rejections, acceptance rate; "
        "time per document with and without suggestions",
        description="Reviewers and admins of the project. The acceptance rate is accepted / "
        "decided (null when nothing was decided); a suggestion with several labels counts "
        "under each. timing.measure says exactly what the times are: " + reports.TIMING_MEASURE,
        responses={200: ReportSerializer, **NOT_FOUND},
    )
    def get(self, request: Request, pk: int) -> Response:
        project = staff_project(request, pk)
        return Response(
            {
                "rows": reports.suggestion_report(project),
                "timing": reports.suggestion_timing(project),
            }
        )


def _rows(suggestions: list[Suggestion], mine: dict[int, SuggestionDecision]) -> list[Any]:
    rows = []
    for suggestion in suggestions:
        decided = mine.get(suggestion.pk)
        rows.append(
            {
                "id": suggestion.pk,
                "run": {
                    "id": suggestion.run_id,
                    "name": suggestion.run.name,
                    "model_label": suggestion.run.model_label,
                },
                "unit_index": suggestion.unit_index,
                "start": suggestion.start,
                "end": suggestion.end,
                "labels": suggestion.labels,
                "decision": decided.decision if decided else None,
                "span": decided.span_id if decided else None,
            }
        )
    return rows


class DocumentSuggestionsView(APIView):
    @extend_schema(
        tags=TAGS,
        summary="The suggestions of a document, with my decisions",
        description="Annotators: a document of their queue, and no suggestion when the "
        "project is unassisted. Reviewers and admins see them either way. Suggestions are "
        "not annotations: they appear in no annotation, agreement, gold or export. The "
        "first time an assisted project's suggestions are served to an annotator the "
        "document is assigned to is recorded (the report's time with suggestions).",
        responses={200: DocumentSuggestionsSerializer, **NOT_FOUND},
    )
    def get(self, request: Request, pk: int) -> Response:
        document = visible_document(request, pk)
        assisted = services.is_assisted(document.project_id)
        suggestions = list(
            suggestions_for(request.user, document, assisted=assisted)
            .select_related("run")
            .order_by("start", "run_id", "pk")
        )
        if assisted and suggestions:
            # the report's "with suggestions": served to an annotator assigned the document
            services.record_shown(document=document, annotator=request.user)
        mine = {
            d.suggestion_id: d
            for d in SuggestionDecision.objects.filter(
                suggestion__document=document, annotator=request.user
            )
        }
        return Response({"assisted": assisted, "suggestions": _rows(suggestions, mine)})


class DecisionView(SuggestionErrorsMixin, APIView):
    @extend_schema(
        tags=TAGS,
        summary="Accept or reject a suggestion",
        description="Accept: the suggestion becomes my own span (its range and labels, "
        "empty details), editable like any other. Reject: recorded only. The same decision "
        "again answers 200 with the stored one; the other decision is a 409. A suggestion "
        "of a document outside my queue, or of an unassisted project, is a 404; a "
        "submitted annotation is read-only (400).",
        request=DecisionRequestSerializer,
        responses={
            200: DecisionSerializer,
            201: DecisionSerializer,
            **INVALID,
            **NOT_FOUND,
            409: OpenApiResponse(DecisionConflictSerializer, description="Decided otherwise."),
        },
    )
    def post(self, request: Request, pk: int) -> Response:
        suggestion = Suggestion.objects.filter(
            pk=pk, document__in=documents_for(request.user)
        ).first()
        if suggestion is None:
            raise NotFound()
        body = DecisionRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        decided, created = services.decide_suggestion(
            suggestion=suggestion, annotator=request.user, decision=body.validated_data["decision"]
        )
        code = status.HTTP_201_CREATED if created else status.HTTP_200_OK
        return Response(DecisionSerializer(decided).data, status=code)


class AcceptSentenceView(SuggestionErrorsMixin, APIView):
    @extend_schema(
        tags=TAGS,
        summary="Accept every undecided suggestion of one sentence",
        description="Each becomes my own span; suggestions I decided already stay as they "
        "are. The 404 rules of a single decision apply; an unknown sentence is a 400.",
        request=AcceptSentenceSerializer,
        responses={200: AcceptedSentenceSerializer, **INVALID, **NOT_FOUND},
    )
    def post(self, request: Request, pk: int) -> Response:
        document = visible_document(request, pk)
        body = AcceptSentenceSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        made = services.accept_sentence(
            document=document,
            unit_index=body.validated_data["unit_index"],
            annotator=request.user,
        )
        return Response({"decisions": DecisionSerializer(made, many=True).data})
