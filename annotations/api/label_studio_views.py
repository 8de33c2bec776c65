"""The first step of a Label Studio import on the Import tab: the annotators a file holds.

``POST /api/projects/<pk>/imports/label-studio/annotators/`` (project admins) reads the file
(nothing is stored) and answers its tasks, its annotators with their counts, what an import
without choices would do with each (``label_studio_annotators.default_holders``), and the
project's members to map them to. A file larger than ``IMPORT_INPROCESS_MAX_BYTES`` is read
in the bounded child process (``importing.parsing.bounded_parse``, the Import tab's limits),
which hands back only its counts and annotators; a smaller one here. The upload itself is
``POST .../imports/`` with ``format=labelstudio`` and the choices (``texts_only``,
``annotators``).
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from fallacy_platform.api.lookups import member_project
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotations.api.admin_serializers import FileSerializer
from annotations.importing.formats import DatasetFormatError
from annotations.importing.formats.label_studio_sources import summarize
from annotations.importing.label_studio_annotators import default_holders, project_members
from annotations.importing.parsing import bounded_parse
from annotations.importing.validation import format_error_entry
from annotations.selectors.policy import may_import

IMPORTERS = "only the project's admins import into it"
SUMMARIZE = f"{summarize.__module__}:summarize"


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
        try:
            read = bounded_parse(SUMMARIZE, upload.file, upload.name, name=upload.name)
            read = read or summarize(upload.read(), upload.name)
        except DatasetFormatError as error:
            raise ValidationError({"file": [format_error_entry(error)["text"]]}) from error
        sources = read.annotators
        holders = default_holders(project, sources)
        members = project_members(project).filter(is_active=True).order_by("username")
        return Response(
            {
                "tasks": read.tasks,
                "predictions": read.predictions,
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
