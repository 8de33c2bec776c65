"""ArgBench-style segmentation and detection gold as a column-mapped CSV file: three texts,
their "Label: passage" cells and detection values."""

from __future__ import annotations

import csv
import io

LABELS = ["ad hominem", "false dilemma"]


FORM = {
    "fields": [
        {"name": "passages", "kind": "segmentation", "labels": LABELS},
        {"name": "fallacious", "kind": "detection"},
    ]
}


COLUMNS = {"text": "text", "id": "id", "segments": "passages", "detection": "fallacious"}


T1 = "You are a fool. So your plan fails. Either we cut taxes or we starve."


T2 = "Either you agree or you leave. The weather is nice."


T3 = "Water boils at 100 degrees at sea level."


ROWS = [
    ["id", "text", "passages", "fallacious"],
    [
        "a1",
        T1,
        "ad hominem: You are a fool.\nfalse dilemma: Either we cut taxes or we starve.",
        "yes",
    ],
    ["a2", T2, "False Dilemma: Either you agree or you leave.", "true"],
    ["a3", T3, "none", "sound"],
]


def csv_text(rows: list[list[str]]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()
