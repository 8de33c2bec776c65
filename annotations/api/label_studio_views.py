"""The first step of a Label Studio import on the Import tab: the annotators a file holds.

``POST /api/projects/<pk>/imports/label-studio/annotators/`` (project admins) reads the file
(nothing is stored) and answers its tasks, its annotators with their counts, what an import
without choices would do with each (``label_studio_annotators.default_holders``), and the
project's members to map them to. The upload itself is ``POST .../imports/`` with
``format=labelstudio`` and the choices (``texts_only``, ``annotators``).
"""

from __future__ import annotations

import io

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotations.api.admin_serializers import FileSerializer
from annotations.api.lookups import member_project
from annotations.importing.formats import DatasetFormatError
from annotations.importing.formats.label_studio import read_label_studio
from annotations.importing.label_studio_annotators import (
    default_holders,
    project_members,
    read_annotators,
)
from annotations.importing.parsing import parse_upload
from annotations.importing.validation import error_entry
from annotations.selectors.policy import may_import

IMPORTERS = "only the project's admins import into it"


class LabelStudioAnnotatorsView(APIView):
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        tags=["imports"],
        summary="The annotators of a Label Studio export, before importing it (admins)",
        description="Reads the file, stores nothing. annotators: key (the Label Studio user "
        "id, else the e-mail), source_id, email, annotations, regions, and default: what an "
        'import without a choice for it does ({"how": "remembered"|"member"|"invited"|'
        '"new", "user"}); members: the project\'s usernames.',
        request={"multipart/form-data": FileSerializer},
        responses={200: OpenApiResponse(), 400: OpenApiResponse()},
    )
    def post(self, request: Request, pk: int) -> Response:
        project = member_project(request, pk, may_import, IMPORTERS)
        data = FileSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        upload = data.validated_data["file"]
        content = upload.read()
        try:
            parse_upload(source=content, format="labelstudio", name=upload.name)
            tasks = read_label_studio(io.BytesIO(content), name=upload.name)
        except DatasetFormatError as error:
            entry = error_entry(error.line, error.field, error.message)
            raise ValidationError({"file": [entry["text"]]}) from error
        sources = read_annotators(tasks)
        holders = default_holders(project, sources)
        members = project_members(project).filter(is_active=True).order_by("username")
        return Response(
            {
                "tasks": len(tasks),
                "predictions": sum(len(task.predictions) for task in tasks),
                "annotators": [
                    {
                        "key": source.key,
                        "source_id": source.source_id,
                        "email": source.email,
                        "shown": source.shown,
                        "annotations": source.annotations,
                        "regions": source.regions,
                        "default": holders[source.key],
                    }
                    for source in sources
                ],
                "members": list(members.values_list("username", flat=True)),
            }
        )
