"""Label Studio predictions and explanations written by our export: a gold version's tasks
carry each finished run's labelled sentences as a prediction named after the run; a region's
text area reads back as its labels' explanations the way Label Studio users write them."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from annotations.importing.formats.label_studio import explanation_texts, explanations
from tests.support.runs import answered_run, numbered_text, twenty_text_world

pytestmark = pytest.mark.django_db


def test_a_gold_version_carries_a_finished_runs_labels_as_predictions(tmp_path):
    world = twenty_text_world(tmp_path)
    answered_run(world, "random zero-shot", correct={0, 1})  # 0: ad hominem; 3: slippery slope
    out, stdout = tmp_path / "gold.json", io.StringIO()
    call_command(
        "export_dataset", project="Twenty", format="labelstudio", gold_version=1, out=str(out),
        stdout=stdout,
    )  # fmt: skip

    tasks = json.loads(out.read_text(encoding="utf-8"))
    assert len(tasks) == 20 and all(len(task["predictions"]) == 1 for task in tasks)
    assert {p["model_version"] for task in tasks for p in task["predictions"]} == {
        "random zero-shot"
    }
    labelled = {
        task["data"]["text"]: [(r["value"]["start"], r["value"]["end"], r["value"]["labels"])]
        for task in tasks
        for r in task["predictions"][0]["result"]
    }
    whole = len(numbered_text(0))
    assert labelled[numbered_text(0)] == [(0, whole, ["ad hominem"])]
    assert labelled[numbered_text(3)] == [(0, whole, ["slippery slope"])]
    assert len(labelled) == 1 + 9  # text 0 right, the odd texts but 1 wrong
    assert "20 predictions of 1 runs" in stdout.getvalue()


@pytest.mark.parametrize(
    "labels, texts, expected",
    [
        (["a"], ["one", "two"], {"a": "one\ntwo"}),
        (["a"], ["a: kept whole"], {"a": "a: kept whole"}),
        (["a", "b"], ["b: for b", "for both"], {"a": "for both", "b": "for b"}),
        (["a", "a b"], ["a b: x"], {"a b": "x"}),
        (["a", "b"], ["", " "], {}),
    ],
)
def test_a_text_area_reads_as_the_labels_explanations(labels, texts, expected):
    assert explanations(labels, texts) == expected


@pytest.mark.parametrize(
    "explained", [{"a": "x"}, {"a": "x: y", "b": "b: z\nmore"}, {"b": "only b"}, {}]
)
def test_explanations_written_read_back_the_same(explained):
    labels = ["a", "b"] if len(explained) != 1 or "b" in explained else ["a"]
    assert explanations(labels, explanation_texts(labels, explained)) == explained
