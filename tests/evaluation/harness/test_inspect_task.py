"""A gold version exported as an Inspect task runs in Inspect's ``eval`` with its mock model; the
F1 its metrics report equals the platform's score of the same outputs once the ``.eval`` log
is imported as a run, which records the harness and its version."""

from __future__ import annotations

import json
from importlib.metadata import version
from pathlib import Path

import pytest
from django.core.management import call_command

from evaluation.models import ModelRun
from tests.support.harness import S1, S3, S4, platform_f1, run_inspect, three_text_gold

pytestmark = pytest.mark.django_db

# What the mock model answers, by the sentence a prompt asks about (else "no fallacy").
ANSWERS = {S1: "Ad hominem.", S3: "This is an appeal to fear.", S4: "Straw man"}


def test_inspect_runs_the_exported_task_and_its_f1_equals_the_platforms(tmp_path: Path) -> None:
    project, gold = three_text_gold(tmp_path)
    folder = tmp_path / "inspect"
    call_command("export_harness", "--gold-version", "1", "--to", "inspect", str(folder))
    task_file = folder / "mafalda_harness_v1.py"
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        ["README.md", "gold.jsonl", "mafalda_harness_v1.py", "scoring.json", "units.jsonl"]
    )
    gold_rows = [json.loads(line) for line in (folder / "gold.jsonl").read_text().splitlines()]
    assert [sorted(span[2]) for span in gold_rows[0]["spans"]] == [["ad hominem", "no fallacy"]]

    log = run_inspect(task_file, tmp_path / "logs", ANSWERS)
    assert log.status == "success", log.error
    [scores] = log.results.scores
    reported = {name: value.value for name, value in scores.metrics.items()}
    assert set(reported) == {"f1_level0", "f1_level1", "f1_level2"}
    assert 0 < reported["f1_level2"] < 1  # S1 and S3 right, S4 wrong

    [log_file] = (tmp_path / "logs").glob("*.eval")
    call_command(
        "import_run",
        str(log_file),
        "--project",
        project.name,
        "--name",
        "mock",
        "--gold-version",
        "1",
    )
    run = ModelRun.objects.get(name="mock")
    assert run.imported and run.status == ModelRun.Status.DONE
    assert run.backend == "inspect" and run.model_name == "mockllm/model"
    assert run.config["harness"]["name"] == "inspect_ai"
    assert run.config["harness"]["version"] == version("inspect_ai")
    assert run.outputs.count() == 5
    platform = platform_f1(run)
    for level in ("0", "1", "2"):
        assert reported[f"f1_level{level}"] == pytest.approx(platform[level], abs=1e-12)
