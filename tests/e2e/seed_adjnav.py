"""Data of the adjudication page's previous / next test (tests/e2e/test_adjudication.py): a
project of its own like the edges' adjudication order project (two annotators who agree on
some documents and differ on others), so its saves leave the other tests' drafts alone.
Prints a JSON object with the ids the test needs."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [] if str(ROOT) in sys.path else [str(ROOT)]  # run as a script
from tests.e2e.seed_base import setup_django  # noqa: E402

NAV_PROJECT = "Adjudication: previous and next"

if __name__ == "__main__":
    setup_django()
    from tests.e2e.seed_edges import order_project

    print(json.dumps(order_project(NAV_PROJECT)))
