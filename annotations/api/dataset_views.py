"""Dataset import and export over REST (thin: the services do the work).

Who may is ``selectors.policy``'s: a project admin (or a superuser) imports; its reviewers
and admins export its gold standards (``may_export_gold``, the rule of every gold export)
and any annotator's annotations (they read them all); every member exports their own. A
project the user is not a member of answers 404.
"""

from __future__ import annotations

import io

from django.contrib.auth.models import AbstractBaseUser
from django.http import HttpResponse, QueryDict
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from fallacy_platform.api.lookups import body_project_id, member_project
from fallacy_platform.api.negotiation import IgnoreFormatParameter
from fallacy_platform.api.serializers import DetailSerializer
from rest_framework import serializers, status
from rest_framework.exceptions import APIException, NotFound, PermissionDenied
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotations.importing.datasets import (
    import_doccano_annotations,
    import_mafalda_gold,
    import_texts,
)
from annotations.importing.formats import DatasetFormatError
from annotations.importing.parsing import parse_upload
from annotations.models import Project
from annotations.selectors.access import users_named_in
from annotations.selectors.policy import may_export_annotations, may_export_gold, may_import
from annotations.services.exports import ExportError, export_doccano, export_mafalda, published_gold
from annotations.services.item_exports import EXPORTERS as ITEM_EXPORTERS
from annotations.services.item_exports import export_items

JSONL = "application/jsonl"
CSV = "text/csv"
SPAN_FORMATS = ("mafalda", "doccano")
EXPORT_FORMATS = (*SPAN_FORMATS, *ITEM_EXPORTERS)
GOLD_EXPORTERS = "only the project's reviewers and admins export its gold standard"
ANNOTATION_EXPORTERS = "only the project's reviewers and admins export others' annotations"
IMPORTERS = "only a project admin may import datasets"


class BadRequest(APIException):
    status_code = status.HTTP_400_BAD_REQUEST
    default_code = "bad_request"


class ImportRequestSerializer(serializers.Serializer):
    file = serializers.FileField()
    format = serializers.ChoiceField(choices=["mafalda", "doccano", "text"])
    project = serializers.IntegerField(help_text="project id")
    annotator = serializers.IntegerField(
        required=False, help_text="user id whose annotations a doccano file holds (required)"
    )


class ImportReportSerializer(serializers.Serializer):
    format = serializers.CharField()
    file = serializers.CharField()
    texts = serializers.IntegerField()
    documents_created = serializers.IntegerField()
    documents_reused = serializers.IntegerField()
    sentences = serializers.IntegerField()
    sentence_units = serializers.IntegerField()
    sentence_units_dropped = serializers.ListField(child=serializers.CharField())
    sentences_added = serializers.IntegerField()
    spans = serializers.IntegerField()
    span_labels = serializers.IntegerField()
    skipped_to_clean = serializers.IntegerField()
    to_clean_lines = serializers.ListField(child=serializers.IntegerField())
    texts_without_spans = serializers.IntegerField()
    texts_without_required_fallacy = serializers.IntegerField()
    gold_version = serializers.IntegerField(allow_null=True)
    annotations_created = serializers.IntegerField()
    annotations_replaced = serializers.IntegerField()


ERRORS = {
    # No body schema here: fallacy_platform.schema adds DRF's (field errors, or {"detail"}).
    400: OpenApiResponse(description='bad request, or a bad file: {"detail": "file:line: …"}'),
    403: OpenApiResponse(
        DetailSerializer, description="your role in the project does not allow it"
    ),
    404: OpenApiResponse(DetailSerializer, description="no such project (for this user)"),
}


def _user(request: Request, project: Project, user_id: int) -> AbstractBaseUser:
    """The account ``user_id`` among those the user may name in the project
    (``access.users_named_in``); any other id, existing or not, is the same 400."""
    user = users_named_in(request.user, project).filter(pk=user_id).first()
    if user is None:
        raise BadRequest(f"no user with id {user_id} in this project")
    return user


class DatasetImportView(APIView):
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        summary="Import a dataset file into a project",
        description=(
            "MAFALDA JSONL becomes the project's next published gold standard version; a "
            "doccano export becomes the annotator's submitted annotations (replacing theirs "
            "on the same texts); text (.txt blocks or .jsonl) adds documents. All or nothing: "
            'a bad file answers 400 with {"detail": "<file>:<line>: <field>: <message>"}.'
        ),
        request={"multipart/form-data": ImportRequestSerializer},
        responses={201: ImportReportSerializer, **ERRORS},
    )
    def post(self, request: Request) -> Response:
        project_id = body_project_id(request.data)
        if project_id is not None:  # roles first: 404 / 403 before a 400
            member_project(request, project_id, may_import, IMPORTERS)
        params = ImportRequestSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        data = params.validated_data
        project = member_project(request, data["project"], may_import, IMPORTERS)
        upload = data["file"]
        try:
            parse_upload(source=upload.file, format=data["format"], name=upload.name)
            if data["format"] == "mafalda":
                report = import_mafalda_gold(
                    path=upload.file, name=upload.name, project=project, created_by=request.user
                )
            elif data["format"] == "doccano":
                if "annotator" not in data:
                    raise BadRequest("annotator is required for doccano files")
                report = import_doccano_annotations(
                    path=upload.file,
                    name=upload.name,
                    project=project,
                    annotator=_user(request, project, data["annotator"]),
                )
            else:
                report = import_texts(path=upload.file, name=upload.name, project=project)
        except DatasetFormatError as error:
            return Response({"detail": str(error)}, status=status.HTTP_400_BAD_REQUEST)
        return Response(report.as_dict(), status=status.HTTP_201_CREATED)


