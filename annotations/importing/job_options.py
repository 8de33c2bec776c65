"""What a new import job may hold: its upload checked (a known format, not empty, not too
large) and its ``options`` built from the caller's choices, each checked against the
format and the project (``jobs.create_import_job`` stores them with the job)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError

from annotations.importing.item_settings import ItemImportError, columns_from, parse_set_metadata
from annotations.importing.items import ITEM_FORMATS, ItemConverter
from annotations.importing.label_studio_annotators import parse_choices, prepare_choices
from annotations.models import Project

FORMATS = ("mafalda", "doccano", "text", "csv", "labelstudio", "hf", *ITEM_FORMATS)
#: Formats either kind of project takes (the file says which kind it holds).
ANY_KIND_FORMATS = ("hf",)
MAX_UPLOAD_BYTES = settings.UPLOAD_MAX_BYTES


def check_upload(*, format: str, file_name: str, content: bytes) -> None:
    """``ValidationError`` for an unknown format, an empty file or one over the limit."""
    if format not in FORMATS:
        raise ValidationError(
            {"format": [f"unknown format '{format}'; one of {', '.join(FORMATS)}"]}
        )
    if not content:
        raise ValidationError({"file": [f"{file_name} is empty"]})
    if len(content) > MAX_UPLOAD_BYTES:
        raise ValidationError(
            {"file": [f"{file_name} is larger than {MAX_UPLOAD_BYTES // (1024 * 1024)} MiB"]}
        )


def job_options(
    *,
    project: Project,
    format: str,
    file_name: str,
    created_by: AbstractBaseUser | None,
    text_column: str,
    id_column: str,
    annotator: AbstractBaseUser | None,
    columns: dict[str, Any] | str | None,
    set_metadata: Sequence[str] | None,
    texts_only: bool,
    annotators: dict[str, Any] | str | None,
) -> tuple[dict[str, Any], list]:
    """The job's ``options`` and the invitations made for a Label Studio file's
    annotators (see ``jobs.create_import_job`` for what each format takes);
    ``ValidationError`` naming the bad choice."""
    options: dict[str, Any] = {}
    if format in ITEM_FORMATS:
        options = _item_options(project, format, file_name, columns)
    elif project.kind == "items" and format not in ANY_KIND_FORMATS:
        raise ValidationError(
            {
                "format": [
                    f"project '{project.name}' is an item project; import "
                    f"{', '.join(ITEM_FORMATS)} files into it"
                ]
            }
        )
    if format == "smartypat" and text_column:
        options = {"text_column": text_column}
    if set_metadata:
        options = {**options, "set_metadata": _metadata_option(format, set_metadata)}
    if format == "csv":
        options = {"text_column": text_column or "text", "id_column": id_column}
    elif format == "doccano":
        annotator = annotator or created_by
        if annotator is None:
            raise ValidationError({"annotator": ["a doccano file needs its annotator"]})
        options = {"annotator": annotator.pk}
    if format == "labelstudio":
        return _label_studio_options(project, created_by, texts_only, annotators)
    if texts_only or annotators:
        field_name = "texts_only" if texts_only else "annotators"
        raise ValidationError({field_name: ["goes with the labelstudio format"]})
    return options, []


def _label_studio_options(
    project: Project,
    created_by: AbstractBaseUser | None,
    texts_only: bool,
    annotators: dict[str, Any] | str | None,
) -> tuple[dict[str, Any], list]:
    choices = {} if texts_only else parse_choices(annotators)
    ready, created = prepare_choices(
        project=project, choices=choices, created_by=created_by, members_only=True
    )
    options = {
        "texts_only": texts_only,
        "annotators": {key: choice.as_dict() for key, choice in ready.items()},
    }
    return options, created


def _item_options(
    project: Project, format: str, file_name: str, columns: dict[str, Any] | str | None
) -> dict[str, Any]:
    if project.kind != "items":
        raise ValidationError(
            {
                "format": [
                    f"{format} files hold items; project '{project.name}' is a"
                    f" {project.kind} project (create a project of kind items)"
                ]
            }
        )
    if format != "items":
        return {}
    if not columns:
        raise ValidationError({"columns": ["the items format needs a column mapping (text)"]})
    try:
        mapping = columns_from(columns)
        ItemConverter(project=project, format=format, name=file_name, columns=mapping)
    except ItemImportError as error:
        raise ValidationError({"columns": [str(error)]}) from error
    return {"columns": mapping.as_dict()}


def _metadata_option(format: str, settings: Sequence[str]) -> dict[str, str]:
    if format not in ITEM_FORMATS:
        raise ValidationError(
            {"set_metadata": [f"metadata keys go with the formats {', '.join(ITEM_FORMATS)}"]}
        )
    try:
        return parse_set_metadata(settings)
    except ItemImportError as error:
        raise ValidationError({"set_metadata": [str(error)]}) from error
