"""``manage.py assign --project P --per-document N --annotators a,b,c
[--documents all|unassigned|sample:K] [--seed S]``: each chosen document to N annotators."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotations.models import Project
from annotations.services.assignments import DocumentChoice, Sample, assign_to_annotators


class Command(BaseCommand):
    help = (
        "Top each chosen document of a project up to N assignments among the given "
        "annotators, balanced (running it again changes nothing)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--project", required=True, help="project id or name")
        parser.add_argument("--per-document", type=int, required=True, help="annotators each")
        parser.add_argument(
            "--annotators", required=True, help="comma-separated usernames, e.g. ann1,ann2,ann3"
        )
        parser.add_argument(
            "--documents",
            default="all",
            help="all (default), unassigned, or sample:K (K random documents)",
        )
        parser.add_argument("--seed", type=int, help="seeds the sample and the tie-breaking")

    def handle(self, *args, **options) -> None:
        project = _project(options["project"])
        annotators = _users(options["annotators"])
        documents = _documents(options["documents"], options["seed"])
        try:
            report = assign_to_annotators(
                project=project,
                annotators=annotators,
                per_document=options["per_document"],
                documents=documents,
                seed=options["seed"],
            )
        except ValidationError as exc:
            messages = [m for ms in exc.message_dict.values() for m in ms]
            raise CommandError("; ".join(messages) + " (nothing assigned)") from exc
        self.stdout.write(
            self.style.SUCCESS(
                f"Project '{project.name}': {report.created} assignment"
                f"{'' if report.created == 1 else 's'} created over {report.documents} "
                f"documents ({options['per_document']} annotators each)."
            )
        )
        for row in report.annotators:
            self.stdout.write(f"  {row.username:<20} {row.assigned} assigned in total")


def _project(value: str) -> Project:
    by_id = Project.objects.filter(pk=int(value)).first() if value.isdigit() else None
    project = by_id or Project.objects.filter(name=value).first()
    if project is None:
        raise CommandError(f"no project with id or name '{value}'")
    return project


def _users(value: str) -> list:
    names = [n.strip() for n in value.split(",") if n.strip()]
    if not names:
        raise CommandError("--annotators: give at least one username")
    found = {u.get_username(): u for u in get_user_model().objects.filter(username__in=names)}
    missing = [n for n in names if n not in found]
    if missing:
        raise CommandError(f"no user named {', '.join(missing)} (nothing assigned)")
    return [found[n] for n in names]


def _documents(value: str, seed: int | None) -> DocumentChoice:
    if value in ("all", "unassigned"):
        return value  # type: ignore[return-value]
    kind, _, size = value.partition(":")
    if kind == "sample" and size.isdigit() and int(size) > 0:
        return Sample(size=int(size), seed=seed)
    raise CommandError(f"--documents: '{value}' is not all, unassigned or sample:K")