class DatasetExportView(APIView):
    content_negotiation_class = IgnoreFormatParameter

    @extend_schema(
        summary="Export a gold standard, an annotator's annotations or an item project's items",
        description=(
            "Span projects: without annotator, the latest published gold standard (or version "
            "N) as MAFALDA or doccano JSONL (project reviewers and admins); with annotator "
            "(doccano only), that annotator's annotations (project reviewers and admins, or the "
            "annotator themself). Item projects (project reviewers and admins): every item "
            "with its gold as FLUB JSONL, SmartyPat CSV "
            "or the generic items JSONL (with `responses=true`: the submitted answers too)."
        ),
        parameters=[
            OpenApiParameter("project", int, required=True, description="project id"),
            OpenApiParameter("format", str, required=True, enum=list(EXPORT_FORMATS)),
            OpenApiParameter("annotator", int, description="user id (doccano only)"),
            OpenApiParameter("version", int, description="gold standard version"),
            OpenApiParameter(
                "responses", bool, description="items format: add the submitted responses"
            ),
        ],
        responses={(200, JSONL): OpenApiTypes.STR, (200, CSV): OpenApiTypes.STR, **ERRORS},
    )
    def get(self, request: Request) -> HttpResponse:
        query = request.query_params
        file_format = query.get("format")
        if file_format not in EXPORT_FORMATS:
            raise BadRequest(f"format must be one of {', '.join(EXPORT_FORMATS)}")
        project = member_project(request, _integer(query, "project", required=True))
        if file_format in ITEM_EXPORTERS:
            return self.items(request, project, file_format, _boolean(query, "responses"))
        if project.kind == "items":
            raise BadRequest(
                f"an item project exports as {', '.join(ITEM_EXPORTERS)}, not {file_format}"
            )
        annotator_id = _integer(query, "annotator")
        version = _integer(query, "version")
        out = io.StringIO()
        if annotator_id is not None:
            if file_format != "doccano":
                raise BadRequest("annotator needs format=doccano")
            if not may_export_annotations(request.user, project, annotator_id):
                raise PermissionDenied(ANNOTATION_EXPORTERS)
            annotator = _user(request, project, annotator_id)
            export_doccano(project=project, annotator=annotator, out=out)
            filename = f"{project.pk}-annotator-{annotator_id}.jsonl"
        else:
            if not may_export_gold(request.user, project):
                raise PermissionDenied(GOLD_EXPORTERS)
            try:
                gold = published_gold(project, version)
            except ExportError as error:
                raise NotFound(str(error)) from error
            exporter = export_mafalda if file_format == "mafalda" else export_doccano
            exporter(project=project, gold_standard=gold, out=out)
            filename = f"{project.pk}-gold-v{gold.version}-{file_format}.jsonl"
        return _attachment(out.getvalue(), JSONL, filename)

    @staticmethod
    def items(
        request: Request, project: Project, file_format: str, responses: bool
    ) -> HttpResponse:
        if project.kind != "items":
            raise BadRequest(f"format {file_format} is for item projects; this one has spans")
        if not may_export_gold(request.user, project):
            raise PermissionDenied(GOLD_EXPORTERS)
        if responses and file_format != "items":
            raise BadRequest("responses needs format=items")
        out = io.StringIO()
        if file_format == "items":
            export_items(project=project, out=out, responses=responses)
        else:
            ITEM_EXPORTERS[file_format](project=project, out=out)
        extension, media_type = ("csv", CSV) if file_format == "smartypat" else ("jsonl", JSONL)
        return _attachment(out.getvalue(), media_type, f"{project.pk}-{file_format}.{extension}")


def _attachment(body: str, media_type: str, filename: str) -> HttpResponse:
    response = HttpResponse(body, content_type=f"{media_type}; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _boolean(query: QueryDict, key: str) -> bool:
    raw = (query.get(key) or "").strip().lower()
    if raw in ("", "0", "false", "no"):
        return False
    if raw in ("1", "true", "yes"):
        return True
    raise BadRequest(f"{key} must be true or false")


def _integer(query: QueryDict, key: str, *, required: bool = False) -> int | None:
    raw = query.get(key)
    if raw is None or raw == "":
        if required:
            raise BadRequest(f"{key} is required")
        return None
    try:
        return int(raw)
    except ValueError:
        raise BadRequest(f"{key} must be an integer") from None
