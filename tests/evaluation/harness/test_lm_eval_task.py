"""A gold version exported as an lm-evaluation-harness task runs in ``simple_evaluate`` with its
``hf`` model on the tiny random model; the F1 it reports equals the platform's score of the
same outputs once the ``--log_samples`` file is imported as a run (harness and version
recorded), and the prompts are those a platform run of the variant sends."""

from __future__ import annotations

import json
from importlib.metadata import version
from pathlib import Path

import pytest
import yaml
from django.core.management import call_command

from evaluation.benchmarks import get_task
from evaluation.models import ModelRun, PromptVariant
from evaluation.runs.prompts import gold_documents, task_labels
from tests.support.harness import platform_f1, scoring_library, three_text_gold

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


def run_lm_eval(folder: Path, task: str, model: Path, out: Path) -> tuple[dict, Path]:
    """``lm_eval --include_path folder --tasks task --model hf --log_samples --output_path out``
    as the CLI does it; the results and the samples file."""
    from lm_eval import simple_evaluate
    from lm_eval.loggers import EvaluationTracker
    from lm_eval.tasks import TaskManager

    tracker = EvaluationTracker(output_path=str(out))
    results = simple_evaluate(
        model="hf",
        model_args=f"pretrained={model},dtype=float32",
        tasks=[task],
        task_manager=TaskManager(include_path=str(folder), include_defaults=False),
        device="cpu",
        batch_size=8,
        log_samples=True,
        bootstrap_iters=0,
        gen_kwargs="max_gen_toks=6",
        evaluation_tracker=tracker,
    )
    samples = results.pop("samples")
    tracker.save_results_aggregated(results=results, samples=samples)
    tracker.save_results_samples(task_name=task, samples=samples[task])
    [samples_file] = out.rglob(f"samples_{task}_*.jsonl")
    return results, samples_file


def test_lm_eval_runs_the_exported_task_and_its_f1_equals_the_platforms(
    tmp_path: Path, tiny_model_dir: Path
) -> None:
    project, gold = three_text_gold(tmp_path)
    folder = tmp_path / "lm-eval"
    call_command(
        "export_harness", "--project", project.name, "--gold-version", "1",
        "--to", "lm-eval", str(folder), "--task", "mafalda_tiny",
    )  # fmt: skip
    config = yaml.safe_load((folder / "mafalda_tiny.yaml").read_text().replace("!function ", ""))
    assert config["output_type"] == "generate_until" and config["task"] == "mafalda_tiny"
    units = [json.loads(line) for line in (folder / "units.jsonl").read_text().splitlines()]
    variant = PromptVariant.objects.get(task="mafalda", name="zero-shot", version=1, project=None)
    expected = get_task("mafalda").prompts(
        gold_documents(gold), labels=task_labels(gold, 2), variant=variant.spec()
    )
    assert [unit["prompt"] for unit in units] == [prompt.prompt for prompt in expected]
    assert "import django" not in (folder / "utils.py").read_text()

    with scoring_library(tmp_path):
        results, samples_file = run_lm_eval(
            folder, "mafalda_tiny", tiny_model_dir, tmp_path / "out"
        )
    reported = results["results"]["mafalda_tiny"]
    assert len(samples_file.read_text().splitlines()) == 5

    call_command(
        "import_run", str(samples_file), "--project", project.name, "--name", "tiny",
        "--gold-version", "1",
    )  # fmt: skip
    run = ModelRun.objects.get(name="tiny")
    assert run.imported and run.backend == "lm-eval"
    assert run.config["harness"] == {
        "name": "lm-evaluation-harness",
        "version": version("lm_eval"),
        "task": "mafalda_tiny",
        "variant": "zero-shot v1",
    }
    assert str(tiny_model_dir) in run.model_name
    platform = platform_f1(run)
    for level in ("0", "1", "2"):
        assert reported[f"f1_level{level},none"] == pytest.approx(platform[level], abs=1e-12)
