"""bench/load_annotate.py at a small size: annotators save while gunicorn is killed and
restarted and a scratch PostgreSQL server (its own initdb/pg_ctl cluster on a port in
55432–55439, never the shared one) is stopped and started; nothing may be lost.

The second test shows the checker can fail: spans removed or copied in the database behind
the clients' backs must be reported and make the script exit 1.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import ROOT

SCRIPT = ROOT / "bench" / "load_annotate.py"

pytestmark = pytest.mark.slow


def _require_postgres_binaries() -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from pg_scratch import pg_bin_dir

        pg_bin_dir()
    except RuntimeError as exc:
        pytest.skip(str(exc))
    finally:
        sys.path.remove(str(ROOT / "bench"))


def run_load(tmp_path: Path, *args: str, timeout: float = 300) -> tuple[int, dict, str]:
    _require_postgres_binaries()
    out = tmp_path / "report.json"
    proc = subprocess.Popen(
        [sys.executable, str(SCRIPT), "--json", str(out), "--work-dir", str(tmp_path), *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.terminate()  # SIGTERM: the script stops gunicorn and its cluster on the way out
        stdout, stderr = proc.communicate(timeout=60)
        pytest.fail(f"load_annotate.py ran past {timeout:.0f} s:\n{(stdout + stderr)[-4000:]}")
    text = stdout + stderr
    assert out.exists(), f"no report (exit {proc.returncode}):\n{text[-4000:]}"
    return proc.returncode, json.loads(out.read_text()), text


def test_nothing_lost_through_web_and_database_restarts(tmp_path):
    code, report, text = run_load(
        tmp_path, "--annotators", "4", "--saves", "60", "--down-s", "1", "--workers", "3"
    )
    v = report["verdict"]
    assert (v["lost"], v["duplicated"], v["mismatched"], v["resurrected"]) == (0, 0, 0, 0), text
    assert v["revision_off"] == 0 and v["gave_up"] == 0 and v["unexpected"] == 0, text
    assert v["spans_server"] == v["spans_believed"] > 0
    names = [w["name"] for w in report["windows"]]
    assert len(names) == 2 and names[0].startswith("web") and "postgresql" in names[1], names
    # the restarts really hit the clients: some attempts failed inside the windows
    assert any("inside a window" in k for k in report["failed_attempts"]), report
    assert report["errors_outside_windows"] == 0, text
    c = report["conflicts"]
    assert c["deliberate"] > 0 and c["got_409"] == c["deliberate"] and c["wrong"] == 0
    assert report["saves"] == 4 * 60
    assert code == 0, text


def test_the_checker_reports_lost_and_duplicated_spans(tmp_path):
    code, report, text = run_load(
        tmp_path,
        "--annotators", "2", "--saves", "20", "--restarts", "none", "--workers", "2",
        "--inject", "lose,duplicate",
    )  # fmt: skip
    assert code == 1, text
    assert report["verdict"]["lost"] == 1, report["verdict"]
    assert report["verdict"]["duplicated"] == 1, report["verdict"]
    assert "RESULT: FAILED" in text
