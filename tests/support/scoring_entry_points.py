"""What the tests of the scoring entry points share: a management command's JSON output and
a run's P/R/F1 per level as a report or a board row gives them."""

from __future__ import annotations

import io
import json
from typing import Any

from django.core.management import call_command

LEVELS = ("0", "1", "2")
METRICS = ("precision", "recall", "f1")


def command_json(name: str, *args: str) -> Any:
    """What ``manage.py name args --format json`` prints, parsed."""
    out = io.StringIO()
    call_command(name, *args, "--format", "json", stdout=out)
    return json.loads(out.getvalue())


def level_figures(levels: dict[str, Any]) -> dict[str, tuple[float, ...]]:
    """P/R/F1 and the F1 interval per level, from a report's or a board row's levels."""
    found = {}
    for level in LEVELS:
        scores = levels[level]
        interval = scores.get("f1_ci95") or [scores.get("f1_low"), scores.get("f1_high")]
        found[level] = (*(scores[m] for m in METRICS), *interval)
    return found
