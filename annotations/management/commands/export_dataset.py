"""``manage.py export_dataset --project NAME --format mafalda|doccano|labelstudio|hf|xmi|flub|
smartypat|items --out PATH``.

``labelstudio`` writes Label Studio JSON tasks (``services.label_studio_exports``): the
submitted annotations, one per annotator, or with ``--gold-version N`` that version as one
annotation per task, with the spans' explanations and the project's finished runs as
predictions; the labeling config goes beside it (``<out stem>.config.xml``).

``xmi`` writes UIMA CAS XMI in an INCEpTION project export's layout (``--out DIR``, new or
empty; ``services.uima_exports``): every annotator's annotations, or with ``--gold-version N``
that published gold version as the curated CASes.

``hf`` writes a Hugging Face dataset folder (``--out DIR``, new or empty): a span project's
published gold version (``--gold-version N``, else the latest), an item project's items with
their answer key (``services.hf_exports``); ``--license`` and ``--language`` go into its card.

Item projects export their items (``services.item_exports``): FLUB JSON Lines and
SmartyPat CSV give back imported records as read; ``items`` is generic JSON Lines (text,
id, options, gold; ``--responses`` adds the submitted answers).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import IO

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotations.models import GoldStandard, Project
from annotations.services.exports import ExportError, export_doccano, export_mafalda, published_gold
from annotations.services.hf_exports import export_hf
from annotations.services.item_exports import EXPORTERS as ITEM_EXPORTERS
from annotations.services.item_exports import export_items
from annotations.services.label_studio_exports import export_label_studio, project_labeling_config
from annotations.services.uima_exports import export_uima


class Command(BaseCommand):
    help = (
        "Export a published gold standard (the latest, or --version N) as MAFALDA or doccano "
        "JSON Lines or a Hugging Face dataset folder (hf), or with --annotator one annotator's "
        "annotations as doccano JSON Lines."
    )

    def create_parser(self, prog_name: str, subcommand: str, **kwargs) -> CommandParser:
        # Our --version (the gold standard's) replaces Django's (the program's).
        return super().create_parser(prog_name, subcommand, conflict_handler="resolve", **kwargs)

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--project", required=True, help="project name")
        parser.add_argument(
            "--format",
            required=True,
            choices=("mafalda", "doccano", "labelstudio", "hf", "xmi", *ITEM_EXPORTERS),
        )
        parser.add_argument("--out", required=True, type=Path, help="file to write ('-': stdout)")
        parser.add_argument("--annotator", help="username (doccano only): their annotations")
        parser.add_argument("--version", type=int, dest="gold_version", help="gold version")
        parser.add_argument(
            "--gold-version", type=int, dest="gold_version", help="gold version (as --version)"
        )
        parser.add_argument(
            "--license",
            help="hf: the card's licence id (default: the one the project declares, else unknown)",
        )
        parser.add_argument(
            "--language",
            action="append",
            dest="languages",
            help="hf: a language code of the texts (repeatable; default: those the documents' "
            "metadata declares, else told from the texts' script: zh, ja, ko or en)",
        )
        parser.add_argument(
            "--responses",
            action="store_true",
            help="items format: add the annotators' submitted responses",
        )

    def handle(
        self,
        *args,
        project: str,
        out: Path,
        annotator: str | None,
        gold_version: int | None,
        responses: bool = False,
        **options,
    ) -> None:
        file_format: str = options["format"]
        found = Project.objects.filter(name=project).first()
        if found is None:
            raise CommandError(f"no project named {project!r}")
        if file_format == "hf":
            self._export_hf(found, out, gold_version, options)
            return
        if file_format == "labelstudio":
            self._export_label_studio(found, out, gold_version, annotator)
            return
        if file_format == "xmi":
            self._export_xmi(found, out, gold_version)
            return
        if file_format in ITEM_EXPORTERS:
            self._export_items(found, file_format, out, responses)
            return
        if annotator and file_format != "doccano":
            raise CommandError("--annotator needs --format doccano (MAFALDA files hold gold)")
        user = None
        if annotator:
            user = get_user_model().objects.filter(username=annotator).first()
            if user is None:
                raise CommandError(f"no user named {annotator!r}")
        try:
            gold = None if user else published_gold(found, gold_version)
            if str(out) == "-":
                count = self._export(found, file_format, user, gold, sys.stdout)
            else:
                with open(out, "w", encoding="utf-8", newline="\n") as stream:
                    count = self._export(found, file_format, user, gold, stream)
        except ExportError as error:
            raise CommandError(str(error)) from error
        what = f"{annotator}'s annotations" if user else f"gold standard v{gold.version}"
        summary = f"Wrote {count} texts ({what}) to {out}."
        (self.stderr if str(out) == "-" else self.stdout).write(summary)

    def _export_hf(
        self, project: Project, out: Path, gold_version: int | None, options: dict
    ) -> None:
        try:
            written = export_hf(
                project=project,
                out=Path(out),
                gold_version=gold_version,
                license=options.get("license") or None,
                languages=tuple(options.get("languages") or ()) or None,
            )
        except ExportError as error:
            raise CommandError(str(error)) from error
        self.stdout.write(written.summary(out))

    def _export_label_studio(
        self, project: Project, out: Path, gold_version: int | None, annotator: str | None
    ) -> None:
        if annotator:
            raise CommandError("--annotator goes with doccano; labelstudio writes every annotator")
        if str(out) == "-":
            raise CommandError("--format labelstudio writes a file and its config: give --out FILE")
        if project.kind == "items":
            raise CommandError(f"project {project.name!r} is an item project: no spans to export")
        try:
            gold = published_gold(project, gold_version) if gold_version is not None else None
        except ExportError as error:
            raise CommandError(str(error)) from error
        with open(out, "w", encoding="utf-8", newline="\n") as stream:
            written = export_label_studio(project=project, gold_standard=gold, out=stream)
        config = Path(out).with_suffix(".config.xml")
        config.write_text(project_labeling_config(project), encoding="utf-8")
        what = f"gold standard v{gold.version}" if gold else "submitted annotations"
        self.stdout.write(
            f"Wrote {written.summary()} ({what}) to {out}; labeling config: {config}."
        )

    def _export_xmi(self, project: Project, out: Path, gold_version: int | None) -> None:
        try:
            counts = export_uima(project=project, out=Path(out), gold_version=gold_version)
        except ExportError as error:
            raise CommandError(str(error)) from error
        what = f"gold standard v{counts.gold_version}" if counts.gold_version else "annotations"
        self.stdout.write(
            f"Wrote {counts.files} CAS XMI files ({what}, {counts.documents} documents) and "
            f"TypeSystem.xml to {out}."
        )

    def _export_items(self, project: Project, file_format: str, out: Path, responses: bool) -> None:
        def write(stream: IO[str]) -> int:
            if file_format == "items":
                return export_items(project=project, out=stream, responses=responses)
            return ITEM_EXPORTERS[file_format](project=project, out=stream)

        if str(out) == "-":
            count = write(sys.stdout)
        else:
            with open(out, "w", encoding="utf-8", newline="") as stream:
                count = write(stream)
        summary = f"Wrote {count} items ({file_format}) to {out}."
        (self.stderr if str(out) == "-" else self.stdout).write(summary)

    @staticmethod
    def _export(
        project: Project,
        file_format: str,
        user: AbstractBaseUser | None,
        gold: GoldStandard | None,
        stream: IO[str],
    ) -> int:
        if file_format == "mafalda":
            return export_mafalda(project=project, gold_standard=gold, out=stream)
        return export_doccano(project=project, annotator=user, gold_standard=gold, out=stream)
