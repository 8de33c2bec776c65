"""ArgBench-style segmentation and detection gold through a column mapping, a segmentation
run scored by hand, and item projects exported over REST.

A "Label: passage" cell is located in the item's text (the first free occurrence); a
passage that is not in the text, an unknown label or an unreadable detection value fails
the whole file naming its line and column, and nothing is imported.
"""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from annotations.importing.formats import DatasetFormatError
from annotations.importing.items import import_items
from annotations.models import Document, Membership, Project
from annotations.services.projects import add_member, create_project
from annotations.services.taxonomy import install_preset
from evaluation.backends import Backend, GenerationResult, ModelSpec
from evaluation.items.launch import launch_item_runs
from evaluation.models import PromptVariant, RunScore
from tests.support.segmentation import COLUMNS, FORM, ROWS, T1, T2, T3, csv_text

# what the scripted model answers, by item
ANSWERS = {
    T1: "ad hominem: You are a fool.\nad hominem: Either we cut taxes or we starve.",
    T2: "false dilemma: Either you agree or you leave.",
    T3: "none",
}


def _project(name: str = "Args") -> Project:
    return create_project(
        name=name, taxonomy=install_preset(name="mafalda"), kind="items", form=FORM
    )


@pytest.mark.django_db
def test_label_passage_cells_become_segmentation_gold_located_in_the_text(tmp_path):
    path = tmp_path / "args.csv"
    path.write_text(csv_text(ROWS), encoding="utf-8")
    project = _project()
    report = import_items(path=path, project=project, format="items", columns=COLUMNS)
    assert report.items == 3
    gold = {d.external_id: d.metadata["gold"] for d in Document.objects.filter(project=project)}
    fool, taxes = T1.index("You are a fool."), T1.index("Either we cut")
    assert gold["a1"] == {
        "passages": [
            [fool, fool + len("You are a fool."), "ad hominem"],
            [taxes, len(T1), "false dilemma"],
        ],
        "fallacious": True,
    }
    # the label is matched leniently (case) and stored as the field spells it
    assert gold["a2"] == {
        "passages": [[0, len("Either you agree or you leave."), "false dilemma"]],
        "fallacious": True,
    }
    assert gold["a3"] == {"passages": [], "fallacious": False}

    # the same gold as JSON ranges, from JSON Lines
    jsonl = tmp_path / "args.jsonl"
    jsonl.write_text(
        json.dumps(
            {"text": T2, "id": "b1", "passages": [[0, 30, "false dilemma"]], "fallacious": True}
        )
        + "\n",
        encoding="utf-8",
    )
    import_items(path=jsonl, project=project, format="items", columns=COLUMNS)
    b1 = Document.objects.get(project=project, external_id="b1").metadata["gold"]
    assert b1 == {"passages": [[0, 30, "false dilemma"]], "fallacious": True}


@pytest.mark.parametrize(
    ("row", "message"),
    [
        (
            ["x", T2, "false dilemma: Either we stay", "yes"],
            "bad.csv:4: passages: segment 1: passage 'Either we stay' is not in the text",
        ),
        (
            ["x", T2, "slippery slope: Either you agree", "yes"],
            "bad.csv:4: passages: unknown label",
        ),
        (
            ["x", T2, "false dilemma Either you agree", "yes"],
            "bad.csv:4: passages: segment 1: expected",
        ),
        (["x", T2, '[[0, 900, "false dilemma"]]', "yes"], "bad.csv:4: passages[0]: range 0-900"),
        (["x", T2, "none", "maybe"], "bad.csv:4: fallacious: expected true or false"),
    ],
)
@pytest.mark.django_db
def test_a_bad_segment_or_detection_cell_names_its_line_and_imports_nothing(tmp_path, row, message):
    # the line is the file's: row a1's quoted cell spans lines 2 and 3, so the bad row is 4
    path = tmp_path / "bad.csv"
    path.write_text(csv_text([*ROWS[:2], row]), encoding="utf-8")
    project = _project()
    with pytest.raises(DatasetFormatError) as caught:
        import_items(path=path, project=project, format="items", columns=COLUMNS)
    assert str(caught.value).startswith(message), str(caught.value)
    assert not Document.objects.filter(project=project).exists()


class SegmentingBackend(Backend):
    """Answers each item with ``ANSWERS`` for its text."""

    name = "segmenting"

    @classmethod
    def fingerprint(cls, spec: ModelSpec) -> str:
        return f"segmenting:{spec.model}"

    def generate(self, requests):
        answers = []
        for request in requests:
            [text] = [t for t in ANSWERS if f"Text: {t}" in request.prompt]
            answers.append(GenerationResult(request.key, ANSWERS[text]))
        yield answers


