"""Thin REST views over the access selectors and the annotation services.

Visibility comes from ``annotations.selectors.access``: whatever is outside the user's
querysets is a 404, so existence does not leak. Writes go through
``annotations.services.annotations``; its errors map to HTTP here (``AnnotationErrorsMixin``).
"""

from __future__ import annotations

from typing import Any

from django.db.models import Exists, OuterRef, Subquery
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from fallacy_platform.api.lookups import member_project, visible_document
from fallacy_platform.api.mixins import ServiceErrorsMixin, conflict
from rest_framework import generics, status
from rest_framework.exceptions import NotFound
from rest_framework.exceptions import ValidationError as DRFValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotations.api.serializers import (
    AnnotationConflictSerializer,
    AnnotationSerializer,
    DocumentSerializer,
    NeighboursSerializer,
    NextDocumentSerializer,
    SpanConflictSerializer,
    SpanCreateSerializer,
    SpanDeleteQuerySerializer,
    SpanPatchSerializer,
    SpanSerializer,
    SubmitSerializer,
    span_data,
)
from annotations.api.span_input import span_create_input, span_delete_revision, span_patch_input
from annotations.models import Annotation, Assignment, Document, Span
from annotations.selectors.access import documents_for
from annotations.selectors.annotations import (
    annotation_with_spans,
    visible_annotations,
    visible_spans,
)
from annotations.selectors.queue import document_neighbours, next_document
from annotations.services import annotations as services
from annotations.services.responses import submit_response


class AnnotationErrorsMixin(ServiceErrorsMixin):
    """``ServiceErrorsMixin``, plus: a stale revision (``ConflictError``) -> 409 with the
    span or annotation as it is now."""

    def handle_exception(self, exc: Exception) -> Response:
        if isinstance(exc, services.ConflictError):
            current = exc.current
            if isinstance(current, Span):
                return conflict(exc, current=SpanSerializer(current).data)
            annotation = annotation_with_spans(Annotation.objects.filter(pk=current.pk)).get()
            return conflict(exc, current=AnnotationSerializer(annotation).data)
        return super().handle_exception(exc)


# --- projects -----------------------------------------------------------------------------


# The project list and detail (with create, change, archive) are in admin_views.


class NextDocumentView(APIView):
    @extend_schema(
        tags=["projects"],
        summary="My next document to annotate",
        description="The first document assigned to me, in project order, whose annotation "
        "by me is not submitted; null when my queue is done.",
        responses={200: NextDocumentSerializer},
    )
    def get(self, request: Request, pk: int) -> Response:
        document = next_document(request.user, member_project(request, pk))
        return Response({"document": document.pk if document else None})


# --- documents and annotations ------------------------------------------------------------


class DocumentNeighboursView(APIView):
    @extend_schema(
        tags=["documents"],
        summary="The previous and next document of my queue",
        description="Around this document, submitted or not: in my queue's order when it is "
        "assigned to me (the documents assigned to me), else in project order among the "
        "documents I see of its project; with ?annotator=ID (reviewers and admins), among "
        "the documents that annotator has an annotation on.",
        responses={200: NeighboursSerializer},
    )
    def get(self, request: Request, pk: int) -> Response:
        raw = request.query_params.get("annotator", "")
        if raw and not raw.isdigit():
            raise DRFValidationError({"annotator": ["must be a user id"]})
        neighbours = document_neighbours(request.user, pk, annotator=int(raw) if raw else None)
        if neighbours is None:
            raise NotFound()
        return Response(NeighboursSerializer(vars(neighbours)).data)


@extend_schema(tags=["documents"], summary="A document's text and sentences")
class DocumentDetailView(generics.RetrieveAPIView):
    serializer_class = DocumentSerializer

    def get_queryset(self) -> Any:
        user = self.request.user
        mine = Annotation.objects.filter(document=OuterRef("pk"), annotator=user)
        assigned = Assignment.objects.filter(document=OuterRef("pk"), annotator=user)
        return (
            documents_for(user)
            .annotate(
                my_annotation_status=Subquery(mine.values("status")[:1]),
                assigned_to_me=Exists(assigned),
            )
            .prefetch_related("sentences")
        )


class MyAnnotationView(AnnotationErrorsMixin, APIView):
    def _annotation(self, document: Document, user: Any) -> Annotation:
        return annotation_with_spans(
            Annotation.objects.filter(document=document, annotator=user)
        ).get()

    @extend_schema(
        tags=["annotations"],
        summary="My annotation of a document (404 if I have none)",
        responses={200: AnnotationSerializer},
    )
    def get(self, request: Request, pk: int) -> Response:
        document = visible_document(request, pk)
        return Response(AnnotationSerializer(self._annotation(document, request.user)).data)

    @extend_schema(
        tags=["annotations"],
        summary="Get or start my annotation of a document",
        description="201 when it was created, 200 when it existed. 403 when the document is "
        "not assigned to me.",
        request=None,
        responses={200: AnnotationSerializer, 201: AnnotationSerializer},
    )
    def post(self, request: Request, pk: int) -> Response:
        document = visible_document(request, pk)
        existed = Annotation.objects.filter(document=document, annotator=request.user).exists()
        services.start_annotation(document=document, annotator=request.user)
        return Response(
            AnnotationSerializer(self._annotation(document, request.user)).data,
            status=status.HTTP_200_OK if existed else status.HTTP_201_CREATED,
        )


