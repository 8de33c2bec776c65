"""The item results' exports say what each row is (``kind``: model, baseline, imported,
human) and never make a baseline a column's best (``items.leaderboard.export``, plain
functions of the board)."""

from __future__ import annotations

import csv
import io
from typing import Any

from evaluation.items.leaderboard.export import to_csv, to_latex


def row(name: str, kind: str, value: float, *, baseline: bool = False) -> dict[str, Any]:
    return {
        "key": name,
        "kind": kind,
        "baseline": baseline,
        "name": name,
        "model": "",
        "backend": "random" if baseline else "",
        "variant": None,
        "variant_label": "zero-shot",
        "profile": "definition",
        "group": 1,
        "rank": 1,
        "coverage": {"items": 4, "of": 4},
        "tasks": {"answer": {"value": value}},
        "skills": {},
        "overall": value,
    }


BOARD: dict[str, Any] = {
    "project": {"name": "Items"},
    "profiles": ["definition"],
    "tasks": [{"field": "answer", "kind": "choice"}],
    "skills": [],
    "aggregate": "macro",
    "overall_basis": {"text": "Overall: the mean of the tasks."},
    "figures": [
        {
            "field": "answer",
            "metric": "accuracy",
            "kind": "scalar",
            "rows": [
                {"row": "lucky", "profile": "definition", "value": 0.9},
                {"row": "model", "profile": "definition", "value": 0.6},
                {"row": "paper", "profile": "definition", "value": 0.5},
                {"row": "ann", "profile": "definition", "value": 0.4},
            ],
        }
    ],
    "label_bias": [],
    "rows": [
        row("lucky", "model", 0.9, baseline=True),
        row("model", "model", 0.6),
        row("paper", "imported", 0.5),
        row("ann", "human", 0.4),
    ],
}


def test_the_csv_kind_column_says_model_baseline_imported_or_human() -> None:
    lines = list(csv.DictReader(io.StringIO(to_csv(BOARD))))
    assert [(line["name"], line["kind"]) for line in lines] == [
        ("lucky", "baseline"),
        ("model", "model"),
        ("paper", "imported"),
        ("ann", "human"),
    ]


def test_the_latex_marks_baselines_and_never_bolds_them() -> None:
    text = to_latex(BOARD)
    lines = {line.split(",")[0]: line for line in text.splitlines() if ", zero-shot" in line}
    assert "lucky (baseline)" in lines and "ann (human)" in lines
    assert r"\textbf" not in lines["lucky (baseline)"]
    assert r"\textbf{0.600}" in lines["model"]
