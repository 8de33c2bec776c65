"""A SmartyPat project scored under both profiles: a synthetic benchmark in the published
shapes (a headerless bench file and a benign file) imported with ``import_dataset``, one
model's output records answering the ranked and the detection field through the runs
machinery, and every stored figure of ``definition`` and ``authors-smartypat`` checked
against the values computed by hand (``tests.support.smartypat``)."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from annotations.form_presets import form_preset
from annotations.models import Project
from annotations.services.projects import create_project
from annotations.services.taxonomy import install_preset
from evaluation.backends import Backend, GenerationResult, ModelSpec
from evaluation.items.launch import launch_item_runs
from evaluation.items.runs import profile_of_column, project_benchmark
from evaluation.models import PromptVariant, RunScore
from tests.support.smartypat import (
    ANSWERS,
    AUTHORS_PER_TYPE,
    AUTHORS_S,
    DEFINITION_PER_TYPE,
    DETECTION_ANSWERS,
    item_texts,
    write_files,
)


class RecordsBackend(Backend):
    """Answers each item with the output record of the synthetic model (the model name:
    ``ranked`` or ``detection``)."""

    name = "smartypat-records"

    @classmethod
    def fingerprint(cls, spec: ModelSpec) -> str:
        return f"smartypat-records:{spec.model}"

    def generate(self, requests):
        outputs = ANSWERS if self.spec.model == "ranked" else DETECTION_ANSWERS
        texts = item_texts()
        answers = []
        for request in requests:
            [index] = [i for i, text in enumerate(texts) if f"Text: {text}\n" in request.prompt]
            answers.append(GenerationResult(request.key, outputs[index]))
        yield answers


def score(project: Project, monkeypatch: pytest.MonkeyPatch) -> dict[str, dict[str, dict]]:
    """Run and score the ranked and the detection field; ``{task: {profile: report}}``."""
    from evaluation.backends import BACKENDS
    from evaluation.runs.runner import run_shard
    from evaluation.runs.services import complete_scoring, finish_shard

    monkeypatch.setitem(
        BACKENDS,
        "smartypat-records",
        "tests.evaluation.items.test_smartypat_profiles:RecordsBackend",
    )
    reports: dict[str, dict[str, dict]] = {}
    for field, task in (("types", "ranked"), ("fallacious", "detection")):
        [run] = launch_item_runs(
            project=project,
            field=field,
            models=[ModelSpec("smartypat-records", task)],
            variants=[PromptVariant.objects.get(task=task, name="zero-shot", version=1)],
            enqueue=False,
        )
        assert run_shard(run.pk, 0, log=lambda message: None).generated == 8
        finish_shard(run_id=run.pk, index=0, status="done")
        assert complete_scoring(run_id=run.pk).status == "done"
        reports[task] = {
            profile_of_column(row.profile): row.report
            for row in RunScore.objects.filter(run=run, gold_standard=None)
        }
    return reports


@pytest.mark.django_db
def test_a_smartypat_project_is_scored_under_both_profiles_by_hand(tmp_path, monkeypatch):
    bench, benign = write_files(tmp_path)
    for path in (bench, benign):
        call_command(
            "import_dataset", str(path), format="smartypat", project="SPB", stdout=io.StringIO()
        )
    project = Project.objects.get(name="SPB")
    assert project_benchmark(project) == "smartypat"
    reports = score(project, monkeypatch)
    assert (
        set(reports["ranked"])
        == set(reports["detection"])
        == {
            "definition",
            "authors-smartypat",
        }
    )
    # stored as "items" (what judges, ratings and the Results tab read) and by name
    assert set(RunScore.objects.values_list("profile", flat=True)) == {
        "items",
        "authors-smartypat",
    }

    ranked = reports["ranked"]["definition"]
    assert ranked["profile"] == "definition" and ranked["field"] == "types"
    assert ranked["primary"] == {"name": "mean_s", "value": pytest.approx(1.0 / 8)}
    assert ranked["metrics"]["sum_s"] == pytest.approx(1.0)
    assert ranked["metrics"]["per_type_accuracy"] == DEFINITION_PER_TYPE
    assert ranked["unparseable"]["count"] == 0
    assert ranked["unreadable_labels"] == {
        "pieces": 2,
        "items": 2,
        "examples": ["Cause", "Equivokation"],
    }
    authors = reports["ranked"]["authors-smartypat"]
    assert authors["task"] == "ranked" and authors["field"] == "types"
    assert authors["per_item_s"] == pytest.approx(AUTHORS_S)
    assert authors["primary"] == {"name": "sum_s", "value": pytest.approx(-3.18)}
    assert authors["metrics"]["mean_s"] == pytest.approx(-0.53)
    assert authors["metrics"]["per_type_accuracy"] == AUTHORS_PER_TYPE
    assert authors["scored"] == 6 and authors["items"] == 8

    detection = reports["detection"]["definition"]  # tp 4, fp 1, fn 2 (one unparseable)
    assert detection["metrics"]["precision"] == pytest.approx(0.8)
    assert detection["metrics"]["recall"] == pytest.approx(2 / 3)
    assert detection["primary"]["value"] == pytest.approx(8 / 11)
    assert detection["unparseable"]["count"] == 1
    theirs = reports["detection"]["authors-smartypat"]
    assert theirs["primary"] == {"name": "f1", "value": 0.767}
    assert theirs["metrics"]["recall"] == pytest.approx(14 / 19)
    assert theirs["counts"]["no_benign"] == 5  # 1 real "no", 4 phantom ones


@pytest.mark.django_db
def test_which_projects_get_the_authors_profile() -> None:
    plain_form = {k: v for k, v in form_preset("smartypat").items() if k != "benchmark"}
    other = create_project(
        name="Own", taxonomy=install_preset(name="mafalda"), kind="items", form=plain_form
    )
    assert project_benchmark(other) is None  # definition only
    older = create_project(
        name="Older", taxonomy=install_preset(name="smartypat"), kind="items", form=plain_form
    )
    assert project_benchmark(older) == "smartypat"  # made before forms named it
