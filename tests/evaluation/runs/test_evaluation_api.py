"""The evaluation API and run import as reviewers, annotators and scripts use them.

Own small data (no shared files): a MAFALDA-taxonomy project with a two-text gold version,
a stored run and one annotator's submitted work, plus a second project.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from annotations.importing.datasets import (
    import_doccano_annotations,
    import_texts,
)
from annotations.importing.formats import DatasetFormatError
from annotations.models import GoldStandard, Membership, Project
from annotations.services.projects import add_member
from evaluation.models import ModelRun, RunOutput
from evaluation.runs.imports import RunImportError, import_run
from tests.support.runs import (
    S1,
    S2,
    TEXT_A,
    TEXT_B,
    submit_annotator_work,
    two_gold_projects,
    write_jsonl,
)

pytestmark = pytest.mark.django_db

SCORE = "/api/evaluation/score/"
AGREEMENT = "/api/evaluation/agreement/"


def run_records(text_a: str = TEXT_A) -> list[dict[str, Any]]:
    return [
        {"text": text_a, "prediction": {S1: "Output: ad hominem", S2: "No fallacy."}},
        {"text": TEXT_B, "prediction": {TEXT_B: "slippery slope"}},
    ]


@dataclass
class World:
    project: Project
    other: Project
    gold: GoldStandard
    other_gold: GoldStandard
    run: ModelRun
    other_run: ModelRun
    admin: User
    reviewer: User
    annotator: User
    other_reviewer: User  # reviewer of the other project only


@pytest.fixture
def world(tmp_path: Path) -> World:
    project, other = two_gold_projects(tmp_path)
    users = {name: User.objects.create_user(name) for name in ("admin", "reviewer", "other")}
    add_member(project=project, user=users["admin"], role=Membership.Role.ADMIN)
    add_member(project=project, user=users["reviewer"], role=Membership.Role.REVIEWER)
    add_member(project=other, user=users["other"], role=Membership.Role.REVIEWER)
    annotator = User.objects.create_user("ann")
    submit_annotator_work(tmp_path, project, annotator)
    runs_file = write_jsonl(tmp_path / "run.jsonl", run_records())
    run = import_run(project=project, path=runs_file, name="model-a", model_name="m/a")
    other_run = import_run(project=other, path=runs_file, name="model-a")
    return World(
        project,
        other,
        project.gold_standards.get(),
        other.gold_standards.get(),
        run,
        other_run,
        users["admin"],
        users["reviewer"],
        annotator,
        users["other"],
    )


def client_for(user: User | None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_login(user)
    return client


def score_body(world: World, **extra: Any) -> dict[str, Any]:
    return {"gold_standard": world.gold.pk, "run": world.run.pk, **extra}


# --- scoring --------------------------------------------------------------------------------


def test_reviewer_scores_a_run(world: World) -> None:
    response = client_for(world.reviewer).post(SCORE, score_body(world), format="json")
    assert response.status_code == 200, response.content
    report = response.json()
    assert (report["profile"], report["parser"], report["average"]) == ("paper", "keyword", "text")
    assert report["texts"] == 2 and report["outputs"] == 3
    # Text A: ad hominem found exactly; text B: a slippery slope predicted where the gold
    # says no fallacy (precision 0, recall 1 as nothing is required).
    level_2 = report["levels"]["2"]
    assert level_2["recall"] == 1.0
    assert level_2["precision"] == pytest.approx(0.5)
    assert level_2["f1"] == pytest.approx((1.0 + 0.0) / 2)


def test_score_levels_and_profile_options(world: World) -> None:
    body = score_body(world, levels=[0], profile="mafalda-2024", average="corpus")
    report = client_for(world.admin).post(SCORE, body, format="json").json()
    assert list(report["levels"]) == ["0"]
    assert report["profile"] == "mafalda-2024" and report["average"] == "corpus"


def test_reviewer_scores_an_annotator(world: World) -> None:
    body = {"gold_standard": world.gold.pk, "annotator": world.annotator.pk}
    response = client_for(world.reviewer).post(SCORE, body, format="json")
    assert response.status_code == 200, response.content
    report = response.json()
    assert report["texts"] == 2 and report["parser"] is None
    assert report["levels"]["2"]["precision"] == pytest.approx(0.5)  # text B: a false alarm
    assert report["levels"]["2"]["recall"] == 1.0


def test_only_submitted_work_is_scored(world: World) -> None:
    world.annotator.annotations.filter(document__text=TEXT_B).update(status="in_progress")
    body = {"gold_standard": world.gold.pk, "annotator": world.annotator.pk}
    report = client_for(world.reviewer).post(SCORE, body, format="json").json()
    assert report["texts"] == 1  # the gold's documents they submitted
    assert report["levels"]["2"]["f1"] == 1.0


def bad_score(world: World, body: dict[str, Any]) -> dict[str, Any]:
    response = client_for(world.reviewer).post(SCORE, body, format="json")
    assert response.status_code == 400, response.content
    return response.json()


def test_bad_score_options_are_400_naming_the_field(world: World) -> None:
    assert "profile" in bad_score(world, score_body(world, profile="nope"))
    assert "average" in bad_score(world, score_body(world, average="median"))
    assert "parser" in bad_score(world, score_body(world, parser="regex"))
    assert "levels" in bad_score(world, score_body(world, levels=[3]))
    assert "gold_standard" in bad_score(world, {"run": world.run.pk})
    both = bad_score(world, score_body(world, annotator=world.annotator.pk))
    neither = bad_score(world, {"gold_standard": world.gold.pk})
    for errors in (both, neither):
        assert (
            "run" in errors["non_field_errors"][0] and "annotator" in errors["non_field_errors"][0]
        )
    foreign = bad_score(world, score_body(world, run=world.other_run.pk))
    assert list(foreign) == ["run"]
    assert list(bad_score(world, score_body(world, run=10**9))) == ["run"]
    annotator = {"gold_standard": world.gold.pk, "annotator": world.annotator.pk}
    assert list(bad_score(world, {**annotator, "profile": "mafalda-2024"})) == ["profile"]
    stranger = {"gold_standard": world.gold.pk, "annotator": world.other_reviewer.pk}
    assert list(bad_score(world, stranger)) == ["annotator"]
    idle = {"gold_standard": world.gold.pk, "annotator": world.reviewer.pk}  # nothing submitted
    assert list(bad_score(world, idle)) == ["annotator"]


# --- agreement ------------------------------------------------------------------------------


def test_agreement(world: World, tmp_path: Path) -> None:
    second = User.objects.create_user("ann2")
    doccano = write_jsonl(
        tmp_path / "ann2.jsonl",
        [{"id": 1, "text": TEXT_A, "label": [[0, len(S1), "ad hominem"]]}],  # text A only
    )
    import_doccano_annotations(path=doccano, project=world.project, annotator=second)
    response = client_for(world.reviewer).get(AGREEMENT, {"gold_standard": world.gold.pk})
    assert response.status_code == 200, response.content
    data = response.json()
    assert [a["username"] for a in data["annotators"]] == ["ann", "ann2"]
    assert data["documents"] == 1  # only text A was submitted by both
    assert [(p["reference"]["username"], p["scored"]["username"]) for p in data["pairs"]] == [
        ("ann", "ann2"),
        ("ann2", "ann"),
    ]
    assert all(
        data["pairs"][0]["levels"][level] == {"precision": 1.0, "recall": 1.0, "f1": 1.0}
        for level in ("0", "1", "2")
    )
    assert [row["levels"]["2"]["f1"] for row in data["vs_gold"]] == [1.0, 1.0]


def test_agreement_bad_options(world: World) -> None:
    client = client_for(world.reviewer)
    assert "gold_standard" in client.get(AGREEMENT).json()
    response = client.get(AGREEMENT, {"gold_standard": world.gold.pk, "profile": "mafalda-2024"})
    assert response.status_code == 400 and "profile" in response.json()
    response = client.get(AGREEMENT, {"gold_standard": world.gold.pk, "profile": "nope"})
    assert response.status_code == 400 and "profile" in response.json()


# --- runs -----------------------------------------------------------------------------------


def test_runs_list_and_detail(world: World) -> None:
    client = client_for(world.reviewer)
    response = client.get("/api/evaluation/runs/", {"project": world.project.pk})
    assert response.status_code == 200
    [run] = response.json()["results"]
    assert run["id"] == world.run.pk and run["name"] == "model-a" and run["model_name"] == "m/a"
    assert (run["status"], run["outputs_count"], run["documents_count"]) == ("done", 3, 2)
    assert run["config"] == {
        "source": "run.jsonl",
        "format": "raw-results-jsonl",
        "texts": 2,
        "outputs": 3,
    }
    # Without a project: every project I review (not the other project's run).
    everything = client.get("/api/evaluation/runs/").json()["results"]
    assert [r["id"] for r in everything] == [world.run.pk]
    detail = client.get(f"/api/evaluation/runs/{world.run.pk}/")
    assert detail.status_code == 200 and detail.json()["outputs_count"] == 3
    assert client.get("/api/evaluation/runs/", {"project": "x"}).status_code == 400


# --- permissions ----------------------------------------------------------------------------


def requests(world: World) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        ("post", SCORE, score_body(world)),
        ("post", SCORE, {"gold_standard": world.gold.pk, "annotator": world.annotator.pk}),
        ("get", AGREEMENT, {"gold_standard": world.gold.pk}),
        ("get", "/api/evaluation/runs/", {"project": world.project.pk}),
        ("get", f"/api/evaluation/runs/{world.run.pk}/", {}),
    ]


def call(client: APIClient, method: str, url: str, body: dict[str, Any]) -> int:
    if method == "post":
        return client.post(url, body, format="json").status_code
    return client.get(url, body).status_code


@pytest.mark.parametrize("who", ["annotator", "other_reviewer"])
def test_non_staff_of_the_project_get_404(world: World, who: str) -> None:
    client = client_for(getattr(world, who))
    assert [call(client, *request) for request in requests(world)] == [404] * 5


def test_anonymous_is_refused(world: World) -> None:
    statuses = [call(client_for(None), *request) for request in requests(world)]
    assert all(status in (401, 403) for status in statuses), statuses


@pytest.mark.parametrize("who", ["reviewer", "admin", "superuser"])
def test_staff_and_superusers_may(world: World, who: str) -> None:
    user = User.objects.create_superuser("root") if who == "superuser" else getattr(world, who)
    client = client_for(user)
    assert [call(client, *request) for request in requests(world)] == [200] * 5


def test_endpoints_are_in_the_openapi_schema(world: World) -> None:
    response = client_for(world.reviewer).get("/api/schema/", {"format": "json"})
    assert response.status_code == 200
    paths = json.loads(response.content)["paths"]
    for path in ("score/", "agreement/", "runs/", "runs/{id}/"):
        assert f"/api/evaluation/{path}" in paths


# --- importing runs -------------------------------------------------------------------------


def test_import_run_with_an_unknown_text_names_the_line_and_writes_nothing(
    world: World, tmp_path: Path
) -> None:
    records = [*run_records(), {"text": "Not a text of the project.", "prediction": {}}]
    path = write_jsonl(tmp_path / "bad.jsonl", records)
    before = (ModelRun.objects.count(), RunOutput.objects.count())
    with pytest.raises(DatasetFormatError) as error:
        import_run(project=world.project, path=path, name="bad")
    assert (error.value.line, error.value.field) == (3, "text")
    assert str(error.value).startswith("bad.jsonl:3: text: no document")
    assert (ModelRun.objects.count(), RunOutput.objects.count()) == before
    assert not ModelRun.objects.filter(name="bad").exists()


@pytest.mark.parametrize(
    ("record", "field"),
    [
        ({"text": TEXT_B}, "prediction"),
        ({"text": TEXT_B, "prediction": ["slippery slope"]}, "prediction"),
        ({"text": TEXT_B, "prediction": {TEXT_B: ["slippery slope"]}}, "prediction[0]"),
        ({"text": TEXT_B, "prediction": {"Not in the text.": "x"}}, "prediction[0]"),
        ({"prediction": {}}, "text"),
        ({"text": TEXT_A, "prediction": {}}, "text"),  # line 1 has the same text
    ],
)
def test_import_run_bad_records(
    world: World, tmp_path: Path, record: dict[str, Any], field: str
) -> None:
    path = write_jsonl(tmp_path / "bad.jsonl", [run_records()[0], record])
    with pytest.raises(DatasetFormatError) as error:
        import_run(project=world.project, path=path, name="bad")
    assert (error.value.line, error.value.field) == (2, field)
    assert not ModelRun.objects.filter(name="bad").exists()


def test_import_run_refusals(world: World, tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "run.jsonl", run_records())
    with pytest.raises(RunImportError, match="already has a run named"):
        import_run(project=world.project, path=path, name="model-a")
    with pytest.raises(RunImportError, match="another project"):
        import_run(project=world.project, path=path, name="x", gold_standard=world.other_gold)
    # Texts outside the gold version given are refused even if the project has them.
    extra = write_jsonl(tmp_path / "extra.jsonl", [{"text": "A new text.", "labels": []}])
    import_texts(path=extra, project=world.project)
    path = write_jsonl(tmp_path / "r.jsonl", [{"text": "A new text.", "prediction": {}}])
    with pytest.raises(DatasetFormatError, match="no document of gold version 1"):
        import_run(project=world.project, path=path, name="x", gold_standard=world.gold)
    assert import_run(project=world.project, path=path, name="x").config["outputs"] == 0


def test_import_run_command(world: World, tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "run.jsonl", run_records())
    call_command("import_run", str(path), project="Eval", name="cli", gold_version=1)
    run = ModelRun.objects.get(project=world.project, name="cli")
    assert run.gold_standard == world.gold and run.outputs.count() == 3
    bad = write_jsonl(tmp_path / "bad.jsonl", [{"text": "unknown", "prediction": {}}])
    with pytest.raises(CommandError, match=r"bad.jsonl:1: text: no document"):
        call_command("import_run", str(bad), project="Eval", name="cli2")
    with pytest.raises(CommandError, match="no project named"):
        call_command("import_run", str(path), project="Nope", name="cli3")
    with pytest.raises(CommandError, match="no gold version 7"):
        call_command("import_run", str(path), project="Eval", name="cli4", gold_version=7)
    assert not ModelRun.objects.filter(name__in=["cli2", "cli3", "cli4"]).exists()
