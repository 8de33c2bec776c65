"""Stored item results: the Results tab of an item project is served from its stored board
while the inputs are unchanged, and computed again (equal to a fresh computation) as soon
as one of them changes. The project is the FLUB-like seed of the item leaderboard tests."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from annotations.models import Annotation, Document, Project, TaxonomyNode
from annotations.services.documents import update_document
from evaluation import results
from evaluation.items.leaderboard import item_leaderboard
from evaluation.items.scorer import score_item_run
from evaluation.models import ModelRun, PromptVariant, RunScore, StoredBoard
from evaluation.results import item_results_json
from evaluation.results.store import render
from tests.e2e import seed_item_results as seed

pytestmark = pytest.mark.django_db


@pytest.fixture
def flub() -> dict:
    return seed.build()


@pytest.fixture
def computed(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The projects whose board was computed (not read from its stored row), in order."""
    calls: list[int] = []
    compute = results.item_leaderboard

    def counting(*, project: Project, **query: object) -> dict:
        calls.append(project.pk)
        return compute(project=project, **query)

    monkeypatch.setattr(results, "item_leaderboard", counting)
    return calls


def project_of(flub: dict) -> Project:
    return Project.objects.select_related("taxonomy").get(pk=flub["project"])


def served(flub: dict, **query: object) -> dict:
    return json.loads(item_results_json(project=project_of(flub), **query))


def fresh(flub: dict, **query: object) -> dict:
    return json.loads(render(item_leaderboard(project=project_of(flub), **query)))


def rows(board: dict) -> dict[str, dict]:
    return {f"{row['profile']}|{row['key']}": row for row in board["rows"]}


def test_the_stored_board_equals_a_fresh_computation(flub: dict, computed: list[int]) -> None:
    first = served(flub)
    assert first == fresh(flub)
    assert served(flub) == first
    assert computed == [flub["project"]]  # the second read is the stored board
    queries = {"profile": "definition", "subset": "type=歧义"}
    assert served(flub, **queries) == fresh(flub, **queries)
    assert StoredBoard.objects.filter(scope=flub["project"]).count() == 2


def change_then_fresh(flub: dict, computed: list[int], change: Callable[[], None]) -> dict:
    """The board after ``change``: computed again and equal to a fresh computation."""
    before = served(flub)
    count = len(computed)
    change()
    after = served(flub)
    assert computed[count:] == [flub["project"]]  # once, for the changed inputs
    assert after == fresh(flub)
    assert after != before
    return after


def test_a_run_deleted_or_failed_or_added_is_seen(flub: dict, computed: list[int]) -> None:
    few = flub["runs"]["answer/few-shot"]
    after = change_then_fresh(
        flub, computed, lambda: ModelRun.objects.filter(pk=few).update(status="failed")
    )
    assert all(cell.get("run") != few for row in after["rows"] for cell in row["tasks"].values())
    typed = flub["runs"]["type/few-shot"]
    change_then_fresh(flub, computed, lambda: ModelRun.objects.filter(pk=typed).delete())

    def add() -> None:
        run = ModelRun.objects.get(pk=flub["runs"]["answer/zero-shot"])
        run.pk, run.name, run.model_name = None, "another model", "other/model"
        run.save()
        score_item_run(run)  # no outputs: every item unanswered

    change_then_fresh(flub, computed, add)


def test_a_rescored_run_is_seen(flub: dict, computed: list[int]) -> None:
    explained = flub["runs"]["explanation/zero-shot"]

    def rescore() -> None:
        score = RunScore.objects.get(run_id=explained)
        score.report = {**score.report, "primary": {"name": "bertscore_f1", "value": 0.5}}
        score.save()

    after = change_then_fresh(flub, computed, rescore)
    cells = [row["tasks"].get("explanation") for row in after["rows"]]
    assert {cell["value"] for cell in cells if cell} == {0.5}


