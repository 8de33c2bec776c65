"""``manage.py judge``: launch an LLM-as-judge run from a shell.

    python manage.py judge --project P --backend B [--model M] --prompt V[@VERSION]
        [--task judge-reference|judge-fidelity] [--run RUN_ID | --field FIELD]
        [--repeats K] [--limit N] [--backend-settings JSON] [--name NAME]
        [--wait] [--inline]

The same service as the API (``judging.launch.launch_judge_run``): bad input is
refused with the field named and nothing queued. ``--run`` judges a finished free-text
run's outputs; without it the items' own candidate texts are judged (``--field`` names
the free-text field whose gold is the reference). With ``--wait`` the command follows the
run until it ends; ``--inline`` runs it in this process (no worker needed). Both print
the report (JSON: ``judge_mean``, per-item means, unparseable count).
"""

from __future__ import annotations

import json
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotations.models import Project
from evaluation import ownership
from evaluation.backends import ModelSpec
from evaluation.judging.launch import launch_judge_run
from evaluation.management.commands._launch import launch_refused
from evaluation.models import ModelRun, PromptVariant
from evaluation.runs.launch import LaunchError
from evaluation.runs.services import complete_scoring
from evaluation.runs.supervisor import supervise_shard

FINISHED = (ModelRun.Status.DONE, ModelRun.Status.FAILED, ModelRun.Status.CANCELLED)
OPTIONS = {
    "judged_run": "--run",
    "prompt_variant": "--prompt",
    "judge_model.backend": "--backend",
    "judge_model.model": "--model",
}


def option(field: str) -> str:
    """The command-line option of a launch problem's field."""
    if field in OPTIONS:
        return OPTIONS[field]
    if field.startswith("judge_model."):  # a backend setting
        return "--backend-settings"
    return "--" + field.replace("_", "-")


class Command(BaseCommand):
    help = "Rate texts with a language model judge (LLM-as-judge runs)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--project", required=True)
        parser.add_argument("--backend", required=True)
        parser.add_argument("--model", default="")
        parser.add_argument("--task", default="judge-reference")
        parser.add_argument(
            "--prompt", help="prompt variant NAME or NAME@VERSION (default: the task's first)"
        )
        parser.add_argument("--run", type=int, help="id of the finished free-text run to judge")
        parser.add_argument("--field", help="the judged free-text field (default: the run's)")
        parser.add_argument("--repeats", type=int, help="judgements per item (default: variant)")
        parser.add_argument("--limit", type=int, help="only the first N items")
        parser.add_argument("--backend-settings", default="{}", help="backend settings as JSON")
        parser.add_argument("--name", help="run name")
        parser.add_argument("--wait", action="store_true", help="wait and print the report")
        parser.add_argument(
            "--inline", action="store_true", help="run here instead of on the workers (waits)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        project = Project.objects.filter(name=options["project"]).first()
        if project is None:
            raise CommandError(f"--project: no project named {options['project']!r}")
        try:
            settings = json.loads(options["backend_settings"])
        except ValueError as error:
            raise CommandError(f"--backend-settings: not JSON: {error}") from None
        if not isinstance(settings, dict):
            raise CommandError("--backend-settings: expected a JSON object")
        variant = self._variant(project, options["task"], options["prompt"])
        judged = None
        if options["run"] is not None:
            judged = ModelRun.objects.filter(pk=options["run"], project=project).first()
            if judged is None:
                raise CommandError(f"--run: no run {options['run']} in project {project.name!r}")
        inline = options["inline"]
        try:
            run = launch_judge_run(
                project=project,
                judge_model=ModelSpec(options["backend"], options["model"], settings),
                variant=variant,
                judged_run=judged,
                field=options["field"],
                repeats=options["repeats"],
                limit=options["limit"],
                name=options["name"],
                enqueue=not inline,
            )
        except LaunchError as error:
            raise launch_refused(error, option) from None
        self.stderr.write(f"queued judge run {run.pk}: {run.name} ({run.total} requests)")
        if inline:
            supervise_shard(run_id=run.pk, shard=0, worker="inline")
            run.refresh_from_db()
            if run.status == ModelRun.Status.SCORING:
                complete_scoring(run_id=run.pk)
        elif options["wait"]:
            while run.status not in FINISHED:
                time.sleep(1.0)
                run.refresh_from_db()
                self.stderr.write(f"{run.name}: {run.done}/{run.total} {run.status}")
        else:
            return
        run.refresh_from_db()
        if run.status != ModelRun.Status.DONE:
            raise CommandError(f"run {run.pk} ({run.name}) {run.status}: {run.error}")
        stored = run.scores.filter(profile="items").first()
        self.stdout.write(
            json.dumps(
                {"run": run.pk, "name": run.name, **(stored.report if stored else {})},
                ensure_ascii=False,
            )
        )

    def _variant(self, project: Project, task: str, reference: str | None) -> PromptVariant:
        """The project's own variant (newest or @VERSION), else the global one."""
        name, version = None, None
        if reference:
            name, _, raw = reference.partition("@")
            version = (int(raw) if raw.isdigit() else -1) if raw else None
        variant = ownership.resolve_variant(project, task, name, version)
        if variant is None:
            scope = ownership.variants_for(project).filter(task=task)
            known = ", ".join(sorted(set(scope.values_list("name", flat=True))))
            raise CommandError(
                f"--prompt: no variant {reference or '(any)'!r} of task {task!r}; "
                f"known: {known or 'none'}"
            )
        return variant
