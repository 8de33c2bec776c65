"""A three-text gold version with a platform run and two runs imported from harness logs: an
Inspect ``.eval`` log made by running the exported task with Inspect's mock model, and
lm-evaluation-harness ``--log_samples`` output of the exported task (published shape, with its
``results_<date>.json``), both brought in by ``manage.py import_run``
(``tests/e2e/test_harness_leaderboard.py``).

Run as a script against the database the environment selects, after ``migrate``; prints a
JSON object with the ids and the F1 Inspect reported.
"""

from __future__ import annotations

import json
import sys
import tempfile
from importlib.metadata import version
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [] if str(ROOT) in sys.path else [str(ROOT)]  # run as a script
from tests.e2e.seed_base import DEMO_PASSWORD, setup_django  # noqa: E402

ADMIN = "harness-admin"


def imported_logs(folder: Path, project_name: str) -> float:
    """Export, run or write both logs, import them; Inspect's level-2 F1."""
    from django.core.management import call_command

    from tests.support.harness import (
        S1,
        S3,
        S4,
        exported_units,
        lm_eval_samples,
        run_inspect,
    )
    from tests.support.runs import write_jsonl

    common = ["--project", project_name, "--gold-version", "1"]
    call_command("export_harness", *common, "--to", "inspect", str(folder / "inspect"))
    log = run_inspect(
        folder / "inspect" / "mafalda_harness_e2e_v1.py",
        folder / "logs",
        {S1: "Ad hominem.", S3: "Appeal to fear", S4: "Straw man"},
    )
    [log_file] = (folder / "logs").glob("*.eval")
    call_command("import_run", str(log_file), *common, "--name", "inspect mock")

    call_command("export_harness", *common, "--to", "lm-eval", str(folder / "lm-eval"))
    date = "2026-01-02T03-04-05.000006"
    out = folder / "out" / "org__model"
    out.mkdir(parents=True)
    units = exported_units(folder / "lm-eval")
    samples = lm_eval_samples(units, {S1: "ad hominem", S3: "slippery slope"})
    path = write_jsonl(out / f"samples_mafalda_harness_e2e_v1_{date}.jsonl", samples)
    results = {"lm_eval_version": version("lm_eval"), "model_name": "org/model"}
    (out / f"results_{date}.json").write_text(json.dumps(results), encoding="utf-8")
    call_command("import_run", str(path), *common, "--name", "lm-eval log")
    return log.results.scores[0].metrics["f1_level2"].value


def main() -> dict:
    setup_django()
    from annotations.models import Membership
    from annotations.services.projects import add_member
    from evaluation.backends import ModelSpec
    from evaluation.models import ModelRun, PromptVariant
    from evaluation.runs.launch import launch_runs
    from tests.e2e.seed_base import user
    from tests.support.harness import S1, three_text_gold
    from tests.support.runs import finish

    admin = user(ADMIN)
    run = ModelRun.objects.filter(name="inspect mock", project__name="Harness e2e").first()
    if run is not None:  # seeded already
        return {"project": run.project_id, "gold": run.gold_standard_id, "admin": ADMIN}
    with tempfile.TemporaryDirectory() as folder:
        project, gold = three_text_gold(Path(folder), name="Harness e2e")
        add_member(project=project, user=admin, role=Membership.Role.ADMIN)
        admin.set_password(DEMO_PASSWORD)
        admin.save()
        [platform] = launch_runs(
            project=project,
            gold_standard=gold,
            models=[ModelSpec("random", "")],
            variants=[PromptVariant.objects.get(task="mafalda", name="zero-shot", version=1)],
            created_by=admin,
            enqueue=False,
            name="platform run",
        )
        finish(platform, {S1: "ad hominem"})
        inspect_f1 = imported_logs(Path(folder), project.name)
    return {"project": project.pk, "gold": gold.pk, "admin": ADMIN, "inspect_f1": inspect_f1}


if __name__ == "__main__":
    print(json.dumps(main()))
