"""``manage.py evaluate``: launch model runs over a gold version (span projects) or over
the items of an item project (``--field``) from a shell.

    python manage.py evaluate --project P --gold-version N --model M --backend B
        [--prompt V[@VERSION]]... [--level 2] [--limit N] [--shards K]
    python manage.py evaluate --project P --field F --task T --model M --backend B
        [--prompt V[@VERSION]]... [--limit N] [--shards K] ...
        [--backend-settings JSON] [--max-new-tokens N] [--temperature T] [--seed S]
        [--wait] [--inline] [--profile paper|mafalda-2024] [--format json|table]

Item projects: ``--field`` names the form field the runs answer and ``--task`` the item
task whose variants ``--prompt`` names (default: the task answering the field's kind);
the JSON report is the stored ``items`` report (``evaluation.benchmarks.items``).

The same launch path as the launch page (``runs.launch.launch_runs``,
``items.launch.launch_item_runs``): bad input is refused
with the field named and nothing queued. Runs are queued for the Celery workers; with
``--wait`` the command shows a progress bar until they finish and prints the scores as
``score`` does (JSON: the same ``levels`` object). ``--inline`` needs no worker: this
process supervises the runners and scores (the same code the workers run).
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from fallacy_platform.dispatch import QueueUnavailable

from annotations.items import FormError, parse_form
from annotations.models import GoldStandard, Project
from evaluation import ownership
from evaluation.backends import ModelSpec
from evaluation.items.launch import launch_item_runs
from evaluation.items.runs import PROFILE as ITEMS_PROFILE
from evaluation.management.commands._launch import launch_refused
from evaluation.models import ModelRun, PromptVariant
from evaluation.runs.launch import LaunchError, launch_runs
from evaluation.runs.selectors import score_run
from evaluation.runs.services import complete_scoring
from evaluation.runs.stored import parser_name
from evaluation.runs.supervisor import supervise_shard
from evaluation.scoring import PROFILES

WORKER_HINT_SECONDS = 15
FINISHED = (ModelRun.Status.DONE, ModelRun.Status.FAILED, ModelRun.Status.CANCELLED)


def progress_line(run: ModelRun, width: int = 30) -> str:
    share = run.done / run.total if run.total else 0.0
    filled = int(share * width)
    line = f"{run.name[:40]:<40} [{'#' * filled}{'.' * (width - filled)}] {run.done}/{run.total}"
    if run.started_at and run.done and run.status == ModelRun.Status.RUNNING:
        from django.utils import timezone

        elapsed = max((timezone.now() - run.started_at).total_seconds(), 1e-6)
        rate = run.done / elapsed
        eta = (run.total - run.done) / rate if rate else 0
        line += f" {rate:.1f} req/s ETA {eta:.0f} s"
    return f"{line} {run.status}"


def items_table(report: dict[str, Any]) -> str:
    """An item run's report as text: the primary figure, the other figures, the counts."""
    primary = report.get("primary") or {}
    lines = [f"{primary.get('name', 'primary')}: {primary.get('value')}"]
    for name, value in (report.get("metrics") or {}).items():
        if isinstance(value, int | float) and name != primary.get("name"):
            lines.append(f"{name}: {value:.4f}")
    unparseable = report.get("unparseable") or {}
    lines.append(
        f"items: {report.get('items')}, scored: {report.get('scored')}, unparseable: "
        f"{unparseable.get('count')} ({unparseable.get('policy')})"
    )
    return "\n".join(lines)


def backend_settings(text: str) -> dict[str, Any]:
    """``--backend-settings``: a JSON object."""
    try:
        settings = json.loads(text)
    except ValueError as error:
        raise CommandError(f"--backend-settings: not JSON: {error}") from None
    if not isinstance(settings, dict):
        raise CommandError("--backend-settings: expected a JSON object")
    return settings


def generation_params(options: dict[str, Any]) -> dict[str, Any]:
    """The generation parameters given on the command line."""
    return {
        key: options[key]
        for key in ("max_new_tokens", "temperature", "seed")
        if options[key] is not None
    }


