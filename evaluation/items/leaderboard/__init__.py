"""The results of an item project: models, imported runs and humans on the form's tasks.

``item_leaderboard(project=, profile=None, subset=None)`` reads what is stored (it writes
nothing) and returns:

- ``profiles``: the scoring profiles the runs' stored reports hold (``definition`` first);
  ``profile`` the one asked for (``None``: all of them, side by side);
- ``subset``: ``None`` or ``{"name", "items"}`` (``answers.subset_items``: ``split=bench``,
  ``gold=fallacious``…), ``subsets`` the ones the project offers; with a subset every
  figure is recomputed on the subset's items from the stored parsed outputs;
- ``rows`` (``rows``): one per party (model × prompt variant, imported run, annotator) and
  profile, each with ``profile``, its task cells (the primary figure, metric, items scored,
  unparseable count, a free-text field's judge mean, ``vs_next``: the paired test against the
  next row), ``skills`` and ``overall``, ``coverage``, ``group`` and ``rank``
  (``ranking``: rows are ranked only against rows scored on the same items);
- ``overall_basis``: how the overall is formed (only figures on the 0-1 scale; ``figures``);
- ``figures``: every figure of every report, per task (``figures``); ``label_bias`` the
  predicted vs gold label counts; ``comparisons`` the prompting deltas;
- ``unscored``: finished runs without a stored report; ``items``: the number of items with
  an answer key on the board;
- ``compare``: with ``pair=(A, B)`` (row keys or names), the paired test of A minus B per
  profile and task on the items both scored (``ranking.compare``), else ``None``.

``to_csv`` and ``to_latex`` (``export``) render it.
"""

from __future__ import annotations

from typing import Any

from annotations.items import Form, parse_form
from annotations.models import Document, Project
from evaluation.items.leaderboard.answers import (
    DEFAULT_PROFILE,
    QueryError,
    subset_items,
    subset_options,
)
from evaluation.items.leaderboard.export import to_csv, to_latex
from evaluation.items.leaderboard.figures import (
    aggregate,
    comparisons,
    delta_mark,
    figures,
    label_bias,
    overall_basis,
)
from evaluation.items.leaderboard.ranking import compare, neighbour_tests, rank
from evaluation.items.leaderboard.rows import (
    HUMAN_KINDS,
    human_rows,
    model_rows,
    ordered_profiles,
    project_profiles,
    variant_label,
)

__all__ = [
    "DEFAULT_PROFILE",
    "HUMAN_KINDS",
    "QueryError",
    "delta_mark",
    "item_leaderboard",
    "to_csv",
    "to_latex",
    "variant_label",
]


def _items_with_gold(project: Project, subset: frozenset[int] | None) -> int:
    count = 0
    for pk, metadata in Document.objects.filter(project=project).values_list("id", "metadata"):
        if (subset is None or pk in subset) and any(
            value is not None for value in ((metadata or {}).get("gold") or {}).values()
        ):
            count += 1
    return count


def _subset(project: Project, form: Form, name: str | None) -> frozenset[int] | None:
    if not name:
        return None
    chosen = subset_items(project, form, name)
    if not chosen:
        offered = ", ".join(option["name"] for option in subset_options(project, form))
        raise QueryError(f"subset {name!r}: no item of the project (subsets: {offered or 'none'})")
    return chosen


def item_leaderboard(
    *,
    project: Project,
    profile: str | None = None,
    subset: str | None = None,
    pair: tuple[str, str] | None = None,
) -> dict[str, Any]:
    """The results of an item project (see the module docstring); ``QueryError`` for a
    profile the results do not have, a subset that names no item or a ``pair`` of rows
    (keys or names) the board does not have."""
    form = parse_form(project.form)
    chosen = _subset(project, form, subset)
    wanted = [profile] if profile else None
    runs, unscored, found = model_rows(project, form, wanted, chosen)
    profiles = ordered_profiles({*found, *project_profiles(project)})
    if profile and profile not in profiles:
        raise QueryError(f"profile {profile!r}: the results have {', '.join(profiles)}")
    rows = runs + human_rows(project, form, wanted or profiles, chosen)
    for row in rows:
        row["skills"], row["overall"] = aggregate(row["tasks"], form)
    total = _items_with_gold(project, chosen)
    rows = rank(rows, profiles, total)
    columns = [f.name for f in form.fields if any(f.name in row["tasks"] for row in rows)]
    neighbour_tests(rows, columns)
    skills: list[str] = []
    for form_field in form.fields:
        if form_field.name in columns and form_field.skill_name not in skills:
            skills.append(form_field.skill_name)
    board = {
        "project": {"id": project.pk, "name": project.name, "kind": project.kind},
        "aggregate": form.aggregate,
        "profiles": profiles,
        "profile": profile,
        "subset": {"name": subset, "items": len(chosen)} if chosen is not None else None,
        "subsets": subset_options(project, form),
        "items": total,
        "overall_basis": overall_basis(rows, form, columns),
        "tasks": [
            {"field": f.name, "kind": f.kind, "title": f.title or f.name, "skill": f.skill_name}
            for f in form.fields
            if f.name in columns
        ],
        "skills": skills,
        "rows": rows,
        "comparisons": comparisons(rows, columns),
        "label_bias": label_bias(rows, columns, form, project),
        "figures": figures(rows, columns),
        "unscored": unscored,
        "compare": compare(rows, columns, pair) if pair else None,
    }
    for row in rows:
        del row["_reports"], row["_answers"]
    return board
