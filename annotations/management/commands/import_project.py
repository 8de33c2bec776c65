"""``manage.py import_project FILE [--rename NEW]``: restore an ``export_project`` archive.

All or nothing: a bad archive names the member, the line and the field, and imports
nothing; a project name that exists here is refused unless ``--rename NEW``. Users missing
here are created inactive with unusable passwords (listed in the output: activate them and
set passwords); an identical taxonomy and identical prompt variants are reused.
"""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotations.backups import ArchiveError, ProjectExists, import_project


class Command(BaseCommand):
    help = "Restore a project archive written by export_project (one transaction)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", type=Path, help="the archive")
        parser.add_argument("--rename", help="import the project under this name")

    def handle(self, *args, **options) -> None:
        path = Path(options["path"])
        if not path.is_file():
            raise CommandError(f"{path}: no such file")
        rename = options["rename"]
        if rename is not None and not rename.strip():
            raise CommandError("--rename: the new name must not be empty")
        try:
            report = import_project(path=path, rename=rename and rename.strip())
        except ArchiveError as error:
            raise CommandError(f"{path.name}: nothing imported: {error}") from error
        except ProjectExists as error:
            raise CommandError(str(error)) from error
        if report.users_created:
            self.stdout.write(
                f"created {len(report.users_created)} inactive users without a password "
                f"(activate them and set passwords): {', '.join(report.users_created)}"
            )
        for note in report.notes:
            self.stdout.write(f"note: {note}")
        rows = ", ".join(
            f"{count} {member.removesuffix('.jsonl')}"
            for member, count in report.counts.items()
            if count
        )
        project = report.project
        self.stdout.write(
            self.style.SUCCESS(f"Imported project {project.name!r} (id {project.pk}): {rows}")
        )
