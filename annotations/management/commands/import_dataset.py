"""``manage.py import_dataset --format mafalda|doccano|text|labelstudio|hf|xmi|flub|smartypat|
items PATH --project NAME``.

``labelstudio`` reads Label Studio's JSON export (``annotations.importing.label_studio``): one
annotator per completed annotation, regions snapped to sentences (the report says how many
moved and by how much), predictions as one imported run per model version.

``xmi`` reads UIMA CAS XMI (``annotations.importing.uima``): an INCEpTION project export's
folder (``annotation/<document>/<user>.xmi``: one annotator per user file;
``curation/``: a new published gold version), or one ``.xmi`` file with ``TypeSystem.xml``
beside it (``--annotator``: whose, default the file's name).

``hf`` reads a Hugging Face dataset folder written by ``export_dataset --format hf``
(``annotations.importing.hf``): a span export becomes the project's next published gold
version, an item export adds items. ``--project`` defaults to the card's project name; a
new project gets the card's taxonomy (when installed or a preset) unless ``--taxonomy``.

Item formats (``flub``, ``smartypat``, ``items``) go into an item project; a new project
gets the form preset's form (``--form-preset``, by default the format's own: flub,
smartypat), kind ``items`` and the preset's taxonomy (unless ``--taxonomy`` is given).
``items`` reads any CSV or JSON Lines file through ``--columns`` (a JSON mapping, see
``annotations.importing.formats.item_columns``). ``smartypat`` files come with or without
a header; ``--text-column rewrite|post|NAME|N`` picks the item text
(``annotations.importing.formats.smartypat``). ``--set-metadata KEY=VALUE`` (repeatable)
writes a key on every item of the file (``split=bench``: a headerless published file says
nothing of its split; the Results tab offers the values as subsets).

All or nothing: a bad record stops the import, names file, line and field, and leaves the
database as it was (the project too, when this command would have created it). What the
import made (``Created project ...``) is printed only once its transaction has committed,
before the summary; a failed import prints nothing of it.

On PostgreSQL, MAFALDA, doccano and plain-text imports write their documents outside the
search's trigram indexes and add them once the import has committed, as an import job does
(``annotations.services.search_index``): the import's transaction (and the project lock it
holds) does not wait for them, and the command prints their time on a line of its own.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser, OutputWrapper
from django.db import transaction
from fallacy_platform.wal import checkpoint_wal

from annotations.form_presets import get_form_preset
from annotations.importing.datasets import (
    ImportReport,
    import_doccano_annotations,
    import_mafalda_gold,
    import_texts,
)
from annotations.importing.formats import DatasetFormatError
from annotations.importing.hf import import_hf_folder
from annotations.importing.item_settings import ItemImportError, parse_set_metadata
from annotations.importing.items import ITEM_FORMATS, ItemImportReport, import_items
from annotations.importing.label_studio_report import LabelStudioReport
from annotations.importing.parsing import parse_upload
from annotations.importing.uima import import_uima
from annotations.management import label_studio_options
from annotations.models import Project, Taxonomy
from annotations.services import search_index
from annotations.services.projects import create_project
from annotations.services.taxonomy import (
    TaxonomyExistsError,
    install_preset,
    load_taxonomy_file,
)
from annotations.taxonomy_files import TaxonomyFileError, available_presets, read_taxonomy_file

FORMATS = ("mafalda", "doccano", "text", "labelstudio", "hf", "xmi", *ITEM_FORMATS)


class Command(BaseCommand):
    # A data command: the system checks (which import every URL's views) would add seconds
    # to a command that runs in about as many; ``manage.py check`` runs them.
    requires_system_checks: list[str] = []
    help = (
        "Import a dataset into a project (created if missing): a MAFALDA gold standard as a "
        "new published version, one annotator's doccano export, plain texts, a Label Studio "
        "JSON export (annotations and predictions), or items "
        "(FLUB, SmartyPat, or any CSV/JSONL file with --columns) into an item project."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", type=Path, help="the file (hf: the folder) to import")
        parser.add_argument("--format", required=True, choices=FORMATS)
        parser.add_argument("--project", help="project name (hf: default, the card's)")
        parser.add_argument(
            "--annotator", help="username whose annotations a doccano file holds (created if new)"
        )
        parser.add_argument(
            "--taxonomy",
            default=None,
            help="for a new project: a preset name or a taxonomy file (default: mafalda; "
            "for items, the form preset's taxonomy)",
        )
        parser.add_argument(
            "--form-preset",
            dest="form_preset",
            help="item formats, for a new project: its form (flub, flub-rating, smartypat, "
            "argbench; default: the format's own)",
        )
        parser.add_argument(
            "--text-column",
            dest="text_column",
            help="smartypat format: the item text: rewrite (the declarative rewrite), post "
            "(the original post), a header's column name or a 1-based position (default: "
            "the rewrite in a file without a header, else the post)",
        )
        parser.add_argument(
            "--set-metadata",
            dest="set_metadata",
            action="append",
            metavar="KEY=VALUE",
            help="item formats: a metadata key written on every item of the file, e.g. "
            "split=bench (repeatable); offered as a subset on the Results tab",
        )
        parser.add_argument(
            "--columns",
            help='items format: JSON column mapping, e.g. \'{"text": "post", "id": "pid"}\'',
        )

        label_studio_options.add_arguments(parser)

    def execute(self, *args: Any, **options: Any) -> str | None:
        """Label Studio's choices checked first; ``--list-annotators`` lists and imports
        nothing (``annotations.management.label_studio_options``)."""
        self.label_studio = label_studio_options.options_from(options["format"], options)
        if not self.label_studio.list_only:
            return super().execute(*args, **options)
        out = OutputWrapper(options["stdout"]) if options.get("stdout") else self.stdout
        try:
            out.write(label_studio_options.list_annotators(options["path"], options["project"]))
        except DatasetFormatError as error:
            raise CommandError(str(error)) from error
        return None

    def handle(
        self,
        *args,
        path: Path,
        project: str | None,
        annotator: str | None,
        taxonomy: str | None,
        form_preset: str | None,
        columns: str | None,
        text_column: str | None = None,
        set_metadata: list[str] | None = None,
        **options,
    ) -> None:
        self.notes: list[str] = []  # what the import made, printed once it committed
        self.deferred_project: int | None = None  # its documents wait for the search index
        file_format: str = options["format"]
        if file_format in ("hf", "xmi"):
            self._import_folder(file_format, path, project, annotator, taxonomy)
            return
        metadata, mapping = self._checked_options(
            file_format, path, project, annotator, columns, text_column, set_metadata
        )
        assert project is not None
        started, cpu_started = time.perf_counter(), time.process_time()
        with _as_command_errors():
            with transaction.atomic():
                if file_format in ITEM_FORMATS:
                    report: Any = self._import_items(
                        path,
                        file_format,
                        project,
                        taxonomy,
                        form_preset,
                        mapping,
                        text_column,
                        metadata,
                    )
                else:
                    report = self._import(
                        path, file_format, project, annotator, taxonomy or "mafalda"
                    )
        self._committed(report)
        checkpoint_wal()  # SQLite: the log back from the import's size
        seconds = max(time.perf_counter() - started, 1e-6)
        records = report.items if isinstance(report, ItemImportReport) else report.texts
        self.stdout.write(
            f"  in {seconds:.2f} s ({records / seconds:,.0f} records/s;"
            f" {time.process_time() - cpu_started:.2f} s CPU)"
        )
        self._index_deferred()

    def _index_deferred(self) -> None:
        """The committed import's documents into the search's trigram indexes (PostgreSQL;
        ``services.search_index``): they are listed and found by the search already."""
        if self.deferred_project is None:
            return
        started = time.perf_counter()
        try:
            marked = search_index.index_pending(project_id=self.deferred_project)
        except Exception as error:  # the import stands; the search scans its documents meanwhile
            self.stderr.write(
                f"  search index not filled ({type(error).__name__}: {error}); the workers'"
                " sweep adds the documents to it"
            )
            return
        if marked:
            self.stdout.write(
                f"  search index: {marked} documents added in {time.perf_counter() - started:.2f} s"
            )

    def _checked_options(
        self,
        file_format: str,
        path: Path,
        project: str | None,
        annotator: str | None,
        columns: str | None,
        text_column: str | None,
        set_metadata: list[str] | None,
    ) -> tuple[dict[str, str], Any]:
        """The settings of a file import, checked: its metadata keys and column mapping."""
        if not project:
            raise CommandError("--project is required")
        if text_column and file_format != "smartypat":
            raise CommandError("--text-column goes with --format smartypat")
        if set_metadata and file_format not in ITEM_FORMATS:
            raise CommandError(
                f"--set-metadata goes with the item formats ({', '.join(ITEM_FORMATS)})"
            )
        try:
            metadata = parse_set_metadata(set_metadata)
        except ItemImportError as error:
            raise CommandError(str(error).replace("set_metadata:", "--set-metadata:")) from error
        mapping: Any = None
        if file_format == "items":
            if not columns:
                raise CommandError(
                    '--columns is required with --format items (e.g. \'{"text": "post"}\')'
                )
            try:
                mapping = json.loads(columns)
            except json.JSONDecodeError as error:
                raise CommandError(f"--columns: not valid JSON: {error.msg}") from error
        elif columns:
            raise CommandError("--columns goes with --format items")
        if file_format == "doccano" and not annotator:
            raise CommandError("--annotator is required with --format doccano")
        if not path.is_file():
            raise CommandError(f"{path}: no such file")
        return metadata, mapping

    def _note(self, line: str) -> None:
        """A line about what the import made, printed only if it commits."""
        self.notes.append(line)

    def _committed(self, report: Any) -> None:
        """After the import's transaction committed: its notes, then its summary."""
        for line in self.notes:
            self.stdout.write(line)
        self.notes = []
        self.stdout.write(self.style.SUCCESS(report.summary()))

    def _import_folder(
        self,
        file_format: str,
        path: Path,
        project_name: str | None,
        annotator: str | None,
        taxonomy: str | None,
    ) -> None:
        """A Hugging Face dataset folder, or UIMA CAS XMI (an export folder or one file)."""
        with _as_command_errors():
            with transaction.atomic():
                if file_format == "hf":
                    report: Any = import_hf_folder(
                        path=path, project_name=project_name, taxonomy=taxonomy
                    )
                else:
                    report = import_uima(
                        path=path,
                        project=self._span_project(project_name, taxonomy),
                        user=annotator,
                    )
        self._committed(report)
        checkpoint_wal()

    def _span_project(self, project_name: str | None, taxonomy: str | None) -> Project:
        """The named span project, created (with ``taxonomy``, default mafalda) if missing."""
        if not project_name:
            raise CommandError("--project is required")
        project = Project.objects.filter(name=project_name).first()
        if project is None:
            project = create_project(name=project_name, taxonomy=_taxonomy(taxonomy or "mafalda"))
            self._note(f"Created project {project.name!r} ({project.taxonomy}).")
        if project.kind == "items":
            raise CommandError(
                f"project {project.name!r} is an item project; import "
                f"{', '.join(ITEM_FORMATS)} files into it"
            )
        return project

    def _import(
        self, path: Path, file_format: str, project_name: str, annotator: str | None, taxonomy: str
    ) -> ImportReport | LabelStudioReport:
        parse_upload(source=path, format=file_format, name=str(path))  # the bounded child
        project = Project.objects.filter(name=project_name).first()
        if project is None:
            project = create_project(name=project_name, taxonomy=_taxonomy(taxonomy))
            self._note(f"Created project {project.name!r} ({project.taxonomy}).")
        if project.kind == "items":
            raise CommandError(
                f"project {project.name!r} is an item project; import "
                f"{', '.join(ITEM_FORMATS)} files into it"
            )
        if file_format == "labelstudio":
            return label_studio_options.import_with_options(
                path=path, project=project, chosen=self.label_studio, out=self.stdout
            )
        self.deferred_project = project.pk
        later = {"defer_search_index": True}  # indexed once the import committed
        if file_format == "mafalda":
            note = f"imported from {path}"
            return import_mafalda_gold(path=path, project=project, note=note, **later)
        if file_format == "doccano":
            user, _ = get_user_model().objects.get_or_create(username=annotator)
            return import_doccano_annotations(path=path, project=project, annotator=user, **later)
        return import_texts(path=path, project=project, **later)

    def _import_items(
        self,
        path: Path,
        file_format: str,
        project_name: str,
        taxonomy: str | None,
        form_preset: str | None,
        mapping: Any,
        text_column: str | None = None,
        metadata: dict[str, str] | None = None,
    ) -> ItemImportReport:
        parse_upload(source=path, format=file_format, name=str(path))  # the bounded child
        project = Project.objects.filter(name=project_name).first()
        if project is None:
            preset_name = form_preset or (file_format if file_format != "items" else None)
            if preset_name is None:
                raise CommandError("a new project for --format items needs --form-preset")
            preset = get_form_preset(preset_name)
            project = create_project(
                name=project_name,
                taxonomy=_taxonomy(taxonomy or preset.taxonomy),
                kind="items",
                form=preset.form,
            )
            self._note(
                f"Created item project {project.name!r} ({project.taxonomy}, form {preset.name})."
            )
        elif form_preset:
            self._note(f"Project {project.name!r} exists: --form-preset is ignored.")
        return import_items(
            path=path,
            project=project,
            format=file_format,
            columns=mapping,
            text_column=text_column,
            set_metadata=metadata,
        )


@contextmanager
def _as_command_errors() -> Iterator[None]:
    """An import's refusals (bad file, taxonomy, settings) as ``CommandError``."""
    try:
        yield
    except (
        DatasetFormatError,
        TaxonomyFileError,
        TaxonomyExistsError,
        LookupError,
        ItemImportError,
    ) as error:
        raise CommandError(str(error)) from error
    except ValidationError as error:
        raise CommandError("; ".join(_messages(error))) from error


def _messages(error: ValidationError) -> list[str]:
    if hasattr(error, "message_dict"):
        return [f"{place}: {m}" for place, ms in error.message_dict.items() for m in ms]
    return list(error.messages)


def _taxonomy(preset_or_path: str) -> Taxonomy:
    if preset_or_path in available_presets():
        return install_preset(name=preset_or_path)
    spec = read_taxonomy_file(preset_or_path)
    existing = Taxonomy.objects.filter(name=spec.name, version=spec.version).first()
    return existing or load_taxonomy_file(path=Path(preset_or_path))
