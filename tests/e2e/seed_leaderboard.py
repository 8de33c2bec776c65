"""A 20-text gold version with runs and a human scored on different texts: the data of the
comparable-leaderboard browser test (``tests/e2e/test_leaderboard_comparable.py``).

Built with the helpers of ``tests/support/runs.py`` (``twenty_text_world``): runs
``strong`` (right on texts 2-19) and ``weak`` (right on 0-7) over all 20 texts, ``tiny``
limited to the first 2 texts (right on both), and the annotator ``lb-human`` who submitted
texts 0-4 (right on 0-3). Prints a JSON object with the ids the browser test needs; a
second run prints those of the first (several browser tests read this leaderboard).
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [] if str(ROOT) in sys.path else [str(ROOT)]  # run as a script
from tests.e2e.seed_base import DEMO_PASSWORD, setup_django  # noqa: E402
from tests.e2e.seed_base import user as _user  # noqa: E402

HUMAN = "lb-human"


def main() -> dict:
    setup_django()
    from django.contrib.auth import get_user_model

    from annotations.models import Membership
    from annotations.services.projects import add_member
    from tests.support.runs import annotate_texts, answered_run, twenty_text_world

    admin = get_user_model().objects.filter(username="admin20").first()
    if admin is not None:  # seeded already
        project = admin.memberships.get().project
        gold = project.gold_standards.get()
        return {"project": project.pk, "gold": gold.pk, "admin": admin.get_username()}
    with tempfile.TemporaryDirectory() as folder:
        world = twenty_text_world(Path(folder))
        project, gold, admin, _ = world
        admin.set_password(DEMO_PASSWORD)
        admin.save()
        answered_run(world, "strong", set(range(2, 20)))
        answered_run(world, "weak", set(range(8)))
        answered_run(world, "tiny", {0, 1}, limit=2)
        human = _user(HUMAN)
        add_member(project=project, user=human, role=Membership.Role.ANNOTATOR)
        labels = {0: "ad hominem", 1: None, 2: "ad hominem", 3: None, 4: None}
        annotate_texts(Path(folder), project, human, labels)
    return {"project": project.pk, "gold": gold.pk, "admin": admin.get_username()}


if __name__ == "__main__":
    print(json.dumps(main()))
