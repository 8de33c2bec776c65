"""``manage.py import_run PATH --project NAME --name RUNNAME [--gold-version N]``, and for
item projects ``PATH [PATH ...] --field FIELD [--id-column C] [--output-column C|*]
[--id-prefix P ...]``.

A span project: a raw-results JSONL (``{text, prediction: {sentence: raw output}}``)
becomes a finished model run. An item project: one record per item with its id and the
model's raw answer (JSON Lines ``{"id", "output"}``, a JSON array of them, or CSV) becomes
a finished item run answering ``--field``, parsed and scored at once; several files make
one run (a model's bench and benign outputs), ``--id-prefix`` given once per file in order
(``''`` for none) puts a prefix before their ids, and ``--output-column '*'`` takes each
whole record as the answer (SmartyPat's published ``{id, logic_error, logic_fallacies}``).
``--skip-unmatched`` skips records whose id matches no item (SmartyPat's benign outputs
hold 504 records for 502 sentences) and prints their count and the first few; without it
such a record is an error.
Harness logs (span projects, ``--gold-version`` required): lm-evaluation-harness
``--log_samples`` output (``samples_<task>_<date>.jsonl``) and Inspect ``.eval`` logs of a task
``export_harness`` wrote, recognised by their names (or ``--format lm-eval|inspect``); each
sample maps to its sentence of the gold version and the run records the harness and its
version (``evaluation.harness``).
All or nothing: a bad record names file, line and field (a log: file and sample) and writes
nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotations.importing.formats import DatasetFormatError
from annotations.models import GoldStandard, Project
from evaluation.harness import logs
from evaluation.harness.imports import import_harness_log
from evaluation.items.imports import OutputsFile, import_item_run
from evaluation.models import ModelRun
from evaluation.runs.imports import RunImportError, import_run


class Command(BaseCommand):
    help = (
        "Import a model's published outputs as a stored run: raw-results JSONL for a span "
        "project; for an item project (--field), one {id, output} record per item."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "paths",
            nargs="+",
            type=Path,
            metavar="path",
            help="the outputs file (item projects: one or more, all for one run)",
        )
        parser.add_argument("--project", required=True, help="project name")
        parser.add_argument("--name", required=True, help="run name (unique in the project)")
        parser.add_argument(
            "--gold-version", type=int, help="span projects: gold version the run was made for"
        )
        parser.add_argument(
            "--field", default="", help="item projects: the form field the outputs answer"
        )
        parser.add_argument(
            "--id-column", default="", help='item projects: key or column of the item id ("id")'
        )
        parser.add_argument(
            "--output-column",
            default="",
            help='item projects: key or column of the raw answer ("output"); "*": the whole '
            "record as JSON (SmartyPat's published outputs)",
        )
        parser.add_argument(
            "--id-prefix",
            action="append",
            default=None,
            help="item projects: put before each id of a file, given once per file in order "
            "(e.g. --id-prefix '' --id-prefix good- for bench and benign outputs)",
        )
        parser.add_argument(
            "--skip-unmatched",
            action="store_true",
            help="item projects: skip records whose id matches no item (their count and the "
            "first few ids are printed and kept in the run's config) instead of refusing the file",
        )
        parser.add_argument(
            "--format",
            choices=("auto", "raw-results", logs.LM_EVAL, logs.INSPECT),
            default="auto",
            help="span projects: raw-results JSONL, an lm-evaluation-harness samples file or an "
            "Inspect .eval log (auto: by the file's name and first line)",
        )
        parser.add_argument("--backend", default="", help="e.g. vllm, transformers, openai")
        parser.add_argument("--model-name", default="", help="the model's name or path")

    def handle(self, *args, **options) -> None:
        paths: list[Path] = options["paths"]
        for path in paths:
            if not path.is_file():
                raise CommandError(f"{path}: no such file")
        project = Project.objects.filter(name=options["project"]).first()
        if project is None:
            raise CommandError(f"no project named {options['project']!r}")
        try:
            if project.kind == "items" or options["field"]:
                run = self.item_run(project, paths, options)
            else:
                if len(paths) > 1 or options["id_prefix"] or options["skip_unmatched"]:
                    raise CommandError(
                        "several files, --id-prefix and --skip-unmatched are for item "
                        "projects; a span run is one raw-results JSONL"
                    )
                run = self.span_run(project, paths[0], options)
        except (DatasetFormatError, RunImportError) as error:
            raise CommandError(str(error)) from error
        self.stdout.write(self.style.SUCCESS(summary(run)))

    def item_run(self, project: Project, paths: list[Path], options: dict[str, Any]) -> ModelRun:
        if not options["field"] and project.kind == "items":
            raise CommandError(
                f"project {project.name!r} is an item project: name the form field the outputs "
                'answer (--field FIELD); the file holds one record per item {"id": <item id>, '
                '"output": <raw answer>}'
            )
        if options["gold_version"] is not None:
            raise CommandError("--gold-version is for span projects; item runs have none")
        prefixes = options["id_prefix"] or [""] * len(paths)
        if len(prefixes) != len(paths):
            raise CommandError(
                f"--id-prefix: given {len(prefixes)} times for {len(paths)} files; give it once "
                "per file, in order ('' for none), or not at all"
            )
        return import_item_run(
            project=project,
            path=paths[0],
            id_prefix=prefixes[0],
            extra_files=[
                OutputsFile(path, id_prefix=prefix)
                for path, prefix in zip(paths[1:], prefixes[1:], strict=True)
            ],
            name=options["name"],
            field=options["field"],
            id_column=options["id_column"],
            output_column=options["output_column"],
            backend=options["backend"],
            model_name=options["model_name"],
            skip_unmatched=options["skip_unmatched"],
        )

    def span_run(self, project: Project, path: Path, options: dict[str, Any]) -> ModelRun:
        harness = options["format"]
        if harness == "auto":
            harness = logs.detect(path) or "raw-results"
        gold = self.span_gold(project, options)
        if harness == "raw-results":
            return import_run(
                project=project,
                path=path,
                name=options["name"],
                gold_standard=gold,
                backend=options["backend"],
                model_name=options["model_name"],
            )
        if options["backend"]:
            raise CommandError("--backend: a harness log's run is backed by the harness")
        return import_harness_log(
            project=project,
            log=logs.read_log(path, harness, str(path)),
            file_name=str(path),
            name=options["name"],
            gold_standard=gold,
            model_name=options["model_name"],
        )

    def span_gold(self, project: Project, options: dict[str, Any]) -> GoldStandard | None:
        gold = None
        if options["gold_version"] is not None:
            gold = GoldStandard.objects.filter(
                project=project, version=options["gold_version"]
            ).first()
            if gold is None:
                raise CommandError(
                    f"project {project.name!r} has no gold version {options['gold_version']}"
                )
        return gold


def summary(run: ModelRun) -> str:
    """The line the command prints about the imported run."""
    if not run.field:
        harness = run.config.get("harness")
        source = f" from {harness['name']} {harness['version']}".rstrip() if harness else ""
        return (
            f"Imported run {run.name!r} (id {run.pk}){source}: {run.config['texts']} texts,"
            f" {run.config['outputs']} outputs"
        )
    report = run.scores.order_by("pk").values_list("report", flat=True).first() or {}
    primary = report.get("primary") or {}
    value = primary.get("value")
    figure = f"{primary.get('name')} {value:.4f}" if isinstance(value, int | float) else "no score"
    unparseable = (report.get("unparseable") or {}).get("count", 0)
    coverage = report.get("coverage") or {}
    scored_on = (
        f" (scored on the {coverage['items']} of {coverage['of']} items it covers)"
        if coverage and run.config["missing"]
        else ""
    )
    line = (
        f"Imported item run {run.name!r} (id {run.pk}) answering {run.field!r}:"
        f" {run.config['outputs']} outputs, {run.config['missing']} items missing{scored_on},"
        f" {unparseable} unparseable; {figure}"
    )
    return line + skipped_line(run.config.get("skipped"))


def skipped_line(skipped: dict[str, Any] | None) -> str:
    """The records ``--skip-unmatched`` skipped: their count and the first few."""
    if not skipped:
        return ""
    if not skipped["count"]:
        return "\nSkipped no record: every id matches an item."
    first = ", ".join(f"{r['id']!r} ({r['file']} line {r['line']})" for r in skipped["first"])
    more = "" if skipped["count"] <= len(skipped["first"]) else ", ..."
    return f"\nSkipped {skipped['count']} record(s) whose id matches no item: {first}{more}"