def test_human_work_submitted_edited_or_withdrawn_is_seen(flub: dict, computed: list[int]) -> None:
    first, second, third = Annotation.objects.filter(annotator_id=flub["annotator"]).order_by("id")
    annotation = first

    def edit() -> None:
        annotation.response = {**annotation.response, "answer": "D"}
        annotation.revision += 1
        annotation.save()

    change_then_fresh(flub, computed, edit)
    change_then_fresh(
        flub,
        computed,
        lambda: Annotation.objects.filter(pk=third.pk).update(status=Annotation.Status.IN_PROGRESS),
    )
    change_then_fresh(flub, computed, lambda: Annotation.objects.filter(pk=second.pk).delete())


def test_an_answer_key_edited_is_seen(flub: dict, computed: list[int]) -> None:
    document = Document.objects.get(pk=flub["documents"][0])

    def edit() -> None:
        metadata = json.loads(json.dumps(document.metadata))
        metadata["gold"]["answer"] = "B"
        update_document(document=document, metadata=metadata)

    change_then_fresh(flub, computed, edit)


def test_the_form_and_the_taxonomy_are_inputs(flub: dict, computed: list[int]) -> None:
    project = project_of(flub)

    def retitle() -> None:
        project.form["fields"][0]["title"] = "Which explanation?"
        project.save(update_fields=["form"])

    after = change_then_fresh(flub, computed, retitle)
    assert after["tasks"][0]["title"] == "Which explanation?"
    stored = StoredBoard.objects.get(scope=project.pk)
    node = TaxonomyNode.objects.filter(taxonomy_id=project.taxonomy_id).first()
    node.aliases = [*node.aliases, "another spelling"]
    node.save()
    served(flub)
    assert StoredBoard.objects.get(scope=project.pk).fingerprint != stored.fingerprint


def test_another_projects_change_does_not_recompute(flub: dict, computed: list[int]) -> None:
    other = seed.build("FLUB results, another copy")
    served(flub)
    stored = StoredBoard.objects.get(scope=flub["project"])
    ModelRun.objects.filter(pk=other["runs"]["answer/few-shot"]).update(status="failed")
    RunScore.objects.filter(run_id=other["runs"]["explanation/zero-shot"]).update(
        computed_at=timezone.now()
    )
    Annotation.objects.filter(document_id__in=other["documents"]).delete()
    assert served(flub) == json.loads(stored.body)
    assert computed == [flub["project"]]
    assert StoredBoard.objects.get(scope=flub["project"]).computed_at == stored.computed_at


def warm_read_queries(client: APIClient, project: int) -> int:
    url = f"/api/evaluation/projects/{project}/item-leaderboard/"
    assert client.get(url).status_code == 200  # computes and stores
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    return len(queries)


def test_a_warm_read_costs_a_few_queries_whatever_the_number_of_runs(
    flub: dict, computed: list[int]
) -> None:
    client = APIClient()
    client.force_login(project_of(flub).memberships.get(role="reviewer").user)
    few = warm_read_queries(client, flub["project"])
    source = ModelRun.objects.get(pk=flub["runs"]["answer/zero-shot"])
    for index in range(5):
        run = ModelRun.objects.get(pk=source.pk)
        run.pk, run.name, run.model_name = None, f"model {index}", f"other/model-{index}"
        run.save()
        score_item_run(run)
    many = warm_read_queries(client, flub["project"])
    assert few == many <= 15
    assert len(computed) == 2  # once per state of the inputs


def test_names_renamed_in_the_admin_are_seen(flub: dict, computed: list[int]) -> None:
    run = ModelRun.objects.get(pk=flub["runs"]["answer/few-shot"])

    def rename_run() -> None:
        ModelRun.objects.filter(pk=run.pk).update(model_name="org/renamed-model")

    after = change_then_fresh(flub, computed, rename_run)
    assert any("renamed-model" in row["name"] for row in after["rows"])

    def rename_variant() -> None:
        PromptVariant.objects.filter(pk=run.prompt_variant_id).update(name="renamed prompt")

    change_then_fresh(flub, computed, rename_variant)
    submitted = Annotation.objects.filter(
        document__project_id=flub["project"], status=Annotation.Status.SUBMITTED
    )
    annotator = submitted.first().annotator

    def rename_annotator() -> None:
        User.objects.filter(pk=annotator.pk).update(username="renamed-person")

    after = change_then_fresh(flub, computed, rename_annotator)
    assert "renamed-person" in {row["name"] for row in after["rows"]}
