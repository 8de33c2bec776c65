"""Importing published outputs of item runs (``import_run --field``, the run-imports API).

A SmartyPat-like item project (a ranked ``types`` field, a ``fallacious`` detection field
and a ``clarity`` rating) gets six items through the column-mapped item importer; a model's
published answers come as JSON Lines, a JSON array or CSV, one record per item id. The
stored report must equal ``score_answers`` on the answers the field's parser read, the run
is marked imported and shows on the Results tab; every bad file names its line and
writes nothing.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from annotations.importing.items import import_items
from annotations.models import Project
from annotations.services.projects import create_project
from evaluation.items.imports import import_item_run
from evaluation.items.leaderboard import item_leaderboard
from evaluation.models import ModelRun, RunOutput, RunScore
from evaluation.runs.imports import RunImportError, import_run
from evaluation.scoring.items import score_answers
from tests.support.factories import make_taxonomy

pytestmark = pytest.mark.django_db

LABELS = ["Ad hominem", "False dilemma", "Strawman", "Slippery slope"]
FORM = {
    "fields": [
        {"name": "types", "kind": "ranked", "labels": LABELS, "max": 3},
        {"name": "fallacious", "kind": "detection"},
        {"name": "clarity", "kind": "likert"},
    ],
    "aggregate": "macro",
}
ITEMS = [  # id, gold types (best first), fallacious
    ("p1", ["Ad hominem"], True),
    ("p2", ["False dilemma", "Strawman"], True),
    ("p3", [], False),
    ("p4", ["Slippery slope"], True),
    ("p5", [], False),
    (6, ["Strawman"], True),
]
ITEM_IDS = ["p1", "p2", "p3", "p4", "p5", "6"]
RANKED = [  # published answers of the ranked field (p5 has none: missing)
    {"id": "p1", "output": "1. Ad hominem\n2. Strawman"},
    {"id": "p2", "output": "False dilemma"},
    {"id": "p3", "output": "No fallacy."},
    {"id": "p4", "output": "I cannot tell."},
    {"id": 6, "output": "strawman"},
]
RANKED_READ = {
    "p1": ["Ad hominem", "Strawman"],
    "p2": ["False dilemma"],
    "p3": [],
    "p4": None,
    "6": ["Strawman"],
}
DETECTION = [  # id, published answer, what the detection parser reads
    ("p1", "Yes, it is fallacious.", True),
    ("p2", "yes", True),
    ("p3", "No, the reasoning is sound.", False),
    ("p4", "It is sound.", False),
    ("p5", "fallacious", True),
    ("6", "Hmm.", None),
]
PART = ["p1", "p3", "p4"]  # the items a partial published file answers
API = "/api/evaluation/projects/{}/run-imports/"


@pytest.fixture
def admin() -> User:
    return User.objects.create_user("boss", password="pw-for-tests-123")


@pytest.fixture
def project(admin: User) -> Project:
    project = create_project(
        name="Smarty", taxonomy=make_taxonomy(), created_by=admin, kind="items", form=FORM
    )
    lines = "".join(
        json.dumps({"id": item_id, "text": f"Sentence {item_id}.", "types": types, "bad": bad})
        + "\n"
        for item_id, types, bad in ITEMS
    )
    import_items(
        path=io.StringIO(lines),
        project=project,
        format="items",
        name="items.jsonl",
        columns={"text": "text", "id": "id", "labels": "types", "detection": "bad"},
    )
    return project


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def jsonl(records: list[dict]) -> str:
    return "".join(json.dumps(record) + "\n" for record in records)


def detection_csv() -> str:
    rows = "".join(f'{item_id},"{answer}"\n' for item_id, answer, _ in DETECTION)
    return "post,answer\n" + rows


def stored_answers(run: ModelRun) -> dict[str, object]:
    return {
        external_id: parsed
        for external_id, parsed in RunOutput.objects.filter(run=run).values_list(
            "document__external_id", "parsed_labels"
        )
    }


def expected_report(project: Project, run: ModelRun, kind: str) -> dict:
    """``score_answers`` on the answers the run stored, items in project order; an item
    without a record is left out (an imported run is scored on the items it covers)."""
    answers = stored_answers(run)
    golds, predictions = [], []
    for document in project.documents.order_by("position", "id"):
        if document.external_id in answers:
            golds.append(document.metadata["gold"][run.field])
            predictions.append(answers[document.external_id])
    labels = LABELS if kind == "ranked" else []
    report = score_answers(kind, golds, predictions, labels=labels)
    missing = sum(item not in answers for item in ITEM_IDS)
    if kind == "ranked":  # RANKED's one piece naming no label, counted (never dropped)
        report["unreadable_labels"] = {"pieces": 1, "items": 1, "examples": ["I cannot tell."]}
    coverage = {"items": len(ITEM_IDS) - missing, "of": len(ITEM_IDS)}
    return {**report, "task": kind, "field": run.field, "missing": missing, "coverage": coverage}


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


def assert_nothing_written() -> None:
    assert not ModelRun.objects.exists()
    assert not RunOutput.objects.exists()
    assert not RunScore.objects.exists()


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


# --- the API the Import tab uses -------------------------------------------------------------


def upload(
    client: APIClient, project: Project, file_name: str, text: str, **fields: str
) -> tuple[int, dict]:
    file = io.BytesIO(text.encode("utf-8"))
    file.name = file_name
    response = client.post(API.format(project.pk), {"file": file, **fields}, format="multipart")
    return response.status_code, response.json()


def test_api_imports_item_outputs_and_reports_bad_lines(
    project: Project, admin: User, tmp_path: Path
) -> None:
    client = APIClient()
    client.force_authenticate(admin)
    code, body = upload(client, project, "types.jsonl", jsonl(RANKED), name="api", field="types")
    assert code == 201, body
    assert body["run"]["imported"] is True and body["run"]["field"] == "types"
    run = ModelRun.objects.get(pk=body["run"]["id"])
    assert RunScore.objects.get(run=run).report == expected_report(project, run, "ranked")
    code, body = upload(
        client,
        project,
        "det.csv",
        detection_csv(),
        name="api csv",
        field="fallacious",
        id_column="post",
        output_column="answer",
    )
    assert code == 201, body
    assert stored_answers(ModelRun.objects.get(pk=body["run"]["id"]))["6"] is None

    before = ModelRun.objects.count(), RunOutput.objects.count()
    bad = jsonl([RANKED[0], {"id": "p99", "output": "x"}])
    code, body = upload(client, project, "bad.jsonl", bad, name="bad", field="types")
    assert code == 400
    assert body == {
        "file": [
            "bad.jsonl:2: id: no item of project 'Smarty' has the id 'p99' (to skip such records "
            "and have them counted and listed: import_run --skip-unmatched, the API's "
            'skip_unmatched, or "Skip unmatched ids" on the Import tab)'
        ]
    }
    refusals = {
        "field": ({"name": "x"}, "an item project's outputs answer a form field"),
        "name": ({"name": "api", "field": "types"}, "already has a run named 'api'"),
    }
    for place, (fields, message) in refusals.items():
        code, body = upload(client, project, "types.jsonl", jsonl(RANKED), **fields)
        assert code == 400 and message in body[place][0], body
    code, body = upload(client, project, "t.jsonl", jsonl(RANKED), name="y", field="clarity")
    assert code == 400 and "likert question" in body["field"][0]
    assert (ModelRun.objects.count(), RunOutput.objects.count()) == before

    annotator = User.objects.create_user("ann", password="pw-for-tests-123")
    client.force_authenticate(annotator)
    code, _ = upload(client, project, "types.jsonl", jsonl(RANKED), name="z", field="types")
    assert code == 404


def named_file(file_name: str, text: str) -> io.BytesIO:
    file = io.BytesIO(text.encode("utf-8"))
    file.name = file_name
    return file


def test_api_makes_one_run_of_several_files_with_id_prefixes_and_list_answers(
    project: Project, admin: User
) -> None:
    client = APIClient()
    client.force_authenticate(admin)
    array = json.dumps(
        [{"id": 1, "labels": ["Ad hominem", "Strawman"]}, {"id": 2, "labels": "False dilemma"}]
    )
    files = [named_file("a.json", array), named_file("b.csv", "id,labels\n6,strawman\n")]
    fields = {"name": "two files", "field": "types", "output_column": "labels"}
    response = client.post(
        API.format(project.pk),
        {"file": files, "id_prefix": ["p", ""], **fields},
        format="multipart",
    )
    assert response.status_code == 201, response.json()
    run = ModelRun.objects.get(pk=response.json()["run"]["id"])
    assert stored_answers(run) == {
        "p1": ["Ad hominem", "Strawman"],
        "p2": ["False dilemma"],
        "6": ["Strawman"],
    }
    assert run.config["outputs"] == 3 and run.config["missing"] == 3
    assert [part["id_prefix"] for part in run.config["files"]] == ["p", ""]

    before = ModelRun.objects.count(), RunOutput.objects.count()
    again = [named_file("a.json", array), named_file("b.csv", "id,labels\np1,strawman\n")]
    response = client.post(
        API.format(project.pk),
        {"file": again, "id_prefix": ["p", ""], **fields, "name": "dup"},
        format="multipart",
    )
    assert response.json() == {"file": ["b.csv:2: id: same id 'p1' as a.json line 1"]}
    response = client.post(
        API.format(project.pk),
        {"file": [named_file("a.json", array)], "id_prefix": ["p", "q"], **fields},
        format="multipart",
    )
    assert response.status_code == 400 and "given 2 times for 1 files" in str(response.json())
    assert (ModelRun.objects.count(), RunOutput.objects.count()) == before


def test_whole_records_are_the_answers_with_output_column_star(project: Project) -> None:
    csv_text = "id,logic_error,logic_fallacies\np1,yes,Ad hominem\np3,no,\n"
    run = import_item_run(
        project=project,
        path=io.StringIO(csv_text),
        file_name="whole.csv",
        name="whole",
        field="types",
        output_column="*",
    )
    assert stored_answers(run) == {"p1": ["Ad hominem"], "p3": []}
    raw = RunOutput.objects.get(run=run, document__external_id="p1").raw_output
    assert json.loads(raw) == {"id": "p1", "logic_error": "yes", "logic_fallacies": "Ad hominem"}


def test_the_import_tab_api_writes_metadata_keys_on_every_item(
    project: Project, admin: User
) -> None:
    client = APIClient()
    client.force_authenticate(admin)
    lines = jsonl([{"id": "n1", "text": "New one.", "types": [], "bad": False}])
    body = {
        "format": "items",
        "columns": json.dumps({"text": "text", "id": "id", "labels": "types", "detection": "bad"}),
    }
    url = f"/api/projects/{project.pk}/imports/"
    response = client.post(
        url,
        {"file": named_file("new.jsonl", lines), "set_metadata": ["split", "x=y"], **body},
        format="multipart",
    )
    assert response.status_code == 400
    assert "'split' is not key=value" in response.json()["set_metadata"][0]
    response = client.post(
        url,
        {"file": named_file("new.jsonl", lines), "set_metadata": ["split=extra"], **body},
        format="multipart",
    )
    assert response.status_code == 201 and response.json()["status"] == "succeeded"
    assert project.documents.get(external_id="n1").metadata["split"] == "extra"
    assert "split" not in project.documents.get(external_id="p1").metadata


def test_an_imported_item_runs_requests_show_what_its_scoring_read(
    project: Project, admin: User
) -> None:
    run = import_item_run(
        project=project,
        path=io.StringIO(jsonl(RANKED)),
        file_name="a.jsonl",
        name="r",
        field="types",
    )
    client = APIClient()
    client.force_authenticate(admin)
    url = f"/api/evaluation/runs/{run.pk}/requests/"
    response = client.get(url)
    assert response.status_code == 200, response.content
    read = {row["raw_output"]: row["parsed_labels"] for row in response.json()["results"]}
    assert read["1. Ad hominem\n2. Strawman"] == ["Ad hominem", "Strawman"]
    unreadable = client.get(url, {"unparseable": "true"}).json()["results"]
    assert [row["raw_output"] for row in unreadable] == ["I cannot tell."]


def test_api_names_an_empty_file_among_several_under_file(project: Project, admin: User) -> None:
    client = APIClient()
    client.force_authenticate(admin)
    files = [named_file("a.jsonl", '{"id": "1", "output": "x"}\n'), named_file("b.jsonl", "")]
    before = ModelRun.objects.count()
    response = client.post(
        API.format(project.pk),
        {"file": files, "name": "empty second", "field": "types"},
        format="multipart",
    )
    assert response.status_code == 400
    assert response.json() == {"file": ["file 2: The submitted file is empty."]}
    assert ModelRun.objects.count() == before
