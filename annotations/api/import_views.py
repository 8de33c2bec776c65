"""Thin REST views for importing files into a project: inspect a file's columns, start an
import job, follow it.

Project admins only (``selectors.policy.may_import``); a project outside the user's projects
is a 404. Jobs are made and run by ``importing.jobs``; a file's format errors become 400 bodies
naming the file.
"""

from __future__ import annotations

import json
from typing import Any

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from fallacy_platform.api.lookups import member_project
from fallacy_platform.api.mixins import ServiceErrorsMixin
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotations.api.admin_serializers import (
    CsvInspectionSerializer,
    FileSerializer,
    ImportCreateSerializer,
    ImportJobSerializer,
)
from annotations.importing import jobs as import_jobs
from annotations.importing.formats import DatasetFormatError
from annotations.importing.formats.csv import inspect_csv
from annotations.importing.formats.item_columns import is_jsonl
from annotations.importing.formats.jsonl import iter_json_objects
from annotations.models import ImportJob
from annotations.selectors.access import projects_for, users_named_in
from annotations.selectors.policy import may_import
from annotations.selectors.projects import recent_import_jobs
from annotations.services import invitations, projects

IMPORTERS = "only the project's admins import into it"


class ImportInspectView(APIView):
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        tags=["imports"],
        summary="The columns and first rows of a CSV file, or a JSONL file's keys (admins)",
        request={"multipart/form-data": FileSerializer},
        responses={200: CsvInspectionSerializer, 400: OpenApiResponse()},
    )
    def post(self, request: Request, pk: int) -> Response:
        member_project(request, pk, may_import, IMPORTERS)
        data = FileSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        upload = data.validated_data["file"]
        try:
            if is_jsonl(upload.name):
                return Response(_inspect_jsonl(upload.file, upload.name))
            preview = inspect_csv(upload.file, name=upload.name)
        except DatasetFormatError as error:
            entry = import_jobs.error_entry(error.line, error.field, error.message)
            raise ValidationError({"file": [entry["text"]]}) from error
        return Response(
            {"columns": preview.columns, "rows": preview.rows, "sample": preview.sample}
        )


def _inspect_jsonl(stream: Any, name: str) -> dict[str, Any]:
    """The keys of a JSON Lines file's objects (in first-seen order), as CSV columns."""
    columns: list[str] = []
    sample: list[dict[str, Any]] = []
    rows = 0
    for _, record in iter_json_objects(stream, name):
        rows += 1
        columns += [key for key in record if key not in columns]
        if len(sample) < 3:
            sample.append(record)

    def cell(value: Any) -> str:
        return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)

    return {
        "columns": columns,
        "rows": rows,
        "sample": [[cell(record.get(column, "")) for column in columns] for record in sample],
    }


class ProjectImportsView(ServiceErrorsMixin, APIView):
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        tags=["imports"],
        summary="The project's last 20 imports, newest first (project admins)",
        responses={200: ImportJobSerializer(many=True)},
    )
    def get(self, request: Request, pk: int) -> Response:
        project = member_project(request, pk, may_import, IMPORTERS)
        return Response(ImportJobSerializer(recent_import_jobs(project), many=True).data)

    @extend_schema(
        tags=["imports"],
        summary="Import a file into the project (project admins)",
        description="All or nothing. A file under 1 MiB is imported in the request (the job "
        "comes back succeeded or failed); a larger one is queued on the default Celery "
        "queue: poll GET /api/imports/<id>/. A failed job lists every bad record as "
        '"LINE: FIELD: message" and imported nothing. A MAFALDA file without labels imports '
        'its texts (no gold standard); CSV: text_column (default "text"), id_column. Item '
        "projects take flub, smartypat and items files (items: columns, a JSON mapping; "
        "smartypat: text_column, files with or without a header; set_metadata: key=value on "
        "every item, e.g. split=bench). hf: a .zip of a Hugging Face dataset folder written by "
        "export_dataset --format hf, into a project of the kind it holds (a gold version "
        'becomes the next published version); its errors read "FILE: row N: FIELD: message". '
        "labelstudio: texts_only, annotators (per annotator: member, invite or drop; read "
        "them first with POST imports/label-studio/annotators/); invitations made answer "
        "their single-use links once (invitations: email, link, sent).",
        request={"multipart/form-data": ImportCreateSerializer},
        responses={201: ImportJobSerializer, 400: OpenApiResponse(), 403: OpenApiResponse()},
    )
    def post(self, request: Request, pk: int) -> Response:
        project = member_project(request, pk, may_import, IMPORTERS)
        data = ImportCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = data.validated_data
        upload = fields["file"]
        annotator = fields.get("annotator", "")
        job = import_jobs.create_import_job(
            project=project,
            file_name=upload.name,
            content=upload.read(),
            format=fields["format"],
            created_by=request.user,
            text_column=fields.get("text_column", ""),
            id_column=fields.get("id_column", ""),
            annotator=(
                projects.find_user(
                    annotator, among=users_named_in(request.user, project), field="annotator"
                )
                if annotator
                else None
            ),
            columns=fields.get("columns") or None,
            set_metadata=fields.get("set_metadata") or None,
            texts_only=fields.get("texts_only", False),
            annotators=fields.get("annotators") or None,
        )
        invited = [
            {"email": invitation.email, "link": request.build_absolute_uri(f"/invite/{token}/")}
            for invitation, token in job.new_invitations
        ]
        for entry, (invitation, _) in zip(invited, job.new_invitations, strict=True):
            entry["sent"] = invitations.send_invitation(invitation=invitation, link=entry["link"])
        job = import_jobs.start_import_job(job=job)
        body = ImportJobSerializer(job).data
        if invited:
            body = {**body, "invitations": invited}
        return Response(body, status=status.HTTP_201_CREATED)


class ImportJobView(APIView):
    @extend_schema(
        tags=["imports"],
        summary="An import job: its state, progress, report or errors (project admins)",
        responses={200: ImportJobSerializer},
    )
    def get(self, request: Request, pk: int) -> Response:
        job = get_object_or_404(
            ImportJob.objects.filter(project__in=projects_for(request.user)),
            pk=pk,
        )
        member_project(request, job.project_id, may_import, IMPORTERS)
        return Response(ImportJobSerializer(job).data)
