"""``manage.py generate_fallacies``: Prolog-checked (or direct) generation of fallacy items.

    python manage.py generate_fallacies --project P --type TYPE --backend B --model M
        [--n 20] [--method prolog|direct] [--backend-settings JSON]
        [--wait] [--inline] [--format json|table]
    python manage.py generate_fallacies --project P --report [--format json|table]

The same service as the API would use (``synthesis.services.launch_generation``):
an unknown type, a missing model, a bad option or a stored rule file that does not load
cleanly is refused naming the option (or the file's line), and nothing is queued. The
project is created with the SmartyPat form preset when it does not exist. The job runs on
the ``gpu`` queue; ``--wait`` follows it, ``--inline`` runs it in this process (no worker).
Both print the report: facts proposed / valid / rejected (by reason), solutions, items
kept, the judge's mean score and the share of scores 0/1/2/3, requests sent and cached.
``--report`` launches nothing: it prints the project's report per type and method across
its finished jobs (``synthesis.review.generation_report``, the API's
``generation-report/``), the reviewers' acceptance rate included.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from fallacy_platform.slots import SlotsBusy

from evaluation.backends import ModelSpec
from evaluation.management.commands._launch import launch_refused
from evaluation.models import GenerationJob
from evaluation.runs.launch import LaunchError
from evaluation.synthesis.generation import run_job, wait_for
from evaluation.synthesis.review import generation_report, report_table
from evaluation.synthesis.services import METHODS, launch_generation


def _option(field: str) -> str:
    head = field.split(".", 1)[0]
    if head in ("type", "n", "method", "project"):
        return f"--{head}"
    if field == "model.model":
        return "--model"
    if field == "model.backend":
        return "--backend"
    if field.startswith("model.settings"):
        return "--backend-settings" + field[len("model.settings") :]
    return field


def table(report: dict[str, Any]) -> str:
    facts = report.get("facts") or {}
    judge = report.get("judge") or {}
    share = judge.get("share") or {}
    mean = judge.get("mean")
    rows = [
        ("type", report.get("type")),
        ("method", report.get("method")),
        ("model", report.get("model")),
        ("facts proposed", facts.get("proposed", "-")),
        ("facts valid", facts.get("valid", "-")),
        ("facts rejected", facts.get("rejected", "-")),
        (
            "rejected by reason",
            ", ".join(f"{k} {v}" for k, v in sorted((facts.get("by_reason") or {}).items())) or "-",
        ),
        ("satisfying", "-" if report.get("satisfying") is None else report["satisfying"]),
        ("items kept", report.get("items")),
        ("judge mean (0-3)", "-" if mean is None else f"{mean:.2f}"),
        ("scores 0/1/2/3", " / ".join(f"{share.get(str(k), 0):.0%}" for k in range(4))),
        ("unparseable judgements", judge.get("unparseable", 0)),
        (
            "requests sent / cached",
            f"{report['requests']['sent']} / {report['requests']['from_cache']}"
            if "requests" in report
            else "-",
        ),
    ]
    if report.get("note"):
        rows.append(("note", report["note"]))
    width = max(len(name) for name, _ in rows)
    return "\n".join(f"{name:<{width}}  {value}" for name, value in rows)


class Command(BaseCommand):
    help = "Generate fallacy items for one type with a model (Prolog-checked or direct)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--project", required=True, help="item project (created if new)")
        parser.add_argument("--type", default="", help="fallacy type (a rule file's type)")
        parser.add_argument("--backend", default="")
        parser.add_argument("--model", default="", help="model name or path")
        parser.add_argument("--n", type=int, default=20, help="facts (or texts) asked for")
        parser.add_argument("--method", default="prolog", help=" or ".join(METHODS))
        parser.add_argument("--backend-settings", default="{}", help="backend settings (JSON)")
        parser.add_argument("--wait", action="store_true", help="wait and print the report")
        parser.add_argument("--inline", action="store_true", help="run here (no worker)")
        parser.add_argument("--format", choices=("json", "table"), default="json")
        parser.add_argument(
            "--report", action="store_true", help="print the project's report; launch nothing"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["report"]:
            self.report(options)
            return
        try:
            settings = json.loads(options["backend_settings"])
        except ValueError as error:
            raise CommandError(f"--backend-settings: not JSON: {error}") from None
        if not isinstance(settings, dict):
            raise CommandError("--backend-settings: expected a JSON object")
        inline = options["inline"]
        try:
            job = launch_generation(
                project_name=options["project"],
                type_name=options["type"],
                model=ModelSpec(options["backend"], options["model"], settings),
                n=options["n"],
                method=options["method"],
                enqueue=not inline,
            )
        except LaunchError as error:
            raise launch_refused(error, _option) from None
        except SlotsBusy as error:  # the rule file's check: every slot in use
            raise CommandError(f"{error} (in {error.retry_after_s} s)") from None
        self.stderr.write(f"queued generation job {job.pk}: {job.rule} · {job.method}")
        if inline:
            job = run_job(job.pk)
        elif options["wait"]:
            job = wait_for(job)
        else:
            return
        if job.status != GenerationJob.Status.DONE:
            raise CommandError(f"generation job {job.pk} {job.status}: {job.error}")
        report = {"job": job.pk, "project": job.project.name, **job.report}
        if options["format"] == "table":
            self.stdout.write(table(report))
        else:
            self.stdout.write(json.dumps(report, ensure_ascii=False))

    def report(self, options: dict[str, Any]) -> None:
        from annotations.models import Project

        project = Project.objects.filter(name=options["project"]).first()
        if project is None:
            raise CommandError(f"--project: no project named {options['project']!r}")
        jobs = GenerationJob.objects.filter(project=project).select_related("rule")
        if options["type"]:
            jobs = jobs.filter(rule__type__iexact=options["type"])
        rows = generation_report(jobs)
        if options["format"] == "table":
            self.stdout.write(report_table(rows))
        else:
            self.stdout.write(
                json.dumps({"project": project.name, "rows": rows}, ensure_ascii=False)
            )
