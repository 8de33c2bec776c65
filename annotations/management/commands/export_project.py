"""``manage.py export_project PROJECT --out FILE``: everything of a project in one archive.

PROJECT is the project's id or name. The archive (a zip of JSON-lines members, see
``annotations.backups.format``) holds the taxonomy, guidelines, documents, sentences,
members by username, assignments, annotations with their spans and history, gold versions
and drafts with history, import jobs, runs with their prompt variants, shards, outputs and
scores. ``import_project FILE`` restores it; exporting the restored project gives the same
bytes.
"""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotations.backups import ExportError, export_project
from annotations.models import Project


def find_project(reference: str) -> Project:
    project = Project.objects.filter(name=reference).first()
    if project is None and reference.isdigit():
        project = Project.objects.filter(pk=int(reference)).first()
    if project is None:
        raise CommandError(f"no project with the name or id {reference!r}")
    return project


class Command(BaseCommand):
    help = "Write one archive with everything of a project (restore it with import_project)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("project", help="project id or name")
        parser.add_argument("--out", required=True, type=Path, help="the archive to write")

    def handle(self, *args, **options) -> None:
        project = find_project(options["project"])
        out = Path(options["out"])
        if not out.parent.is_dir():
            raise CommandError(f"--out: no such directory: {out.parent}")
        try:
            report = export_project(project=project, out=out)
        except ExportError as error:
            raise CommandError(f"nothing written: {error}") from error
        for warning in report.warnings:
            self.stderr.write(f"warning: {warning}")
        rows = ", ".join(
            f"{count} {member.removesuffix('.jsonl')}"
            for member, count in report.counts.items()
            if count
        )
        self.stdout.write(
            self.style.SUCCESS(f"Exported project {report.project!r} to {out}: {rows}")
        )
