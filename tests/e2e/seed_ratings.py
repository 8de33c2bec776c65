"""A rating project (``tests/support/ratings.py``: six items, three raters of a likert and a
rubric field) with a finished judge run, for ``tests/e2e/test_item_leaderboard.py``.

Run as a script against the database the environment selects, after ``migrate``::

    python tests/e2e/seed_ratings.py

Prints a JSON object: {"project", "judge_run", "reviewer"}.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [] if str(ROOT) in sys.path else [str(ROOT)]  # run as a script
from tests.e2e.seed_base import setup_django  # noqa: E402
from tests.e2e.seed_base import user as _user  # noqa: E402

NAME = "Ratings (browser tests)"
PREFIX = "rate-"


def build() -> dict:
    from tests.support.ratings import build_rated, judge_run

    rated = build_rated(NAME, PREFIX, make_user=_user)
    run = judge_run(rated["project"], rated["documents"])
    return {"project": rated["project"].pk, "judge_run": run.pk, "reviewer": PREFIX + "rev"}


if __name__ == "__main__":
    setup_django()
    from annotations.models import Project
    from evaluation.models import ModelRun

    existing = Project.objects.filter(name=NAME).first()
    if existing:
        run = ModelRun.objects.get(project=existing, task="judge-fidelity")
        print(json.dumps({"project": existing.pk, "judge_run": run.pk, "reviewer": PREFIX + "rev"}))
    else:
        print(json.dumps(build()))
