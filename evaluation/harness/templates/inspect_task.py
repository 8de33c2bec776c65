"""An Inspect task exported by the fallacy annotation platform: MAFALDA's per-sentence
protocol on the sentences of ``units.jsonl`` (their prompts already filled), scored with the
disjunctive metric of the ``fallacy_scoring`` library (``pip install ./evaluation/scoring``
from the platform's repository) as the platform scores the same outputs: F1 at levels 2
(type), 1 (category) and 0 (fallacy or not), over all the samples at once.

    inspect eval <this file> --model <provider/model>
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fallacy_scoring.harness import HarnessTask, UnitOutput
from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import Metric, SampleScore, Score, Target, metric, scorer
from inspect_ai.solver import TaskState, generate

FOLDER = Path(__file__).resolve().parent
GOLD = HarnessTask.load(FOLDER)
METADATA = ("document", "unit", "sentence", "text", "variant", "parser", "answer")
SOURCE = json.loads((FOLDER / "scoring.json").read_text(encoding="utf-8"))["source"]


def _sample(row: dict[str, Any]) -> Sample:
    return Sample(
        id=row["id"],
        input=row["prompt"],
        target=row["target"],
        metadata={key: row[key] for key in METADATA},
    )


def _outputs(scores: list[SampleScore]) -> list[UnitOutput]:
    return [UnitOutput.from_dict(item.score.metadata or {}) for item in scores]


@metric
def f1_level2() -> Metric:
    def compute(scores: list[SampleScore]) -> float:
        return GOLD.f1(_outputs(scores), 2)

    return compute


@metric
def f1_level1() -> Metric:
    def compute(scores: list[SampleScore]) -> float:
        return GOLD.f1(_outputs(scores), 1)

    return compute


@metric
def f1_level0() -> Metric:
    def compute(scores: list[SampleScore]) -> float:
        return GOLD.f1(_outputs(scores), 0)

    return compute


@scorer(metrics=[f1_level2(), f1_level1(), f1_level0()])
def disjunctive_f1():
    """Keeps each output with its unit; the metrics score them together."""

    async def score(state: TaskState, target: Target) -> Score:
        output = state.output.completion
        unit = UnitOutput(state.metadata["document"], state.metadata["unit"], output)
        return Score(value=GOLD.answer_of(output), answer=output, metadata=unit.to_dict())

    return score


@task
def mafalda() -> Task:
    with (FOLDER / "units.jsonl").open(encoding="utf-8") as lines:
        samples = [_sample(json.loads(line)) for line in lines if line.strip()]
    return Task(
        dataset=MemoryDataset(samples, name=SOURCE["task"]),
        solver=generate(),
        scorer=disjunctive_f1(),
        config=GenerateConfig(temperature=0.0, max_tokens=SOURCE["max_new_tokens"]),
        metadata={"exported_from": SOURCE},
    )
