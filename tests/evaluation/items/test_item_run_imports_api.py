"""The run-imports API the Import tab uses (``POST /api/evaluation/projects/<id>/run-imports/``)
on item projects: outputs imported and scored, bad lines and settings named under their
field with nothing written, one run of several files with id prefixes, whole records as
answers; and the Import tab's metadata keys and an imported run's requests."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from annotations.models import Project
from evaluation.items.imports import import_item_run
from evaluation.models import ModelRun, RunOutput, RunScore
from tests.support.item_run_outputs import (
    API,
    RANKED,
    detection_csv,
    expected_report,
    jsonl,
    named_file,
    smarty_project,
    stored_answers,
    upload,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin() -> User:
    return User.objects.create_user("boss", password="pw-for-tests-123")


@pytest.fixture
def project(admin: User) -> Project:
    return smarty_project(admin)


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
