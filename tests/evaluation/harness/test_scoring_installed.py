"""``make install`` installs the scorer as ``fallacy_scoring`` (editable, this checkout's
``evaluation/scoring``), so a task exported for lm-eval or Inspect imports in the project's own
environment, from any folder, without the test suite's path tricks."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_exported_tasks_find_the_scorer_in_the_projects_environment(tmp_path: Path) -> None:
    environment = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    found = subprocess.run(
        [
            sys.executable,
            "-c",
            "import fallacy_scoring, fallacy_scoring.harness; print(fallacy_scoring.__file__)",
        ],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert found.returncode == 0, found.stderr
    scorer_folder = (ROOT / "evaluation" / "scoring").resolve()
    assert Path(found.stdout.strip()).resolve().parent == scorer_folder
