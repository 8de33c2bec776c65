"""Stored gold versions, runs and annotations score exactly like the files they came from.

Real data: the MAFALDA gold standard, two systems' raw outputs and the user study's four
annotators (``../shared/datasets``; skipped when absent).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from annotations.importing.datasets import import_doccano_annotations, import_mafalda_gold
from annotations.models import Membership, Project
from annotations.services.projects import add_member, create_project
from annotations.services.taxonomy import install_preset
from evaluation.models import ModelRun
from evaluation.runs import stored
from evaluation.runs.imports import import_run
from evaluation.scoring import (
    read_annotator,
    read_gold,
    read_predictions,
    score,
    score_annotator,
)
from tests.support.paths import SHARED_DATASETS

pytestmark = pytest.mark.django_db

DATASETS = SHARED_DATASETS
MAFALDA = DATASETS / "mafalda"
GOLD = MAFALDA / "datasets" / "gold_standard_dataset.jsonl"
RESULTS = MAFALDA / "results"
RUN_FILES = {
    "gpt-3.5": RESULTS / "gpt-3.5_level_2_results.jsonl",
    "silent": RESULTS / "base-silent_level_2_results.jsonl",
}
USER_STUDY = MAFALDA / "datasets" / "user_study_examples_with_labels.jsonl"
USERS = {
    name: MAFALDA / "datasets" / "users_results" / f"{name}.jsonl"
    for name in ("user1", "user2", "user4", "user5")
}
PROFILES = ("paper", "mafalda-2024")


@pytest.fixture(autouse=True)
def _need_data() -> None:
    if not GOLD.exists():
        pytest.skip(f"shared MAFALDA data not found at {MAFALDA} (../shared/datasets)")


def make_project(name: str) -> Project:
    return create_project(name=name, taxonomy=install_preset(name="mafalda"))


def reviewer_client(project: Project) -> APIClient:
    reviewer = User.objects.create_user(f"reviewer-{project.pk}")
    add_member(project=project, user=reviewer, role=Membership.Role.REVIEWER)
    client = APIClient()
    client.force_login(reviewer)
    return client


def comparable(report: dict[str, Any]) -> dict[str, Any]:
    """A report without what legitimately differs between sources (mapping name, the
    ``to clean`` count the importer reports instead of storing, and the stored work's
    ``coverage`` of the gold version, which a file has not: checked to be whole)."""
    coverage = report.get("coverage")
    assert coverage is None or coverage["texts"] == coverage["of"] == report["texts"]
    return {k: v for k, v in report.items() if k not in ("mapping", "dropped", "coverage")}


# --- the MAFALDA gold and two systems -------------------------------------------------------


@pytest.fixture
def mafalda() -> dict[str, Any]:
    project = make_project("MAFALDA")
    import_mafalda_gold(path=GOLD, project=project)
    gold = project.gold_standards.get()
    runs = {
        name: import_run(project=project, path=path, name=name, gold_standard=gold)
        for name, path in RUN_FILES.items()
    }
    return {"project": project, "gold": gold, "runs": runs}


def test_stored_gold_is_the_file(mafalda: dict[str, Any], django_assert_num_queries) -> None:
    with django_assert_num_queries(2):
        corpus = stored.gold_corpus(mafalda["gold"])
    from_file = read_gold(GOLD)
    assert [t.text for t in corpus.texts] == [t.text for t in from_file.texts]
    assert len(corpus) == 200
    assert [t.spans for t in corpus.texts] == [t.spans for t in from_file.texts]
    assert sum(not t.spans for t in corpus.texts) == 63  # texts with no span: no fallacy


def test_stored_run_is_the_file(mafalda: dict[str, Any], django_assert_num_queries) -> None:
    run = mafalda["runs"]["gpt-3.5"]
    assert run.status == ModelRun.Status.DONE
    assert run.config["texts"] == 200 and run.config["outputs"] == 940
    with django_assert_num_queries(2):
        predictions = stored.run_predictions(run)
    from_file = read_predictions(RUN_FILES["gpt-3.5"])
    assert [(t.text, t.sentences) for t in predictions.texts] == [
        (t.text, t.sentences) for t in from_file.texts
    ]


@pytest.mark.parametrize("profile", PROFILES)
def test_scoring_stored_runs_through_the_api_equals_scoring_the_files(
    mafalda: dict[str, Any], profile: str
) -> None:
    client = reviewer_client(mafalda["project"])
    gold_file = read_gold(GOLD)
    for name, path in RUN_FILES.items():
        response = client.post(
            "/api/evaluation/score/",
            {
                "gold_standard": mafalda["gold"].pk,
                "run": mafalda["runs"][name].pk,
                "profile": profile,
            },
            format="json",
        )
        assert response.status_code == 200, response.content
        api = response.json()
        direct = json.loads(
            json.dumps(score(gold_file, read_predictions(path), profile=profile).to_dict())
        )
        assert comparable(api) == comparable(direct)
        assert api["profile"] == profile and api["parser"] == "keyword"
        assert api["average"] == "text" and api["texts"] == 200
        assert set(api["levels"]) == {"0", "1", "2"}
        if name == "silent" and profile == "mafalda-2024":
            # A model that never answers gets nothing under the published scorer.
            assert api["levels"]["1"]["f1"] == 0 and api["levels"]["2"]["f1"] == 0
        if name == "gpt-3.5":
            assert 0 < api["levels"]["2"]["f1"] < 1


def test_score_options_reach_the_scorer(mafalda: dict[str, Any]) -> None:
    client = reviewer_client(mafalda["project"])
    body = {
        "gold_standard": mafalda["gold"].pk,
        "run": mafalda["runs"]["gpt-3.5"].pk,
        "levels": [2, 1],
        "average": "corpus",
        "parser": "strict",
    }
    api = client.post("/api/evaluation/score/", body, format="json").json()
    direct = score(
        read_gold(GOLD),
        read_predictions(RUN_FILES["gpt-3.5"]),
        levels=[1, 2],
        average="corpus",
        parser="strict",
    ).to_dict()
    assert comparable(api) == comparable(json.loads(json.dumps(direct)))
    assert set(api["levels"]) == {"1", "2"} and api["parser"] == "strict"


# --- humans: the user study -----------------------------------------------------------------


@pytest.fixture
def user_study() -> dict[str, Any]:
    project = make_project("User study")
    import_mafalda_gold(path=USER_STUDY, project=project)
    users = {}
    for name, path in USERS.items():
        users[name] = User.objects.create_user(name)
        import_doccano_annotations(path=path, project=project, annotator=users[name])
    return {"project": project, "gold": project.gold_standards.get(), "users": users}


def test_stored_annotator_is_the_file(
    user_study: dict[str, Any], django_assert_num_queries
) -> None:
    with django_assert_num_queries(2):
        corpus = stored.annotator_corpus(user_study["project"], user_study["users"]["user2"])
    from_file = read_annotator(USERS["user2"])
    assert [(t.text, t.spans) for t in corpus.texts] == [(t.text, t.spans) for t in from_file.texts]


def test_scoring_an_annotator_through_the_api_equals_scoring_the_file(
    user_study: dict[str, Any],
) -> None:
    client = reviewer_client(user_study["project"])
    response = client.post(
        "/api/evaluation/score/",
        {"gold_standard": user_study["gold"].pk, "annotator": user_study["users"]["user1"].pk},
        format="json",
    )
    assert response.status_code == 200, response.content
    api = response.json()
    direct = score_annotator(read_gold(USER_STUDY), read_annotator(USERS["user1"])).to_dict()
    assert comparable(api) == comparable(json.loads(json.dumps(direct)))
    assert api["texts"] == 20 and api["parser"] is None and api["profile"] == "paper"


def test_agreement_pairs_every_annotator_with_every_other(user_study: dict[str, Any]) -> None:
    client = reviewer_client(user_study["project"])
    response = client.get("/api/evaluation/agreement/", {"gold_standard": user_study["gold"].pk})
    assert response.status_code == 200, response.content
    data = response.json()
    assert [a["username"] for a in data["annotators"]] == ["user1", "user2", "user4", "user5"]
    assert data["documents"] == 20 and data["profile"] == "paper"
    pairs = {(p["reference"]["username"], p["scored"]["username"]): p for p in data["pairs"]}
    assert len(data["pairs"]) == 12 == len(pairs)  # 4 x 3 ordered pairs
    assert all(ref != scored for ref, scored in pairs)
    # Each pair equals the package scoring the two doccano files against each other.
    direct = score_annotator(read_annotator(USERS["user1"]), read_annotator(USERS["user2"]))
    for level in ("0", "1", "2"):
        for metric in ("precision", "recall", "f1"):
            assert pairs[("user1", "user2")]["levels"][level][metric] == pytest.approx(
                getattr(direct.levels[int(level)], metric)
            )
    # And each annotator against the gold version.
    assert [row["annotator"]["username"] for row in data["vs_gold"]] == list(USERS)
    vs_gold = score_annotator(read_gold(USER_STUDY), read_annotator(USERS["user4"]))
    assert data["vs_gold"][2]["levels"]["2"]["f1"] == pytest.approx(vs_gold.levels[2].f1)
