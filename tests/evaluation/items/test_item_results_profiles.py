"""The item results of a SmartyPat project under both scoring profiles: imported runs
(``tests/e2e/seed_smartypat_results.py``) and an annotator, side by side; a subset scored
again under the authors' profile from the raw answers."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from django.utils import timezone

from annotations.models import Annotation, Project
from evaluation.items.leaderboard import item_leaderboard
from evaluation.items.runs import label_aliases, profile_column
from evaluation.models import ModelRun, RunOutput, RunScore
from evaluation.scoring.items import score_answers
from tests.e2e import seed_smartypat_results as seed
from tests.e2e.seed_base import user

pytestmark = pytest.mark.django_db
AUTHORS = "authors-smartypat"
BOTH = ["definition", AUTHORS]


@pytest.fixture
def project() -> Project:
    built = seed.build()
    project = Project.objects.get(pk=built["project"])
    annotator = user("smartypat-annotator")
    for document in project.documents.order_by("position"):
        Annotation.objects.create(
            document=document,
            annotator=annotator,
            status=Annotation.Status.SUBMITTED,
            submitted_at=timezone.now(),
            response={
                "types": list(document.metadata["gold"]["types"]),
                "fallacious": document.metadata["gold"]["fallacious"],
            },
        )
    return project


def stored(project: Project, model: str, field: str, profile: str) -> dict:
    run = ModelRun.objects.get(project=project, name=f"{model} {field}")
    return RunScore.objects.get(run=run, profile=profile_column(profile)).report


def test_both_profiles_side_by_side_with_their_stored_figures(project: Project) -> None:
    board = item_leaderboard(project=project)
    assert board["profiles"] == BOTH
    for profile in BOTH:
        rows = [row for row in board["rows"] if row["profile"] == profile]
        assert {row["name"] for row in rows} == {"model-one", "model-two", "smartypat-annotator"}
        assert {row["kind"] for row in rows} == {"imported", "human"}
    [sum_s] = [f for f in board["figures"] if (f["field"], f["metric"]) == ("types", "sum_s")]
    values = {(r["name"], r["profile"]): r["value"] for r in sum_s["rows"]}
    for profile in BOTH:
        report = stored(project, "model-one", "types", profile)
        assert values[("model-one", profile)] == pytest.approx(report["metrics"]["sum_s"])
    authors = stored(project, "model-one", "fallacious", AUTHORS)
    figures = {(f["field"], f["metric"]): f for f in board["figures"]}
    recall = figures[("fallacious", "recall")]
    assert {(r["name"], r["profile"]): r["value"] for r in recall["rows"]}[
        ("model-one", AUTHORS)
    ] == pytest.approx(authors["metrics"]["recall"])
    # The annotator answered the gold: under both profiles their detection F1 is 1.
    human = [r for r in board["rows"] if r["kind"] == "human"]
    assert [r["tasks"]["fallacious"]["value"] for r in human] == [1.0, 1.0]
    assert {r["profile"] for r in human} == set(BOTH)
    assert board["overall_basis"]["excluded"][0]["field"] == "types"


def test_a_subset_under_the_authors_profile_reads_the_raw_answers(project: Project) -> None:
    board = item_leaderboard(project=project, profile=AUTHORS, subset="gold=fallacious")
    assert board["profile"] == AUTHORS and {r["profile"] for r in board["rows"]} == {AUTHORS}
    [row] = [r for r in board["rows"] if r["name"] == "model-one"]
    run = ModelRun.objects.get(project=project, name="model-one types")
    documents = list(project.documents.order_by("position"))
    bench = [d for d in documents if d.metadata["gold"]["fallacious"]]
    raw = dict(RunOutput.objects.filter(run=run).values_list("document_id", "raw_output"))
    labels = list(project.taxonomy.nodes.filter(level=2).values_list("name", flat=True))
    expected = score_answers(
        "ranked",
        [d.metadata["gold"]["types"] for d in bench],
        [raw.get(d.pk) for d in bench],
        labels=labels,
        profile=AUTHORS,
        aliases=label_aliases(project, labels),
        gold_texts=[(d.metadata.get("gold_text") or {}).get("types") for d in bench],
    )
    assert row["tasks"]["types"]["value"] == pytest.approx(expected["primary"]["value"])
    assert row["coverage"] == {"items": 4, "of": 4, "complete": True}


def test_the_results_command_gives_every_profile(project: Project) -> None:
    out = io.StringIO()
    call_command("results", "--project", project.name, "--format", "json", stdout=out)
    objects = json.loads(out.getvalue())
    assert {(o["name"], o["profile"]) for o in objects if o["kind"] == "imported"} == {
        (model, profile) for model in ("model-one", "model-two") for profile in BOTH
    }
    one = next(o for o in objects if o["name"] == "model-one" and o["profile"] == AUTHORS)
    assert "types:per_type_accuracy" in one["figures"] and "fallacious:counts" in one["figures"]
