"""``manage.py results --project P [--profile NAME] [--subset NAME] [--compare A B]
[--format json|table]``: every figure of every run and annotator on a project's Results tab.

Item projects: the item results (``evaluation.items.leaderboard``); ``--subset KEY=VALUE``
scores the stored outputs on those items only (``split=bench``, ``gold=fallacious``).
Span projects: the leaderboard of the project's latest published gold version
(``evaluation.runs.leaderboard``) under ``--profile`` (default ``paper``); no subsets.

JSON: a list, one object per row and profile, with ``name``, ``kind`` (``model``,
``imported``, ``human``), ``profile`` and all its figures (item projects: ``tasks`` with the
primary figures, ``figures`` with every report figure by ``FIELD:METRIC``, ``label_counts``
with the predicted and gold counts by field, ``skills``, ``overall`` and ``overall_basis``,
``coverage``, ``group`` and ``rank``; span projects: the leaderboard row as the API gives it,
its figures from ``evaluation.runs.scored.score_stored`` like ``manage.py score`` and the
API, a partial run's scored on the texts it covers, with ``coverage``).
The table prints one line per row, with its coverage (texts or items n/N).

``--compare A B`` (an item row's ``key``, a span row's ``run:ID`` / ``annotator:ID``, a
row's name, or a run's name (``--name``) or id) prints instead the paired test of A minus B
on their common items or texts: the difference, its interval and p (item projects: per
profile and task; S under ``authors-smartypat`` over the fallacious items it is scored on),
as the API's ``compare`` gives it.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotations.items import FormError
from annotations.models import GoldStandard, Project
from evaluation.items.leaderboard import QueryError, item_leaderboard
from evaluation.items.leaderboard.export import figure_values
from evaluation.runs.comparable import CompareError
from evaluation.runs.leaderboard import leaderboard
from evaluation.scoring.profiles import PROFILES


def item_objects(board: dict[str, Any]) -> list[dict[str, Any]]:
    """One object per row of an item board, with every figure."""
    values = figure_values(board)
    objects = []
    for row in board["rows"]:
        figures = {}
        for figure in board["figures"]:
            key = f"{figure['field']}:{figure['metric']}"
            found = values.get((row["key"], row["profile"], key))
            if found is not None:
                figures[key] = found
        counts = {
            bias["field"]: {
                side: values.get((row["key"], row["profile"], f"{bias['field']}:{side}"))
                for side in ("predicted", "gold")
            }
            for bias in board["label_bias"]
            if (row["key"], row["profile"], f"{bias['field']}:predicted") in values
        }
        objects.append(
            {
                "name": row["name"],
                "kind": row["kind"],
                "profile": row["profile"],
                "variant": row["variant_label"],
                "model": row["model"],
                "backend": row["backend"],
                "subset": (board["subset"] or {}).get("name"),
                "coverage": row["coverage"],
                "group": row["group"],
                "rank": row["rank"],
                "tasks": row["tasks"],
                "figures": figures,
                "label_counts": counts,
                "skills": row["skills"],
                "overall": row["overall"],
                "overall_basis": board["overall_basis"]["text"],
            }
        )
    return objects


def span_kind(row: dict[str, Any]) -> str:
    """``human`` (an annotator), ``imported`` (a run without a prompt variant) or ``model``."""
    if row["kind"] == "annotator":
        return "human"
    return "imported" if row.get("variant") is None else "model"


def span_objects(board: dict[str, Any]) -> list[dict[str, Any]]:
    return [{**row, "kind": span_kind(row), "profile": board["profile"]} for row in board["rows"]]


def _figure(value: Any) -> str:
    return "-" if not isinstance(value, int | float) else f"{value:.3f}"


def item_table(objects: list[dict[str, Any]]) -> list[str]:
    lines = []
    for entry in objects:
        tasks = " ".join(
            f"{field}={_figure(cell['value'])}" for field, cell in entry["tasks"].items()
        )
        coverage = entry["coverage"]
        lines.append(
            f"{entry['profile']:<18} {entry['group']}.{entry['rank']:<3} "
            f"{entry['kind']:<8} {entry['name']} ({entry['variant']}) "
            f"items {coverage['items']}/{coverage['of']}  {tasks}  "
            f"overall={_figure(entry['overall'])}"
        )
        for key, value in entry["figures"].items():
            if isinstance(value, dict):
                shown = ", ".join(f"{label} {_figure(v)}" for label, v in value.items())
                lines.append(f"    {key}: {shown}")
            else:
                lines.append(f"    {key}: {_figure(value)}")
        for field, counts in entry["label_counts"].items():
            for side in ("predicted", "gold"):
                shown = ", ".join(f"{label} {n}" for label, n in (counts[side] or {}).items())
                lines.append(f"    {field} {side} counts: {shown}")
    return lines


def _test_text(test: dict[str, Any] | None, significant: bool, alpha: float, why: str) -> str:
    if test is None:
        return f"no paired test ({why})"
    verdict = "significant" if significant else "not significant"
    low, high = test["ci"]
    return (
        f"{test['a']:.3f} - {test['b']:.3f} = {test['difference']:+.3f} "
        f"[{low:+.3f}, {high:+.3f}] p={test['p_value']:.4f} over {test['units']} "
        f"({verdict} at {alpha})"
    )


def compare_table(found: dict[str, Any]) -> list[str]:
    """The lines of a ``compare`` entry (item or span board)."""
    lines = [f"A = {found['a']['name']} ({found['a']['key']})"]
    lines.append(f"B = {found['b']['name']} ({found['b']['key']})")
    for entry in found.get("tests", [found]):
        where = ""
        if "field" in entry:
            where = f"{entry['profile']} {entry['field']} {entry['metric']}: "
        text = _test_text(entry["test"], entry["significant"], found["alpha"], entry["reason"])
        lines.append(f"  {where}{text}")
    return lines


def span_table(objects: list[dict[str, Any]]) -> list[str]:
    lines = []
    for entry in objects:
        levels = " ".join(
            f"L{level} P/R/F1 {_figure(s['precision'])}/{_figure(s['recall'])}/{_figure(s['f1'])}"
            for level, s in sorted(entry["levels"].items())
            if s
        )
        coverage = entry.get("coverage") or {}
        texts = f"texts {coverage.get('texts', entry.get('documents'))}/{coverage.get('of', '?')}"
        lines.append(
            f"{entry['profile']:<14} {entry['kind']:<6} {entry['name']}  {texts}  {levels}"
        )
    return lines


class Command(BaseCommand):
    help = "Every figure of every run and annotator of a project's results."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--project", required=True, help="the project's name")
        parser.add_argument("--profile", help="a scoring profile (default: all; spans: paper)")
        parser.add_argument("--subset", help="item projects: KEY=VALUE or gold=fallacious|sound")
        parser.add_argument("--format", choices=["json", "table"], default="table")
        parser.add_argument(
            "--compare",
            nargs=2,
            metavar=("A", "B"),
            help="two rows (keys, names, or a run's name or id): A - B",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        project = Project.objects.filter(name=options["project"]).first()
        if project is None:
            raise CommandError(f"--project: no project named {options['project']!r}")
        board = self._items(project, options) if project.kind == "items" else None
        board = board or self._spans(project, options)
        if options["compare"]:
            objects: Any = board["compare"]
            lines = compare_table(objects)
        elif project.kind == "items":
            objects = item_objects(board)
            lines = item_table(objects)
        else:
            objects = span_objects(board)
            lines = span_table(objects)
        if options["format"] == "json":
            self.stdout.write(json.dumps(objects, indent=2, ensure_ascii=False))
        else:
            self.stdout.write("\n".join(lines) if lines else "no results yet")

    def _items(self, project: Project, options: dict[str, Any]) -> dict[str, Any]:
        try:
            return item_leaderboard(
                project=project,
                profile=options["profile"],
                subset=options["subset"],
                pair=tuple(options["compare"]) if options["compare"] else None,
            )
        except QueryError as error:
            place = str(error).split(" ", 1)[0].rstrip(":")
            place = place if place in ("subset", "compare") else "profile"
            raise CommandError(f"--{place}: {error}") from error
        except FormError as error:
            raise CommandError(f"the project's form is invalid: {error}") from error

    def _spans(self, project: Project, options: dict[str, Any]) -> dict[str, Any]:
        if options["subset"]:
            raise CommandError("--subset: only item projects have subsets")
        profile = options["profile"] or PROFILES[0]
        if profile not in PROFILES:
            raise CommandError(f"--profile: must be one of {', '.join(PROFILES)}")
        gold = (
            GoldStandard.objects.filter(project=project, status=GoldStandard.Status.PUBLISHED)
            .order_by("-version")
            .first()
        )
        if gold is None:
            raise CommandError(f"--project: {project.name!r} has no published gold version")
        try:
            return leaderboard(gold_standard=gold, profile=profile, pair=options["compare"])
        except CompareError as error:
            raise CommandError(f"--compare: {error}") from error