@pytest.mark.django_db
def test_a_segmentation_run_scores_exact_span_f1_by_hand(tmp_path, monkeypatch):
    from evaluation.backends import BACKENDS
    from evaluation.runs.runner import run_shard
    from evaluation.runs.services import complete_scoring, finish_shard

    path = tmp_path / "args.csv"
    path.write_text(csv_text(ROWS), encoding="utf-8")
    project = _project()
    import_items(path=path, project=project, format="items", columns=COLUMNS)
    backend = "tests.evaluation.items.test_item_segmentation:SegmentingBackend"
    monkeypatch.setitem(BACKENDS, "segmenting", backend)
    [run] = launch_item_runs(
        project=project,
        field="passages",
        models=[ModelSpec("segmenting", "script")],
        variants=[PromptVariant.objects.get(task="segmentation", name="zero-shot", version=1)],
        enqueue=False,
    )
    assert run_shard(run.pk, 0, log=lambda message: None).generated == 3
    finish_shard(run_id=run.pk, index=0, status="done")
    run = complete_scoring(run_id=run.pk)
    assert (run.status, run.done, run.total) == ("done", 3, 3)
    report = RunScore.objects.get(run=run, profile="items", gold_standard=None).report
    # ad hominem: 1 gold, 2 predicted (one on the dilemma), 1 right: P 1/2, R 1, F1 2/3;
    # false dilemma: 2 gold, 1 predicted, 1 right: P 1, R 1/2, F1 2/3; macro 2/3
    assert report["primary"] == {"name": "span_f1", "value": pytest.approx(2 / 3)}
    assert report["predicted_counts"] == {"ad hominem": 2, "false dilemma": 1}
    assert report["gold_counts"] == {"ad hominem": 1, "false dilemma": 2}


# --- export over REST ------------------------------------------------------------------------


@pytest.fixture
def item_project(db, tmp_path) -> Project:
    path = tmp_path / "args.csv"
    path.write_text(csv_text(ROWS), encoding="utf-8")
    project = _project()
    import_items(path=path, project=project, format="items", columns=COLUMNS)
    return project


def _client(project: Project, role: str | None) -> APIClient:
    user = User.objects.create_user(f"u-{role}")
    if role:
        add_member(project=project, user=user, role=role)
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_an_admin_exports_the_items_over_rest_in_each_format(item_project):
    client = _client(item_project, Membership.Role.ADMIN)
    url = f"/api/datasets/export/?project={item_project.pk}"
    response = client.get(f"{url}&format=items")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/jsonl")
    assert f'filename="{item_project.pk}-items.jsonl"' in response["Content-Disposition"]
    lines = [json.loads(line) for line in response.content.decode().splitlines()]
    assert [line["id"] for line in lines] == ["a1", "a2", "a3"]
    assert lines[2]["gold"] == {"passages": [], "fallacious": False}
    assert "responses" not in lines[0]
    with_answers = client.get(f"{url}&format=items&responses=true")
    assert [json.loads(x)["responses"] for x in with_answers.content.decode().splitlines()] == [
        {},
        {},
        {},
    ]

    smartypat = client.get(f"{url}&format=smartypat")
    assert smartypat.status_code == 200 and smartypat["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(smartypat.content.decode())))
    assert [row[0] for row in rows] == ["id", "a1", "a2", "a3"]
    flub = client.get(f"{url}&format=flub")
    assert [json.loads(x)["text"] for x in flub.content.decode().splitlines()] == [T1, T2, T3]

    assert client.get(f"{url}&format=mafalda").status_code == 400
    assert client.get(f"{url}&format=smartypat&responses=true").status_code == 400
    assert client.get(f"{url}&format=items&responses=perhaps").status_code == 400


def test_only_reviewers_and_admins_export_an_item_project(item_project):
    url = f"/api/datasets/export/?project={item_project.pk}&format=items"
    assert _client(item_project, Membership.Role.REVIEWER).get(url).status_code == 200
    assert _client(item_project, Membership.Role.ANNOTATOR).get(url).status_code == 403
    assert _client(item_project, None).get(url).status_code == 404


@pytest.mark.django_db
def test_a_span_project_refuses_the_item_formats():
    project = create_project(name="Spans", taxonomy=install_preset(name="mafalda"))
    client = _client(project, Membership.Role.ADMIN)
    response = client.get(f"/api/datasets/export/?project={project.pk}&format=flub")
    assert response.status_code == 400
    assert "item projects" in response.json()["detail"]
