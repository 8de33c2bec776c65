"""``manage.py export_harness --gold-version N [--project P] --to lm-eval|inspect DIR
[--variant NAME[@VERSION]] [--task NAME]``.

Writes a published gold version as a task of an evaluation harness (``evaluation.harness.
export``): an lm-evaluation-harness task folder (YAML + ``utils.py``) or an Inspect task file,
with the MAFALDA per-sentence prompts of the stored prompt variant (default ``zero-shot``:
the project's newest, else the built-in) and the gold, scored by the ``fallacy_scoring``
library. ``--project`` may be left out when only one project has version N.
"""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotations.models import GoldStandard, Project
from evaluation.harness.export import (
    TARGETS,
    HarnessExportError,
    default_task_name,
    export_harness,
)
from evaluation.models import PromptVariant
from evaluation.ownership import resolve_variant


class Command(BaseCommand):
    help = "Export a published gold version as an lm-evaluation-harness or Inspect task."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--gold-version", type=int, required=True, help="gold version N")
        parser.add_argument("--project", help="project name (needed when several have version N)")
        parser.add_argument("--to", nargs=2, required=True, metavar=("HARNESS", "DIR"))
        parser.add_argument(
            "--variant", default="zero-shot", help="prompt variant NAME or NAME@VERSION"
        )
        parser.add_argument("--task", help="task name (default mafalda_<project>_v<N>)")

    def handle(self, *args, **options) -> None:
        target, folder = options["to"]
        if target not in TARGETS:
            raise CommandError(f"--to: the harness is one of {', '.join(TARGETS)}, not {target!r}")
        gold = self.gold(options["project"], options["gold_version"])
        variant = self.variant(gold.project, options["variant"])
        try:
            export = export_harness(
                gold_standard=gold,
                variant=variant,
                target=target,
                folder=Path(folder),
                task=options["task"] or default_task_name(gold),
            )
        except HarnessExportError as error:
            raise CommandError(str(error)) from error
        self.stdout.write(
            self.style.SUCCESS(
                f"Wrote {target} task {export.task!r} to {export.folder}: {export.documents} "
                f"texts, {export.units} sentences ({', '.join(export.files)})"
            )
        )

    def gold(self, project_name: str | None, version: int) -> GoldStandard:
        golds = GoldStandard.objects.filter(version=version).select_related("project__taxonomy")
        if project_name is not None:
            project = Project.objects.filter(name=project_name).first()
            if project is None:
                raise CommandError(f"no project named {project_name!r}")
            golds = golds.filter(project=project)
        found = list(golds[:2])
        if not found:
            where = f"project {project_name!r}" if project_name else "any project"
            raise CommandError(f"--gold-version: {where} has no gold version {version}")
        if len(found) > 1:
            raise CommandError(
                f"--gold-version: several projects have version {version}; name one (--project)"
            )
        gold = found[0]
        if gold.project.kind == "items":
            raise CommandError(f"project {gold.project.name!r} is an item project; no span gold")
        if not gold.is_published:
            raise CommandError(f"--gold-version: version {version} is a draft (publish it first)")
        return gold

    def variant(self, project: Project, spelled: str) -> PromptVariant:
        name, _, version = spelled.partition("@")
        if version and not version.isdigit():
            raise CommandError(f"--variant: {spelled!r} is not NAME or NAME@VERSION")
        variant = resolve_variant(project, "mafalda", name, int(version) if version else None)
        if variant is None:
            raise CommandError(f"--variant: project {project.name!r} has no variant {spelled!r}")
        return variant
