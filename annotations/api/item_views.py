"""REST views of item projects: an item with its form, and an annotator's response.

Visibility is that of spans (``annotations.selectors.access``): an annotator sees only the
documents assigned to them and only their own response; reviewers and admins see every
response of their projects and the item's answer key (``gold``), which an annotator never
gets. Anything outside the user's querysets is a 404. Writes go through
``annotations.services.responses``; a stale revision is a 409 whose ``current`` is the
item state as the GET returns it.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from fallacy_platform.api.lookups import visible_document
from rest_framework import status
from rest_framework.exceptions import NotFound
from rest_framework.exceptions import ValidationError as DRFValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotations.api.item_serializers import (
    ItemConflictSerializer,
    ItemStateSerializer,
    ResponseReopenSerializer,
    ResponseSubmitSerializer,
    ResponseWriteSerializer,
    item_state,
)
from annotations.api.views import AnnotationErrorsMixin
from annotations.models import Annotation, Document
from annotations.selectors.access import annotations_for, role_in
from annotations.services import annotations as span_services
from annotations.services import responses as services

ANNOTATOR_PARAM = OpenApiParameter(
    "annotator",
    int,
    required=False,
    description="Reviewers and admins: whose response to show (default: mine).",
)


class ItemViewBase(AnnotationErrorsMixin, APIView):
    """Looks up the document and the annotation shown; renders the item state."""

    def _annotation(self, document: Document, annotator_id: int) -> Annotation | None:
        return (
            annotations_for(self.request.user)
            .select_related("annotator")
            .filter(document=document, annotator_id=annotator_id)
            .first()
        )

    def _state(self, document: Document, annotation: Annotation | None) -> dict[str, Any]:
        role = role_in(self.request.user, document.project_id)
        return item_state(document, annotation, role=role)

    def _fresh(self, document: Document, annotation: Annotation) -> Response:
        return Response(self._state(document, self._annotation(document, annotation.annotator_id)))

    def handle_exception(self, exc: Exception) -> Response:
        if isinstance(exc, services.ConflictError) and isinstance(exc.current, Annotation):
            current = Annotation.objects.select_related("annotator", "document__project").get(
                pk=exc.current.pk
            )
            body = self._state(current.document, current)
            return Response({"detail": str(exc), "current": body}, status=status.HTTP_409_CONFLICT)
        return super().handle_exception(exc)


class ItemResponseView(ItemViewBase):
    @extend_schema(
        tags=["items"],
        summary="An item with its form and a response (mine by default)",
        description="The text, the multiple-choice options, the candidate text, the parsed "
        "form with each field's labels, and the response with its revision (null when not "
        "started). Reviewers and admins also get the answer key (gold) and may ask for "
        "another annotator's response; annotators never see either.",
        parameters=[ANNOTATOR_PARAM],
        responses={200: ItemStateSerializer},
    )
    def get(self, request: Request, pk: int) -> Response:
        document = visible_document(self.request, pk)
        annotator_id = request.user.pk
        raw = request.query_params.get("annotator")
        if raw not in (None, ""):
            try:
                annotator_id = int(raw)
            except ValueError as exc:
                raise DRFValidationError({"annotator": ["must be a user id"]}) from exc
        annotation = self._annotation(document, annotator_id)
        if annotation is None and annotator_id != request.user.pk:
            raise NotFound()  # someone else's response the user may not see (or none)
        return Response(self._state(document, annotation))

    def _write(self, request: Request, pk: int, *, merge: bool) -> Response:
        document = visible_document(self.request, pk)
        data = ResponseWriteSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        annotation = services.start_and_save_response(
            document=document,
            annotator=request.user,
            response=data.validated_data["response"],
            expected_revision=data.validated_data.get("revision"),
            merge=merge,
        )
        return self._fresh(document, annotation)

    @extend_schema(
        tags=["items"],
        summary="Change some answers of my response",
        description="The fields sent replace theirs (null clears one); the others stay. "
        "The first save starts my annotation (revision null or absent). 400 names the "
        "field (response.<field>); 409 with the current state when the revision is stale.",
        request=ResponseWriteSerializer,
        responses={200: ItemStateSerializer, 400: OpenApiResponse(), 409: ItemConflictSerializer},
    )
    def patch(self, request: Request, pk: int) -> Response:
        return self._write(request, pk, merge=True)

    @extend_schema(
        tags=["items"],
        summary="Replace my whole response",
        description="Fields left out become unanswered. Otherwise as PATCH.",
        request=ResponseWriteSerializer,
        responses={200: ItemStateSerializer, 400: OpenApiResponse(), 409: ItemConflictSerializer},
    )
    def put(self, request: Request, pk: int) -> Response:
        return self._write(request, pk, merge=False)


class ItemSubmitView(ItemViewBase):
    @extend_schema(
        tags=["items"],
        summary="Submit my response (read-only until a reviewer reopens it)",
        description="Every answer field (not likert/rubric) must be answered: 400 names "
        "each missing one (response.<field>).",
        request=ResponseSubmitSerializer,
        responses={200: ItemStateSerializer, 400: OpenApiResponse(), 409: ItemConflictSerializer},
    )
    def post(self, request: Request, pk: int) -> Response:
        document = visible_document(self.request, pk)
        data = ResponseSubmitSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        annotation = self._annotation(document, request.user.pk)
        if annotation is None:
            raise DRFValidationError({"response": ["nothing answered yet"]})
        annotation = services.submit_response(
            annotation=annotation,
            expected_revision=data.validated_data["revision"],
            by=request.user,
        )
        return self._fresh(document, annotation)


class ItemReopenView(ItemViewBase):
    @extend_schema(
        tags=["items"],
        summary="Reopen an annotator's submitted response (reviewers and admins)",
        request=ResponseReopenSerializer,
        responses={200: ItemStateSerializer},
    )
    def post(self, request: Request, pk: int) -> Response:
        document = visible_document(self.request, pk)
        data = ResponseReopenSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        annotation = self._annotation(document, data.validated_data["annotator"])
        if annotation is None:
            raise NotFound()
        annotation = span_services.reopen_annotation(annotation=annotation, by=request.user)
        return self._fresh(document, annotation)
