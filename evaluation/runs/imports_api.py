"""REST API: import a model's published outputs into a project as a run (project admins).

``POST /api/evaluation/projects/<pk>/run-imports/`` (multipart), the Import tab's "model
outputs": an item project takes one record per item for a form ``field``
(``items.imports``; JSON Lines, a JSON array, or CSV with ``id_column`` /
``output_column``, ``*`` for the whole record), scored at once; several ``file`` parts
make one run, ``id_prefix`` given once per file in order puts a prefix before their ids
(SmartyPat's bench and benign outputs); ``skip_unmatched`` skips records whose id matches
no item, reported in the run's ``config.skipped`` (count and the first few); a span
project takes one raw-results JSONL (``runs.imports``, optionally for ``gold_version``).
All or nothing: a bad file is a 400 naming the file, line and field
(``{"file": ["outputs.jsonl:3: id: ..."]}``), a bad setting a 400 on that setting, and
nothing is written.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from fallacy_platform.api.lookups import require, staff_project
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotations.importing.formats import DatasetFormatError
from annotations.models import GoldStandard, Project
from annotations.selectors.policy import may_import
from evaluation.items.imports import OutputsFile, import_item_run
from evaluation.models import ModelRun
from evaluation.runs.api import serialize_runs
from evaluation.runs.imports import RunImportError, import_run
from evaluation.runs.serializers import flatten_errors


class RunImportSerializer(serializers.Serializer):
    file = serializers.ListField(
        child=serializers.FileField(),
        min_length=1,
        help_text="The outputs file; item runs: several parts make one run.",
    )
    name = serializers.CharField(max_length=200, help_text="The run's name (unique).")
    field = serializers.CharField(
        required=False, allow_blank=True, default="", help_text="Item projects: the form field."
    )
    id_column = serializers.CharField(
        required=False, allow_blank=True, default="", help_text='Item runs: id key/column ("id").'
    )
    output_column = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        help_text='Item runs: raw answer key/column ("output"); "*": the whole record.',
    )
    id_prefix = serializers.ListField(
        child=serializers.CharField(allow_blank=True, max_length=100, trim_whitespace=False),
        required=False,
        default=list,
        help_text="Item runs: put before each id of a file, once per file in order.",
    )
    skip_unmatched = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Item runs: skip records whose id matches no item (reported in the run's "
        "config.skipped: count and the first few) instead of refusing the file.",
    )
    gold_version = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        min_value=1,
        max_value=2**31 - 1,
        help_text="Span runs: the gold version.",
    )
    backend = serializers.CharField(required=False, allow_blank=True, default="", max_length=64)
    model_name = serializers.CharField(required=False, allow_blank=True, default="", max_length=255)


def _file_errors_together(errors: dict[str, list[str]]) -> dict[str, list[str]]:
    """``file[N]`` errors under ``file`` (as every upload answers), each naming its file:
    ``{"file[1]": ["..."]}`` -> ``{"file": ["file 2: ..."]}``."""
    out: dict[str, list[str]] = {}
    for key, messages in errors.items():
        if key.startswith("file[") and key.endswith("]") and key[5:-1].isdigit():
            number = int(key[5:-1]) + 1
            out.setdefault("file", []).extend(f"file {number}: {m}" for m in messages)
        else:
            out.setdefault(key, []).extend(messages)
    return out


def _import(request: Request, project: Project, data: dict) -> ModelRun:
    uploads = data["file"]
    common = {
        "project": project,
        "path": uploads[0].file,
        "file_name": uploads[0].name,
        "name": data["name"],
        "backend": data["backend"],
        "model_name": data["model_name"],
        "created_by": request.user,
    }
    if project.kind == "items" or data["field"]:
        if not data["field"] and project.kind == "items":
            raise ValidationError(
                {
                    "field": [
                        "an item project's outputs answer a form field: name it (the file "
                        'holds one record per item {"id": <item id>, "output": <raw answer>})'
                    ]
                }
            )
        prefixes = data["id_prefix"] or [""] * len(uploads)
        if len(prefixes) != len(uploads):
            raise ValidationError(
                {
                    "id_prefix": [
                        f"given {len(prefixes)} times for {len(uploads)} files: once per file, "
                        "in order (empty for none), or not at all"
                    ]
                }
            )
        return import_item_run(
            field=data["field"],
            id_column=data["id_column"],
            output_column=data["output_column"],
            id_prefix=prefixes[0],
            skip_unmatched=data["skip_unmatched"],
            extra_files=[
                OutputsFile(upload.file, upload.name, prefix)
                for upload, prefix in zip(uploads[1:], prefixes[1:], strict=True)
            ],
            **common,
        )
    if len(uploads) > 1 or data["id_prefix"]:
        raise ValidationError(
            {"file": ["a span run is one raw-results JSONL file (no id prefixes)"]}
        )
    if data["skip_unmatched"]:
        raise ValidationError(
            {"skip_unmatched": ["a span run's records are matched by text, not by item id"]}
        )
    gold = None
    if data["gold_version"] is not None:
        gold = GoldStandard.objects.filter(project=project, version=data["gold_version"]).first()
        if gold is None:
            raise ValidationError({"gold_version": [f"no gold version {data['gold_version']}"]})
    return import_run(gold_standard=gold, **common)


class RunImportView(APIView):
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        tags=["evaluation"],
        summary="Import a model's published outputs as a run (project admins)",
        description="Item projects: one record per item, JSON Lines "
        '{"id": <item id>, "output": <raw answer>} (or a JSON array of them, or CSV with '
        "id_column/output_column; output_column `*`: the whole record), for the form field "
        "`field`; several `file` parts make one run, `id_prefix` once per file puts a prefix "
        "before its ids; `skip_unmatched` skips records whose id matches no item (their "
        "count and first ids in the run's config.skipped); the run is marked imported, "
        "parsed by the field's parser and scored. Span projects: raw-results JSONL. All or "
        "nothing: a bad record is a 400 naming the file's line and field.",
        request={"multipart/form-data": RunImportSerializer},
        responses={
            201: OpenApiResponse(description="{run: Run}"),
            400: OpenApiResponse(description="{setting or file: [messages]}"),
            403: OpenApiResponse(description="Not a project admin."),
            404: OpenApiResponse(description="No visible project with this id."),
        },
    )
    def post(self, request: Request, pk: int) -> Response:
        project = staff_project(request, pk)
        require(may_import(request.user, project), "Only a project admin may do this.")
        body = RunImportSerializer(data=request.data)
        if not body.is_valid():
            raise ValidationError(_file_errors_together(flatten_errors(body.errors)))
        try:
            run = _import(request, project, body.validated_data)
        except RunImportError as error:
            raise ValidationError({error.place: [str(error)]}) from error
        except DatasetFormatError as error:
            raise ValidationError({"file": [str(error)]}) from error
        return Response({"run": serialize_runs(request, [run])[0]}, status=status.HTTP_201_CREATED)
