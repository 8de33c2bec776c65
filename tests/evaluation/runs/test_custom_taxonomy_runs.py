"""A run on a project's own two-level taxonomy (not MAFALDA's), through the shell entry points
and a real Celery worker: scored with the definition profile at every level, on the embedded
default and on PostgreSQL + Redis."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from evaluation.models import RunScore
from tests.support.jobs import DatabaseTemplates, JobEnv, postgres_services
from tests.support.processes import celery_worker, embedded_env
from tests.support.runs import (
    BASE,
    LEADERBOARD,
    client_for,
    custom_taxonomy_files,
    custom_taxonomy_project,
)

SCORE = f"{BASE}/score/"


@pytest.fixture(params=["embedded", "postgres+redis"])
def job_env(request, tmp_path: Path, database_templates: DatabaseTemplates) -> Iterator[JobEnv]:
    data = tmp_path / "data"
    env = embedded_env(data)
    if request.param == "embedded":
        database_templates.sqlite_copy("migrated", data)
        yield JobEnv(env, request.param)
        return
    env.update(postgres_services())
    with database_templates.postgres_copy("migrated") as url:
        env["DATABASE_URL"] = url
        yield JobEnv(env, request.param)


def test_a_run_on_a_custom_taxonomy_is_scored_at_every_level(
    job_env: JobEnv, tmp_path: Path
) -> None:
    taxonomy, gold = custom_taxonomy_files(tmp_path / "files")
    imported = job_env.manage(
        "import_dataset", "--format", "mafalda", str(gold), "--project", "Own",
        "--taxonomy", str(taxonomy),
    )  # fmt: skip
    assert imported.returncode == 0, imported.stderr
    with celery_worker(job_env.env):
        result = job_env.manage(
            "evaluate", "--project", "Own", "--gold-version", "1", "--backend", "random",
            "--model", "r", "--seed", "3", "--wait", "--format", "json",
        )  # fmt: skip
    assert result.returncode == 0, result.stderr + result.stdout
    report = json.loads(result.stdout.strip().splitlines()[-1])
    run_id = report["run"]
    status, error = job_env.query(
        "SELECT status, error FROM evaluation_modelrun WHERE id = ?", run_id
    )[0]
    assert (status, error) == ("done", "")
    # the definition profile only: mafalda-2024 is MAFALDA's own mapping
    profiles = job_env.query("SELECT profile FROM evaluation_runscore WHERE run_id = ?", run_id)
    assert [profile for (profile,) in profiles] == ["paper"]
    assert report["profile"] == "paper" and report["mapping"] == "taxonomy:greek-latin@1"
    assert report["texts"] == 3 and report["outputs"] == 5  # sentences
    # the random backend answers with the taxonomy's own labels: all of them are read
    assert report["parser"] == "taxonomy-keyword" and report["unreadable"] == 0
    levels = report["levels"]
    assert set(levels) == {"0", "1", "2"}
    assert levels["2"]["gold_spans"] == 2 and levels["2"]["required_gold_spans"] == 2
    assert set(levels["2"]["per_label"]) <= {"alpha", "beta", "gamma"}
    assert {"alpha", "beta", "gamma"} & set(levels["2"]["per_label"])
    assert set(levels["1"]["per_label"]) <= {"greek", "latin"}
    assert set(levels["1"]["per_label"]) & {"greek", "latin"}
    assert set(levels["0"]["per_label"]) == {"fallacy"}
    for level in levels.values():
        assert 0.0 <= level["f1"] <= 1.0


@pytest.mark.django_db
def test_custom_taxonomy_leaderboard_and_the_mafalda_profile_refused(tmp_path: Path) -> None:
    _, gold, run, admin = custom_taxonomy_project(tmp_path)
    client = client_for(admin)
    board = client.get(LEADERBOARD, {"gold_standard": gold.pk}).json()
    [row] = board["rows"]
    assert (row["name"], row["rank"], row["coverage"]) == ("own", 1, {"texts": 3, "of": 3})
    assert "note" not in row
    # text 1: alpha found (F1 1); text 2: beta, one of the range's alternatives (beta or
    # gamma), found (F1 1); text 3: "the first letter" (an alias of alpha) where nothing is
    # required (P 0, R 1: F1 0). The same at level 1 (greek) and level 0 (fallacy).
    for level in ("0", "1", "2"):
        assert row["levels"][level]["f1"] == pytest.approx((1 + 1 + 0) / 3)
    # per label at level 1: greek predicted 3 times, 2 right (P 2/3), both greek spans found
    # (R 1): F1 0.8; latin never predicted, its one span missed (R 0): F1 0
    assert row["per_label"]["1"] == {"greek": pytest.approx(0.8), "latin": 0.0}
    assert sorted(row["per_label"]["2"]) == ["alpha", "beta", "gamma"]
    assert sorted(RunScore.objects.filter(run=run).values_list("profile", flat=True)) == ["paper"]
    assert (
        client.get(LEADERBOARD, {"gold_standard": gold.pk, "profile": "mafalda-2024"}).json()[
            "rows"
        ]
        == []
    )
    body = {"gold_standard": gold.pk, "run": run.pk, "profile": "mafalda-2024"}
    refused = client.post(SCORE, body, format="json")
    assert refused.status_code == 400
    assert "profile: mafalda-2024 scores only MAFALDA's taxonomy" in str(refused.json())
