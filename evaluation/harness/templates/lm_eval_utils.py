"""lm-evaluation-harness hooks of a task exported by the fallacy annotation platform.

The samples are the sentences of ``units.jsonl`` (their prompts already filled); each
output is kept with its document and sentence (``process_results``, logged with
``--log_samples``), and the aggregations score all of them at once with the disjunctive
metric of the ``fallacy_scoring`` library (``pip install ./evaluation/scoring`` from the
platform's repository), as the platform scores the same outputs: F1 at levels 2 (type),
1 (category) and 0 (fallacy or not).
"""

from __future__ import annotations

import json
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from fallacy_scoring.harness import HarnessTask, UnitOutput

FOLDER = Path(__file__).resolve().parent
GOLD = HarnessTask.load(FOLDER)


def _version() -> str:
    try:
        return version("lm_eval")
    except PackageNotFoundError:
        return ""


HARNESS_VERSION = _version()


def load_units(**_: Any) -> dict[str, Any]:
    """The test split: one sample per sentence, in document and sentence order."""
    import datasets

    with (FOLDER / "units.jsonl").open(encoding="utf-8") as lines:
        rows = [json.loads(line) for line in lines if line.strip()]
    return {"test": datasets.Dataset.from_list(rows)}


def doc_to_text(doc: dict[str, Any]) -> str:
    return doc["prompt"]


def doc_to_target(doc: dict[str, Any]) -> str:
    return doc["target"]


def process_results(doc: dict[str, Any], results: list[str]) -> dict[str, dict[str, Any]]:
    """The sample's output with its unit, for each level's aggregation."""
    output = UnitOutput(doc["document"], doc["unit"], results[0]).to_dict()
    record = {**output, "lm_eval": HARNESS_VERSION}
    return {f"f1_level{level}": record for level in (2, 1, 0)}


def _outputs(items: list[dict[str, Any]]) -> list[UnitOutput]:
    return [UnitOutput.from_dict(item) for item in items]


def f1_level2(items: list[dict[str, Any]]) -> float:
    return GOLD.f1(_outputs(items), 2)


def f1_level1(items: list[dict[str, Any]]) -> float:
    return GOLD.f1(_outputs(items), 1)


def f1_level0(items: list[dict[str, Any]]) -> float:
    return GOLD.f1(_outputs(items), 0)
