"""``manage.py import_run PATH --project NAME --name RUNNAME [--gold-version N]``.

Stores a raw-results JSONL (``{text, prediction: {sentence: raw output}}``) as a finished
model run. All or nothing: a bad record names file, line and field and writes nothing.
"""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotations.importing.formats import DatasetFormatError
from annotations.models import GoldStandard, Project
from evaluation.runs.imports import RunImportError, import_run


class Command(BaseCommand):
    help = "Import a model's raw per-sentence outputs (raw-results JSONL) as a stored run."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", type=Path, help="the raw-results JSONL file")
        parser.add_argument("--project", required=True, help="project name")
        parser.add_argument("--name", required=True, help="run name (unique in the project)")
        parser.add_argument(
            "--gold-version", type=int, help="gold standard version the run was made for"
        )
        parser.add_argument("--backend", default="", help="e.g. vllm, transformers, openai")
        parser.add_argument("--model-name", default="", help="the model's name or path")

    def handle(self, *args, **options) -> None:
        path: Path = options["path"]
        if not path.is_file():
            raise CommandError(f"{path}: no such file")
        project = Project.objects.filter(name=options["project"]).first()
        if project is None:
            raise CommandError(f"no project named {options['project']!r}")
        gold = None
        if options["gold_version"] is not None:
            gold = GoldStandard.objects.filter(
                project=project, version=options["gold_version"]
            ).first()
            if gold is None:
                raise CommandError(
                    f"project {project.name!r} has no gold version {options['gold_version']}"
                )
        try:
            run = import_run(
                project=project,
                path=path,
                name=options["name"],
                gold_standard=gold,
                backend=options["backend"],
                model_name=options["model_name"],
            )
        except (DatasetFormatError, RunImportError) as error:
            raise CommandError(str(error)) from error
        self.stdout.write(
            self.style.SUCCESS(
                f"Imported run {run.name!r} (id {run.pk}): {run.config['texts']} texts,"
                f" {run.config['outputs']} outputs"
            )
        )