@extend_schema(tags=["annotations"], summary="An annotation with its spans")
class AnnotationDetailView(generics.RetrieveAPIView):
    serializer_class = AnnotationSerializer

    def get_queryset(self) -> Any:
        return visible_annotations(self.request.user)


class SpanListCreateView(AnnotationErrorsMixin, APIView):
    @extend_schema(
        tags=["spans"],
        summary="The spans of an annotation",
        responses={200: SpanSerializer(many=True)},
    )
    def get(self, request: Request, pk: int) -> Response:
        annotation = get_object_or_404(visible_annotations(request.user), pk=pk)
        return Response(SpanSerializer(annotation.spans.all(), many=True).data)

    @extend_schema(
        tags=["spans"],
        summary="Add a span to my annotation",
        description="201 with the new span; 200 with the existing one when client_id was "
        "already used in this annotation (safe retries). Only the annotator writes.",
        request=SpanCreateSerializer,
        responses={200: SpanSerializer, 201: SpanSerializer, 400: OpenApiResponse()},
    )
    def post(self, request: Request, pk: int) -> Response:
        data = span_create_input(request.data)
        # the service locks the annotation among those the user may see (else a 404)
        span, created = services.create_or_get_span(annotation=pk, by=request.user, **data)
        return Response(
            span_data(span), status=status.HTTP_201_CREATED if created else status.HTTP_200_OK
        )


class SpanDetailView(AnnotationErrorsMixin, APIView):
    def _span(self, request: Request, pk: int) -> Span:
        return get_object_or_404(visible_spans(request.user), pk=pk)

    @extend_schema(tags=["spans"], summary="A span", responses={200: SpanSerializer})
    def get(self, request: Request, pk: int) -> Response:
        return Response(SpanSerializer(self._span(request, pk)).data)

    @extend_schema(
        tags=["spans"],
        summary="Change a span of my annotation",
        description="Send the revision you last saw; 409 with the current span if it moved on.",
        request=SpanPatchSerializer,
        responses={200: SpanSerializer, 409: SpanConflictSerializer, 400: OpenApiResponse()},
    )
    def patch(self, request: Request, pk: int) -> Response:
        changes = span_patch_input(request.data)
        revision = changes.pop("revision")
        # the service locks the span's annotation among those the user may see (else a 404)
        span = services.update_span(span=pk, expected_revision=revision, by=request.user, **changes)
        return Response(span_data(span))

    @extend_schema(
        tags=["spans"],
        summary="Delete a span of my annotation",
        parameters=[SpanDeleteQuerySerializer],  # revision >= 1, as validated
        responses={204: None, 409: SpanConflictSerializer},
    )
    def delete(self, request: Request, pk: int) -> Response:
        revision = span_delete_revision(request.query_params)
        services.delete_span(span=pk, expected_revision=revision, by=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class SubmitView(AnnotationErrorsMixin, APIView):
    @extend_schema(
        tags=["annotations"],
        summary="Submit my annotation (read-only until a reviewer reopens it)",
        request=SubmitSerializer,
        responses={200: AnnotationSerializer, 409: AnnotationConflictSerializer},
    )
    def post(self, request: Request, pk: int) -> Response:
        annotation = get_object_or_404(visible_annotations(request.user), pk=pk)
        data = SubmitSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        # an item annotation is submitted only with every answer given
        submit = (
            submit_response
            if annotation.document.project.kind == "items"
            else services.submit_annotation
        )
        submit(
            annotation=annotation,
            expected_revision=data.validated_data.get("revision"),
            by=request.user,
        )
        fresh = visible_annotations(request.user).get(pk=pk)
        return Response(AnnotationSerializer(fresh).data)


class ReopenView(AnnotationErrorsMixin, APIView):
    @extend_schema(
        tags=["annotations"],
        summary="Reopen a submitted annotation (reviewers and admins of the project)",
        request=None,
        responses={200: AnnotationSerializer},
    )
    def post(self, request: Request, pk: int) -> Response:
        annotation = get_object_or_404(visible_annotations(request.user), pk=pk)
        services.reopen_annotation(annotation=annotation, by=request.user)
        fresh = visible_annotations(request.user).get(pk=pk)
        return Response(AnnotationSerializer(fresh).data)
