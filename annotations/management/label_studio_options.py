"""``import_dataset --format labelstudio``'s choices: ``--texts-only``, ``--map-annotator
KEY=member:USER|invite:EMAIL|drop`` (repeatable) and ``--list-annotators`` (the first step:
the file's annotators with their counts and what an import without choices does with each;
nothing is imported). The same service as the Import tab underneath
(``importing.label_studio_annotators``), as an operator: a member choice may name any
account, and an annotator without a choice is matched by e-mail among every account."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import CommandError, CommandParser

from annotations.importing.formats.label_studio import read_label_studio
from annotations.importing.formats.label_studio_sources import read_annotators
from annotations.importing.label_studio import import_label_studio
from annotations.importing.label_studio_annotators import (
    AnnotatorChoice,
    default_holders,
    parse_choices,
    prepare_choices,
)
from annotations.importing.label_studio_report import LabelStudioReport
from annotations.models import Project


def add_arguments(parser: CommandParser) -> None:
    parser.add_argument(
        "--texts-only",
        dest="texts_only",
        action="store_true",
        help="labelstudio: import the tasks' texts only (no annotations, no predictions)",
    )
    parser.add_argument(
        "--map-annotator",
        dest="map_annotator",
        action="append",
        metavar="KEY=CHOICE",
        help="labelstudio: KEY (a Label Studio user id, or e-mail; see --list-annotators) = "
        "member:USERNAME, invite:EMAIL or drop (repeatable)",
    )
    parser.add_argument(
        "--list-annotators",
        dest="list_annotators",
        action="store_true",
        help="labelstudio: list the file's annotators with their counts; import nothing",
    )


@dataclass
class LabelStudioOptions:
    texts_only: bool = False
    choices: dict[str, AnnotatorChoice] = field(default_factory=dict)
    list_only: bool = False


def options_from(file_format: str, options: dict[str, Any]) -> LabelStudioOptions:
    """The command's Label Studio options, checked (``CommandError`` naming the flag)."""
    texts_only = bool(options.get("texts_only"))
    mapped = options.get("map_annotator") or []
    list_only = bool(options.get("list_annotators"))
    if file_format != "labelstudio":
        for flag, given in (
            ("--texts-only", texts_only),
            ("--map-annotator", mapped),
            ("--list-annotators", list_only),
        ):
            if given:
                raise CommandError(f"{flag} goes with --format labelstudio")
        return LabelStudioOptions()
    if texts_only and mapped:
        raise CommandError("--texts-only imports no annotations: drop --map-annotator")
    raw: dict[str, str] = {}
    for entry in mapped:
        key, sep, choice = entry.partition("=")
        if not sep or not key.strip() or not choice.strip():
            raise CommandError(f"--map-annotator {entry!r}: expected KEY=CHOICE")
        raw[key.strip()] = choice.strip()
    try:
        choices = parse_choices(raw)
    except ValidationError as error:
        raise CommandError(f"--map-annotator: {' '.join(error.messages)}") from error
    return LabelStudioOptions(texts_only, choices, list_only)


def list_annotators(path: Path, project_name: str | None) -> str:
    """The first step's text: one line per annotator of the file."""
    tasks = read_label_studio(path)
    sources = read_annotators(tasks)
    project = Project.objects.filter(name=project_name).first() if project_name else None
    holders = default_holders(project, sources, members_only=False) if project else {}
    lines = [f"{len(tasks)} tasks, {len(sources)} annotators (KEY: annotations, regions):"]
    for source in sources:
        holder = holders.get(source.key, {"how": "new", "user": None})
        default = (
            f"{holder['how']}: {holder['user']}"
            if holder["user"]
            else "matched by e-mail or ls-user-<id> (created when new)"
        )
        lines.append(
            f"  {source.key}: {source.annotations}, {source.regions}  {source.shown}  -> {default}"
        )
    return "\n".join(lines)


def import_with_options(
    *, path: Path, project: Project, chosen: LabelStudioOptions, out: Any
) -> LabelStudioReport:
    """The import (inside the command's transaction), invitations' links written to ``out``."""
    choices, created = prepare_choices(
        project=project, choices=chosen.choices, created_by=None, members_only=False
    )
    for invitation, token in created:
        out.write(f"Invited {invitation.email}: /invite/{token}/ (shown once)")
    return import_label_studio(
        path=path, project=project, texts_only=chosen.texts_only, choices=choices
    )
