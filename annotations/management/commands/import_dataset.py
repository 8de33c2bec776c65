"""``manage.py import_dataset --format mafalda|doccano|text PATH --project NAME``.

All or nothing: a bad record stops the import, names file, line and field, and leaves the
database as it was (the project too, when this command would have created it).
"""

from __future__ import annotations

from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from annotations.formats import DatasetFormatError
from annotations.models import Project, Taxonomy
from annotations.services.imports import (
    ImportReport,
    import_doccano_annotations,
    import_mafalda_gold,
    import_texts,
)
from annotations.services.projects import create_project
from annotations.services.taxonomy import (
    TaxonomyExistsError,
    available_presets,
    install_preset,
    load_taxonomy_file,
)
from annotations.taxonomy_files import TaxonomyFileError, read_taxonomy_file

FORMATS = ("mafalda", "doccano", "text")


class Command(BaseCommand):
    help = (
        "Import a dataset into a project (created if missing): a MAFALDA gold standard as a "
        "new published version, one annotator's doccano export, or plain texts."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", type=Path, help="the file to import")
        parser.add_argument("--format", required=True, choices=FORMATS)
        parser.add_argument("--project", required=True, help="project name")
        parser.add_argument(
            "--annotator", help="username whose annotations a doccano file holds (created if new)"
        )
        parser.add_argument(
            "--taxonomy",
            default="mafalda",
            help="for a new project: a preset name or a taxonomy file (default: mafalda)",
        )

    def handle(
        self,
        *args,
        path: Path,
        project: str,
        annotator: str | None,
        taxonomy: str,
        **options,
    ) -> None:
        file_format: str = options["format"]
        if file_format == "doccano" and not annotator:
            raise CommandError("--annotator is required with --format doccano")
        if not path.is_file():
            raise CommandError(f"{path}: no such file")
        try:
            with transaction.atomic():
                report = self._import(path, file_format, project, annotator, taxonomy)
        except (DatasetFormatError, TaxonomyFileError, TaxonomyExistsError, LookupError) as error:
            raise CommandError(str(error)) from error
        self.stdout.write(self.style.SUCCESS(report.summary()))

    def _import(
        self, path: Path, file_format: str, project_name: str, annotator: str | None, taxonomy: str
    ) -> ImportReport:
        project = Project.objects.filter(name=project_name).first()
        if project is None:
            project = create_project(name=project_name, taxonomy=_taxonomy(taxonomy))
            self.stdout.write(f"Created project {project.name!r} ({project.taxonomy}).")
        if file_format == "mafalda":
            return import_mafalda_gold(path=path, project=project, note=f"imported from {path}")
        if file_format == "doccano":
            user, _ = get_user_model().objects.get_or_create(username=annotator)
            return import_doccano_annotations(path=path, project=project, annotator=user)
        return import_texts(path=path, project=project)


def _taxonomy(preset_or_path: str) -> Taxonomy:
    if preset_or_path in available_presets():
        return install_preset(name=preset_or_path)
    spec = read_taxonomy_file(preset_or_path)
    existing = Taxonomy.objects.filter(name=spec.name, version=spec.version).first()
    return existing or load_taxonomy_file(path=Path(preset_or_path))
