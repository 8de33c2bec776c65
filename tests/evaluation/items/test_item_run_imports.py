"""Importing published outputs of item runs (``import_run --field``, ``import_item_run``).

A SmartyPat-like item project (tests/support/item_run_outputs.py) gets a model's published
answers as JSON Lines, a JSON array or CSV, one record per item id. The stored report must
equal ``score_answers`` on the answers the field's parser read, the run is marked imported
and shows on the Results tab; every bad file names its line and writes nothing. The
run-imports API of the Import tab: test_item_run_imports_api.py.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command

from annotations.models import Project
from annotations.services.projects import create_project
from evaluation.items.imports import import_item_run
from evaluation.items.leaderboard import item_leaderboard
from evaluation.models import ModelRun, RunScore
from evaluation.runs.imports import RunImportError, import_run
from evaluation.scoring.items import score_answers
from tests.support.factories import make_taxonomy
from tests.support.item_run_outputs import (
    DETECTION,
    ITEM_IDS,
    ITEMS,
    PART,
    RANKED,
    RANKED_READ,
    assert_nothing_written,
    detection_csv,
    expected_report,
    jsonl,
    smarty_project,
    stored_answers,
    write,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin() -> User:
    return User.objects.create_user("boss", password="pw-for-tests-123")


@pytest.fixture
def project(admin: User) -> Project:
    return smarty_project(admin)


def test_command_imports_jsonl_ranked_outputs_as_a_scored_imported_run(
    project: Project, tmp_path: Path
) -> None:
    path = write(tmp_path, "gpt-x-types.jsonl", jsonl(RANKED))
    out = io.StringIO()
    call_command(
        "import_run",
        str(path),
        project="Smarty",
        name="gpt-x types",
        field="types",
        model_name="gpt-x",
        stdout=out,
    )
    run = ModelRun.objects.get(name="gpt-x types")
    assert (run.task, run.field, run.prompt_variant_id, run.status) == (
        "ranked",
        "types",
        None,
        "done",
    )
    assert run.imported and run.gold_standard_id is None
    assert run.config["format"] == "item-outputs-jsonl" and run.config["missing"] == 1
    assert stored_answers(run) == RANKED_READ
    [score] = RunScore.objects.filter(run=run)
    assert score.profile == "items" and score.gold_standard_id is None
    assert score.report == expected_report(project, run, "ranked")
    assert score.report["unparseable"]["count"] >= 1  # p4's answer names no label
    assert "5 outputs, 1 items missing" in out.getvalue()


def test_json_array_and_csv_detection_outputs_score_like_score_answers(
    project: Project, tmp_path: Path
) -> None:
    records = [{"item": item_id, "answer": answer} for item_id, answer, _ in DETECTION]
    array = "[\n" + ",\n".join(json.dumps(record) for record in records) + "\n]\n"
    from_json = import_item_run(
        project=project,
        path=write(tmp_path, "det.json", array),
        name="det json",
        field="fallacious",
        id_column="item",
        output_column="answer",
    )
    from_csv = import_item_run(
        project=project,
        path=write(tmp_path, "det.csv", detection_csv()),
        name="det csv",
        field="fallacious",
        id_column="post",
        output_column="answer",
    )
    read = {item_id: value for item_id, _, value in DETECTION}
    for run, shape in ((from_json, "json"), (from_csv, "csv")):
        assert run.task == "detection" and run.imported
        assert run.config["format"] == f"item-outputs-{shape}" and run.config["missing"] == 0
        assert stored_answers(run) == read
        report = RunScore.objects.get(run=run).report
        assert report == expected_report(project, run, "detection")
    # By hand: gold T T F T F T, read T T F F T None (unparseable counts as wrong):
    # fallacious class TP 2, FP 1, FN 2 -> P 2/3, R 1/2, F1 4/7.
    assert RunScore.objects.get(run=from_csv).report["primary"]["value"] == pytest.approx(4 / 7)


def test_imported_runs_show_on_the_results_tab_as_imported(
    project: Project, tmp_path: Path
) -> None:
    import_item_run(
        project=project,
        path=write(tmp_path, "t.jsonl", jsonl(RANKED)),
        name="gpt-x types",
        field="types",
        model_name="gpt-x",
    )
    import_item_run(
        project=project,
        path=write(tmp_path, "d.csv", "id,output\np1,yes\n"),
        name="det",
        field="fallacious",
        model_name="gpt-x",
    )
    import_item_run(
        project=project,
        path=write(tmp_path, "other.csv", "id,output\np2,no\n"),
        name="nameless",
        field="fallacious",
    )
    board = item_leaderboard(project=project)
    rows = {row["name"]: row for row in board["rows"]}
    assert set(rows) == {"gpt-x", "nameless"} and board["unscored"] == []
    row = rows["gpt-x"]
    assert row["kind"] == "imported" and row["variant"] is None
    assert row["variant_label"] == "imported"
    reports = {r.run.field: r.report for r in RunScore.objects.filter(run__model_name="gpt-x")}
    for field in ("types", "fallacious"):
        assert row["tasks"][field]["value"] == pytest.approx(reports[field]["primary"]["value"])
    assert rows["nameless"]["kind"] == "imported"
    # a published file with one item's answer is scored on that item, shown with its coverage
    assert rows["nameless"]["tasks"]["fallacious"]["items"] == 1
    assert rows["nameless"]["coverage"] == {"items": 1, "of": len(ITEM_IDS), "complete": False}


def test_a_partial_imported_run_is_scored_on_its_items_listed_apart_and_compared_on_them(
    project: Project, tmp_path: Path
) -> None:
    full = detection_csv()
    part = "post,answer\n" + "".join(f'{i},"{a}"\n' for i, a, _ in DETECTION if i in PART)
    for name, text in (("full", full), ("part", part)):
        import_item_run(
            project=project,
            path=write(tmp_path, f"{name}.csv", text),
            name=name,
            field="fallacious",
            id_column="post",
            output_column="answer",
        )
    golds = {item_id: bad for item_id, _, bad in ITEMS}
    read = {item_id: value for item_id, _, value in DETECTION}
    on_part = score_answers(
        "detection", [golds[i] for i in PART], [read[i] for i in PART], labels=[]
    )
    partial = ModelRun.objects.get(name="part")
    report = RunScore.objects.get(run=partial).report
    assert report["primary"] == on_part["primary"] and report["items"] == len(PART)
    assert report["coverage"] == {"items": len(PART), "of": len(ITEM_IDS)}
    assert report["missing"] == len(ITEM_IDS) - len(PART)

    board = item_leaderboard(project=project, pair=("full", "part"))
    rows = {row["name"]: row for row in board["rows"]}
    assert rows["part"]["coverage"] == {"items": len(PART), "of": len(ITEM_IDS), "complete": False}
    assert rows["full"]["coverage"]["complete"] is True
    assert rows["part"]["tasks"]["fallacious"]["value"] == pytest.approx(
        on_part["primary"]["value"]
    )
    assert rows["part"]["group"] != rows["full"]["group"]  # never ranked among the full runs
    [test] = [t for t in board["compare"]["tests"] if t["profile"] == "definition"]
    assert test["common_items"] == len(PART)


SPAN_RECORD = {"text": "Sentence p1.", "prediction": {"Sentence p1.": "ad hominem"}}
BAD_FILES = [  # file, content, where and what the error says (after "FILE:")
    ("unknown.jsonl", jsonl([RANKED[0], {"id": "p99", "output": "x"}]), "2: id: no item"),
    ("dup.jsonl", jsonl([RANKED[0], RANKED[1], RANKED[0]]), "3: id: same id 'p1' as line 1"),
    ("broken.jsonl", jsonl(RANKED[:1]) + "{not json\n", "2: invalid JSON"),
    ("missing.jsonl", jsonl([RANKED[0], {"id": "p2"}]), "2: output: required field is missing"),
    ("number.jsonl", jsonl([{"id": "p1", "output": 3}]), "1: output: expected a string"),
    ("blank.csv", "id,output\np1,yes\n ,no\n", "3: id: the item id is blank"),
    ("nocol.csv", "id,answer\np1,yes\n", "1: output: no column named 'output'"),
    ("short.csv", "id,output\np1,yes\np2\n", "3: expected 2 fields"),
    ("array.json", '[\n  {"id": "p1", "output": "yes"},\n  "p2"\n]\n', "3: expected a JSON object"),
    ("empty.jsonl", "\n", "1: the file holds no outputs"),
    ("header.csv", "id,output\n", "1: the file holds no outputs"),
    ("cut.json", '[\n  {"id": "p1", "output": "yes"},\n  {"id": "p2"', "3: invalid JSON"),
    (
        "span.jsonl",
        jsonl([SPAN_RECORD]),
        "1: id: this is a span run's record ({text, prediction}); an item run's outputs are "
        'one record per item: {"id": <item id>, "output": <raw answer>}',
    ),
]


@pytest.mark.parametrize(("name", "text", "message"), BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_a_bad_file_names_its_line_and_imports_nothing(
    project: Project, tmp_path: Path, name: str, text: str, message: str
) -> None:
    path = write(tmp_path, name, text)
    with pytest.raises(CommandError) as refused:
        call_command("import_run", str(path), project="Smarty", name="bad", field="types")
    assert str(refused.value).startswith(f"{name}:{message}")
    assert_nothing_written()


def test_bad_settings_name_the_field_and_import_nothing(project: Project, tmp_path: Path) -> None:
    path = str(write(tmp_path, "ok.jsonl", jsonl(RANKED)))
    bad = {
        "nope": "no form field named 'nope'; the form has: types, fallacious, clarity",
        "clarity": "field 'clarity' is a likert question, which raters answer",
    }
    for field, message in bad.items():
        with pytest.raises(CommandError, match=message):
            call_command("import_run", path, project="Smarty", name="bad", field=field)
    with pytest.raises(CommandError, match="is an item project: name the form field"):
        call_command("import_run", path, project="Smarty", name="bad")
    with pytest.raises(RunImportError, match="is an item project") as service:
        import_run(project=project, path=path, name="bad")
    assert service.value.place == "field"
    assert_nothing_written()
    call_command("import_run", path, project="Smarty", name="good", field="types")
    with pytest.raises(CommandError, match="already has a run named 'good'"):
        call_command("import_run", path, project="Smarty", name="good", field="types")
    assert ModelRun.objects.count() == 1


def test_a_span_project_refuses_a_form_field(tmp_path: Path) -> None:
    create_project(name="Spans", taxonomy=make_taxonomy())
    path = str(write(tmp_path, "ok.jsonl", jsonl(RANKED)))
    with pytest.raises(CommandError, match="is a spans project: its runs are imported as raw"):
        call_command("import_run", path, project="Spans", name="x", field="types")
    assert_nothing_written()
