"""The harness tests' data: a MAFALDA-taxonomy project with a published three-text gold version
(alternatives included), the scoring library importable as ``fallacy_scoring`` (as
``pip install ./evaluation/scoring`` makes it), the platform's own score of a run, harness
logs in their published shapes (lm-evaluation-harness sample lines) and Inspect's ``eval``
with its mock model answering by sentence."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from annotations.importing.datasets import import_mafalda_gold
from annotations.models import GoldStandard, Project
from annotations.services.projects import create_project
from annotations.services.taxonomy import install_preset
from evaluation.models import ModelRun, RunScore
from evaluation.runs.services import score_and_store
from tests.support.paths import ROOT
from tests.support.runs import write_jsonl

S1 = "You cannot trust Smith on taxes, he cheated on his wife."
S2 = "The weather is nice today."
TEXT_A = f"{S1} {S2}"
S3 = "If we allow this, soon everything will collapse."
S4 = "Everyone buys this phone, so it must be the best."
TEXT_B = f"{S3} {S4}"
TEXT_C = "The bridge was inspected last week and is safe."
# S1: ad hominem, or no fallacy (an alternative); S3: slippery slope or appeal to fear;
# S4: ad populum; TEXT_C: none.
GOLD = [
    {
        "text": TEXT_A,
        "labels": [[0, len(S1), "ad hominem"], [0, len(S1), "nothing"]],
        "comments": [],
    },
    {
        "text": TEXT_B,
        "labels": [
            [0, len(S3), "slippery slope"],
            [0, len(S3), "appeal to fear"],
            [len(S3) + 1, len(TEXT_B), "ad populum"],
        ],
        "comments": [],
    },
    {"text": TEXT_C, "labels": [], "comments": []},
]


def three_text_gold(tmp_path: Path, name: str = "Harness") -> tuple[Project, GoldStandard]:
    project = create_project(name=name, taxonomy=install_preset(name="mafalda"))
    import_mafalda_gold(path=write_jsonl(tmp_path / "gold.jsonl", GOLD), project=project)
    return project, project.gold_standards.get()


@contextmanager
def scoring_library(tmp_path: Path) -> Iterator[None]:
    """``import fallacy_scoring`` finds this checkout's ``evaluation/scoring`` (what
    ``pip install ./evaluation/scoring`` installs), for the harnesses' task files."""
    folder = tmp_path / "site"
    folder.mkdir(exist_ok=True)
    link = folder / "fallacy_scoring"
    if not link.exists():
        link.symlink_to(ROOT / "evaluation" / "scoring", target_is_directory=True)
    sys.path.insert(0, str(folder))
    try:
        yield
    finally:
        sys.path.remove(str(folder))
        for name in [name for name in sys.modules if name.startswith("fallacy_scoring")]:
            del sys.modules[name]


def platform_f1(run: ModelRun) -> dict[str, float]:
    """The platform's F1 per level of the run (profile ``paper``), as the leaderboard shows."""
    score_and_store(run=run)
    report = RunScore.objects.get(run=run, profile="paper").report
    return {level: data["f1"] for level, data in report["levels"].items()}


def exported_units(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / "units.jsonl").read_text().splitlines()]


def lm_eval_samples(units: list[dict[str, Any]], outputs: dict[str, str]) -> list[dict[str, Any]]:
    """lm-evaluation-harness ``--log_samples`` lines answering each exported unit (by its
    sentence; default "No fallacy.")."""
    lines = []
    for number, unit in enumerate(units):
        output = outputs.get(unit["sentence"], "No fallacy.")
        lines.append(
            {
                "doc_id": number,
                "doc": unit,
                "target": unit["target"],
                "arguments": [[unit["prompt"], {"until": [], "max_gen_toks": 48}]],
                "resps": [[output]],
                "filtered_resps": [output],
                "filter": "none",
                "metrics": ["f1_level2", "f1_level1", "f1_level0"],
                "f1_level2": {"document": unit["document"], "unit": unit["unit"], "output": output},
            }
        )
    return lines


def mock_answers(answers: dict[str, str]) -> Callable[..., Any]:
    """Inspect's ``mockllm/model`` outputs: the answer for the sentence a prompt asks about
    (its start), else "No fallacy."."""

    def answer(messages, tools, tool_choice, config):
        from inspect_ai.model import ModelOutput, ModelUsage

        prompt = messages[-1].text
        asked = prompt.rsplit('Sentence: "', 1)[1]
        reply = next((text for unit, text in answers.items() if asked.startswith(unit)), None)
        output = ModelOutput.from_content(model="mockllm/model", content=reply or "No fallacy.")
        # usage given: the mock would otherwise count tokens with tiktoken (a download)
        output.usage = ModelUsage(
            input_tokens=len(prompt), output_tokens=1, total_tokens=len(prompt)
        )
        return output

    return answer


def run_inspect(task_file: Path, log_dir: Path, answers: dict[str, str]) -> Any:
    """``inspect eval <task file> --model mockllm/model`` in the task's folder; the log."""
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import get_model

    here = Path.cwd()
    os.chdir(task_file.parent)
    try:
        with scoring_library(log_dir.parent):
            model = get_model("mockllm/model", custom_outputs=mock_answers(answers))
            [log] = inspect_eval(task_file.name, model=model, log_dir=str(log_dir), display="none")
    finally:
        os.chdir(here)
    return log
