"""A SmartyPat project scored under both profiles: a synthetic benchmark in the published
shapes (a headerless bench file and a benign file) imported with ``import_dataset``, one
model's output records answering the ranked and the detection field through the runs
machinery, and every stored figure of ``definition`` and ``authors-smartypat`` checked
against the values computed by hand (``tests.support.smartypat``)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotations.form_presets import form_preset
from annotations.items import parse_form
from annotations.models import Project
from annotations.services.projects import create_project
from annotations.services.taxonomy import install_preset
from evaluation.backends import Backend, GenerationResult, ModelSpec
from evaluation.items.launch import launch_item_runs
from evaluation.items.leaderboard.answers import subset_options
from evaluation.items.runs import profile_of_column, project_benchmark
from evaluation.models import ModelRun, PromptVariant, RunScore
from tests.support.smartypat import (
    ANSWERS,
    AUTHORS_GOLD_COUNTS,
    AUTHORS_PER_TYPE,
    AUTHORS_PREDICTED,
    AUTHORS_S,
    DEFINITION_GOLD_COUNTS,
    DEFINITION_PER_TYPE,
    DEFINITION_PREDICTED,
    DETECTION_ANSWERS,
    item_texts,
    write_files,
    write_outputs,
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


def _import_bench_and_benign(tmp_path: Path) -> None:
    """The bench and benign files into ``SPB``, each its own split."""
    bench, benign = write_files(tmp_path)
    for path, split in ((bench, "bench"), (benign, "benign")):
        call_command(
            "import_dataset",
            str(path),
            format="smartypat",
            project="SPB",
            set_metadata=[f"split={split}"],
            stdout=io.StringIO(),
        )
    project = Project.objects.get(name="SPB")
    form = parse_form(project.form)
    assert {"name": "split=bench", "items": 6} in subset_options(project, form)
    assert {"name": "split=benign", "items": 2} in subset_options(project, form)


def _import_runs_of_both_fields(tmp_path: Path) -> dict[str, dict[str, dict]]:
    """The model's two output files (benign ids prefixed ``good-``) imported as one run per
    field; field -> profile -> the stored report."""
    outputs = [str(path) for path in write_outputs(tmp_path)]
    reports = {}
    for field in ("types", "fallacious"):
        out = io.StringIO()
        call_command(
            "import_run",
            *outputs,
            project="SPB",
            name=f"claude {field}",
            field=field,
            output_column="*",
            id_prefix=["", "good-"],
            stdout=out,
        )
        assert "8 outputs, 0 items missing" in out.getvalue()
        run = ModelRun.objects.get(name=f"claude {field}")
        assert run.imported and run.config["files"] == [
            {"file": "model_bench.json", "id_prefix": "", "outputs": 6},
            {"file": "model_benign.json", "id_prefix": "good-", "outputs": 2},
        ]
        reports[field] = {
            profile_of_column(row.profile): row.report
            for row in RunScore.objects.filter(run=run, gold_standard=None)
        }
    return reports


@pytest.mark.django_db
def test_published_output_arrays_import_into_a_headerless_smartypat_project(tmp_path):
    _import_bench_and_benign(tmp_path)
    reports = _import_runs_of_both_fields(tmp_path)

    ranked = reports["types"]["definition"]
    assert ranked["predicted_counts"] == DEFINITION_PREDICTED
    assert ranked["gold_counts"] == DEFINITION_GOLD_COUNTS
    assert ranked["primary"] == {"name": "mean_s", "value": pytest.approx(1.0 / 8)}
    assert ranked["metrics"]["sum_s"] == pytest.approx(1.0)
    assert ranked["metrics"]["per_type_accuracy"] == DEFINITION_PER_TYPE
    assert ranked["unreadable_labels"]["examples"] == ["Cause", "Equivokation"]
    authors = reports["types"]["authors-smartypat"]
    assert authors["per_item_s"] == pytest.approx(AUTHORS_S)
    assert authors["primary"] == {"name": "sum_s", "value": pytest.approx(-3.18)}
    assert authors["metrics"]["per_type_accuracy"] == AUTHORS_PER_TYPE
    assert authors["predicted_counts"] == AUTHORS_PREDICTED
    assert authors["gold_counts"] == AUTHORS_GOLD_COUNTS

    # detection: yes on items 1-3, 5, 6 and benign 2; no on item 4 and benign 1
    detection = reports["fallacious"]["definition"]
    assert detection["metrics"]["precision"] == pytest.approx(5 / 6)
    assert detection["metrics"]["recall"] == pytest.approx(5 / 6)
    assert detection["unparseable"]["count"] == 0
    theirs = reports["fallacious"]["authors-smartypat"]
    # benign padded to 6: yes 1, no 6 - 1 = 5; TP' = 5/6, FN' = 1/(1 + 5)
    assert theirs["counts"] == {
        "yes_fallacious": 5,
        "no_fallacious": 1,
        "yes_benign": 1,
        "no_benign": 5,
    }
    assert theirs["metrics"]["recall"] == pytest.approx((5 / 6) / (5 / 6 + 1 / 6))
    assert theirs["primary"] == {"name": "f1", "value": 0.833}


@pytest.mark.django_db
def test_bench_and_benign_outputs_refuse_a_shared_id_or_uneven_prefixes(tmp_path):
    bench, benign = write_files(tmp_path)
    for path in (bench, benign):
        call_command(
            "import_dataset", str(path), format="smartypat", project="SPB", stdout=io.StringIO()
        )
    outputs = [str(path) for path in write_outputs(tmp_path)]
    common = {"project": "SPB", "name": "x", "field": "types", "output_column": "*"}
    with pytest.raises(CommandError) as refused:  # benign ids 1, 2 without their prefix
        call_command("import_run", *outputs, **common)
    assert str(refused.value) == "model_benign.json:2: id: same id '1' as model_bench.json line 2"
    with pytest.raises(CommandError, match="--id-prefix: given 1 times for 2 files"):
        call_command("import_run", *outputs, id_prefix=["good-"], **common)
    with pytest.raises(CommandError) as refused:
        call_command("import_run", outputs[0], project="SPB", name="x", field="types")
    assert "output: required field is missing (the output column '*' takes" in str(refused.value)
    with pytest.raises(CommandError, match="--set-metadata: 'gold' is a key the item layout"):
        call_command(
            "import_dataset",
            str(bench),
            format="smartypat",
            project="SPB",
            set_metadata=["gold=x"],
            stdout=io.StringIO(),
        )
    assert not ModelRun.objects.exists()