def run_inline(runs: list[ModelRun]) -> None:
    """Supervise every shard of the runs in this process, then score the finished ones."""
    for run in runs:
        for shard in range(run.shards):
            supervise_shard(run_id=run.pk, shard=shard, worker="inline")
        run.refresh_from_db()
        if run.status == ModelRun.Status.SCORING:
            complete_scoring(run_id=run.pk)


class Command(BaseCommand):
    help = "Run language models over a gold version and score them (evaluation jobs)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--project", required=True)
        parser.add_argument("--gold-version", type=int, help="span projects: the gold version")
        parser.add_argument("--field", help="item projects: the form field the runs answer")
        parser.add_argument("--model", action="append", required=True, help="repeatable")
        parser.add_argument("--backend", required=True)
        parser.add_argument(
            "--prompt",
            action="append",
            help="prompt variant NAME or NAME@VERSION (repeatable; default zero-shot)",
        )
        parser.add_argument(
            "--task", help="the variants' task (default: mafalda, or the field's kind)"
        )
        parser.add_argument("--level", type=int, default=2)
        parser.add_argument("--limit", type=int, help="only the first N texts of the version")
        parser.add_argument(
            "--shards",
            type=int,
            help="parts a run is cut into (default: parts of about the backend's chunk size)",
        )
        parser.add_argument("--backend-settings", default="{}", help="backend settings as JSON")
        parser.add_argument("--max-new-tokens", type=int)
        parser.add_argument("--temperature", type=float)
        parser.add_argument("--seed", type=int)
        parser.add_argument("--name", help="run name (default: model · variant · level)")
        parser.add_argument("--wait", action="store_true", help="wait and print the scores")
        parser.add_argument(
            "--inline", action="store_true", help="run here instead of on the workers (waits)"
        )
        parser.add_argument("--profile", choices=PROFILES, default="paper")
        parser.add_argument("--format", choices=["json", "table"], default="table")

    def handle(self, *args: Any, **options: Any) -> None:
        project = Project.objects.filter(name=options["project"]).first()
        if project is None:
            raise CommandError(f"--project: no project named {options['project']!r}")
        task, gold = self._task_and_gold(project, options)
        settings = backend_settings(options["backend_settings"])
        variants = [
            self._variant(project, task, name) for name in options["prompt"] or ["zero-shot"]
        ]
        models = [ModelSpec(options["backend"], model, settings) for model in options["model"]]
        inline = options["inline"]
        runs = self._launch(project, gold, models, variants, options, enqueue=not inline)
        for run in runs:
            self.stderr.write(f"queued run {run.pk}: {run.name} ({run.total} requests)")
        if inline:
            run_inline(runs)
        elif options["wait"]:
            self._wait(runs)
        else:
            return
        self._report([ModelRun.objects.get(pk=run.pk) for run in runs], options)

    def _task_and_gold(
        self, project: Project, options: dict[str, Any]
    ) -> tuple[str, GoldStandard | None]:
        """The task the runs answer and, for a span project, the gold version they run over."""
        if project.kind == "items":
            if not options["field"]:
                raise CommandError(
                    f"--field: project {project.name!r} is an item project; name the form "
                    "field the runs answer"
                )
            try:
                form_field = parse_form(project.form).get(options["field"])
            except FormError as error:
                raise CommandError(f"--field: {error}") from None
            return options["task"] or form_field.kind, None
        if options["gold_version"] is None:
            raise CommandError("--gold-version: a span project's runs need a gold version")
        gold = GoldStandard.objects.filter(project=project, version=options["gold_version"]).first()
        if gold is None:
            raise CommandError(
                f"--gold-version: project {project.name!r} has no gold version "
                f"{options['gold_version']}"
            )
        return options["task"] or "mafalda", gold

    def _launch(
        self,
        project: Project,
        gold: GoldStandard | None,
        models: list[ModelSpec],
        variants: list[PromptVariant],
        options: dict[str, Any],
        *,
        enqueue: bool,
    ) -> list[ModelRun]:
        """The runs, created (and queued unless ``enqueue`` is false) by the launch services;
        a refusal becomes a ``CommandError`` naming the option."""
        common = {
            "project": project,
            "models": models,
            "variants": variants,
            "limit": options["limit"],
            "shards": options["shards"],
            "params": generation_params(options),
            "name": options["name"],
            "enqueue": enqueue,
        }
        try:
            if project.kind == "items":
                return launch_item_runs(field=options["field"], **common)
            return launch_runs(gold_standard=gold, level=options["level"], **common)
        except LaunchError as error:
            raise launch_refused(error, lambda field: f"--{field}") from None
        except QueueUnavailable as error:
            raise CommandError(f"{error}; nothing was launched, try again") from None

    def _variant(self, project: Project, task: str, reference: str) -> PromptVariant:
        """The project's own variant of that name (newest or @VERSION), else the global one."""
        name, _, version = reference.partition("@")
        number = (int(version) if version.isdigit() else -1) if version else None
        variant = ownership.resolve_variant(project, task, name, number)
        if variant is None:
            scope = ownership.variants_for(project).filter(task=task)
            known = ", ".join(sorted(set(scope.values_list("name", flat=True))))
            raise CommandError(
                f"--prompt: no variant {reference!r} of task {task!r}; known: {known}"
            )
        return variant

    def _wait(self, runs: list[ModelRun]) -> None:
        interactive = sys.stderr.isatty()
        last: dict[int, str] = {}
        started = time.monotonic()
        hinted = False
        while True:
            current = list(ModelRun.objects.filter(pk__in=[run.pk for run in runs]).order_by("pk"))
            for run in current:
                line = progress_line(run)
                if interactive or last.get(run.pk, "").split("]")[-1] != line.split("]")[-1]:
                    self.stderr.write(line)
                    last[run.pk] = line
            if all(run.status in FINISHED for run in current):
                return
            waiting = all(run.status == ModelRun.Status.QUEUED for run in current)
            if waiting and not hinted and time.monotonic() - started > WORKER_HINT_SECONDS:
                self.stderr.write(
                    "still queued: is a worker running? (`make demo` starts one; or "
                    "`celery -A fallacy_platform worker -Q default,gpu`; or use --inline)"
                )
                hinted = True
            time.sleep(1.0)

    def _report(self, runs: list[ModelRun], options: dict[str, Any]) -> None:
        from evaluation.management.commands.score import format_table

        failed = [run for run in runs if run.status != ModelRun.Status.DONE]
        results = []
        for run in runs:
            if run.status != ModelRun.Status.DONE:
                continue
            if run.gold_standard_id is None:  # an item run: its one report
                stored = run.scores.filter(profile=ITEMS_PROFILE).first()
                report = stored.report if stored else {}
                if options["format"] == "json":
                    results.append({"run": run.pk, "name": run.name, **report})
                else:
                    self.stdout.write(f"run {run.pk}: {run.name}\n{items_table(report)}\n")
                continue
            stored = run.scores.filter(profile=options["profile"]).first()
            report = stored.report if stored else None
            if options["format"] == "json":
                results.append({"run": run.pk, "name": run.name, **(report or {})})
            else:
                parser = parser_name(run)
                live = score_run(
                    gold_standard=run.gold_standard,
                    run=run,
                    profile=options["profile"],
                    levels=list(range(run.level + 1)),
                    parser=parser,
                )
                self.stdout.write(f"run {run.pk}: {run.name}\n{format_table(live)}\n")
        if options["format"] == "json":
            self.stdout.write(
                json.dumps(results[0] if len(results) == 1 else results, ensure_ascii=False)
            )
        if failed:
            raise CommandError(
                "\n".join(f"run {run.pk} ({run.name}) {run.status}: {run.error}" for run in failed)
            )
