"""LLM-as-judge: the two rubrics (parsing, repeats, the report), launching a judge run
(every refusal names its field; the API's roles), and a judge run through a real Celery
worker and runner process rating a finished free-text run's outputs."""

from __future__ import annotations

import os
import time
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from annotations.models import Document, Membership, Project
from annotations.services.taxonomy import install_preset
from evaluation.backends import GenerationParams, ModelSpec
from evaluation.backends.base import request_key
from evaluation.benchmarks import TaskError, get_task
from evaluation.benchmarks.base import VariantSpec
from evaluation.benchmarks.items import TaskItem
from evaluation.benchmarks.judges import FidelityJudge, ReferenceJudge
from evaluation.judging.launch import launch_judge_run
from evaluation.models import ModelRun, PromptVariant, RunOutput, RunScore
from evaluation.runs.launch import LaunchError
from tests.support.builtin_rows import builtin_judge_variant
from tests.support.judging import FORM, free_text_run

ITEMS = [
    TaskItem(1, "Is it raining because I washed my car?", reference="False cause.", candidate="A"),
    TaskItem(2, "Everyone says so, so it is true.", reference="Bandwagon.", candidate="B"),
]
EXPLANATIONS = [
    "Washing a car does not make it rain: a false cause.",
    "Popularity is not proof: an appeal to the crowd.",
    "It assumes what it should prove.",
]


def builtin(task: str, name: str) -> PromptVariant:
    return builtin_judge_variant(task, name)


# --- the rubrics (plain Python) ---------------------------------------------------------


@pytest.mark.parametrize(
    ("task", "answer", "expected"),
    [
        (ReferenceJudge, "The answer misses the point. Rating: [[7]]", 7),
        (ReferenceJudge, "[[3]] at first, but on reflection [[4]]", 4),
        (ReferenceJudge, "Score: 9", 9),
        (ReferenceJudge, "[[7.5]]", 7.5),
        (ReferenceJudge, "[[11]]", None),
        (ReferenceJudge, "[[0]]", None),
        (ReferenceJudge, "I cannot judge this.", None),
        (ReferenceJudge, "<think>maybe [[2]]</think> Final: [[8]]", 8),
        (FidelityJudge, "Score: 2", 2),
        (FidelityJudge, "**Score:** 3", 3),
        (FidelityJudge, "[[1]]", 1),
        (FidelityJudge, "0", 0),
        (FidelityJudge, "Score: 4", None),
        (FidelityJudge, "faithful enough", None),
        (FidelityJudge, "", None),
    ],
)
def test_parse_reads_the_rating_or_none(task, answer, expected) -> None:
    judge = task()
    variant = judge.builtin_variants[0]
    assert judge.parse(judge.answer(variant, answer), item=ITEMS[0], labels=()) == expected


def test_repeats_are_distinct_requests_and_one_judgement_is_the_plain_rubric() -> None:
    judge = get_task("judge-fidelity")
    variant = judge.builtin_variants[0]
    assert variant.settings["repeats"] == 3 and variant.settings["temperature"] == 0
    prompts = list(judge.prompts(ITEMS, labels=(), variant=variant))
    assert [(p.document_id, p.unit_index) for p in prompts] == [
        (1, 0),
        (1, 1),
        (1, 2),
        (2, 0),
        (2, 1),
        (2, 2),
    ]
    params = GenerationParams(temperature=0.0)
    keys = {
        request_key(
            backend="vllm",
            model="judge",
            fingerprint="f",
            prompt=p.prompt,
            guided_labels=(),
            params=params,
        )
        for p in prompts
    }
    assert len(keys) == 6  # the cache never answers a repeat with another's output
    assert "Judgement 2 of 3" in prompts[1].prompt
    assert "[Original]\nFalse cause." in prompts[0].prompt  # the reference is the original
    assert prompts[0].labels == ("Score: 0", "Score: 1", "Score: 2", "Score: 3")
    single = VariantSpec("one", "zero-shot", variant.template, settings={"repeats": 1})
    (only, _) = judge.prompts(ITEMS, labels=(), variant=single)
    assert "Judgement" not in only.prompt and only.prompt.startswith("Compare a rewritten")
    # a template without {repeat} still gives distinct prompts
    bare = VariantSpec("bare", "zero-shot", "{original} / {candidate}", settings={"repeats": 2})
    first, second = list(judge.prompts(ITEMS[:1], labels=(), variant=bare))
    assert first.prompt != second.prompt and second.prompt.endswith("False cause. / A")


def test_check_refuses_what_a_judge_cannot_run() -> None:
    reference = ReferenceJudge()
    with pytest.raises(TaskError, match=r"\{reference\} is required"):
        reference.check(VariantSpec("x", "zero-shot", "{candidate}"))
    with pytest.raises(TaskError, match="repeats"):
        reference.check(
            VariantSpec("x", "zero-shot", "{candidate}{reference}", settings={"repeats": 0})
        )
    with pytest.raises(TaskError, match="kind"):
        reference.check(VariantSpec("x", "few-shot", "{candidate}{reference}", shots=2))
    with pytest.raises(TaskError, match="unknown placeholder"):
        reference.check(VariantSpec("x", "zero-shot", "{candidate}{reference}{labels}"))


def test_the_report_averages_parseable_repeats_and_counts_failures() -> None:
    judge = ReferenceJudge()
    raw = [["[[8]]", "[[6]]", "nonsense"], ["[[12]]", "n/a", "none"]]
    parsed = [
        [judge.parse(r, item=item, labels=()) for r in row]
        for item, row in zip(ITEMS, raw, strict=True)
    ]
    report = judge.score(ITEMS, parsed)
    assert report["primary"] == {"name": "judge_mean", "value": 7.0}
    assert report["per_item"] == {"1": 7.0, "2": None}
    assert report["unparseable"] == {"count": 4, "policy": "wrong"}
    assert report["scale"] == {"min": 1, "max": 10}
    assert (report["items"], report["scored"], report["judgements"]) == (2, 1, 6)
    assert report["metrics"]["repeat_sd"] == pytest.approx(1.0)
    assert report["distribution"] == {"6": 1, "8": 1}
    drawn = judge.score(ITEMS, parsed, policy="random", seed=1)
    assert drawn["unparseable"] == {"count": 4, "policy": "random"}
    assert all(1 <= value <= 10 for value in drawn["per_item"].values())
    assert drawn == judge.score(ITEMS, parsed, policy="random", seed=1)  # seeded
    # one value per item (a single judgement) is read too
    assert judge.score(ITEMS, [5, None])["per_item"] == {"1": 5.0, "2": None}


def test_the_builtin_rubrics_are_stored_variants(db) -> None:
    """The data migration seeds them; an admin copies one to change it."""
    stored = {(v.task, v.name): v for v in PromptVariant.objects.filter(task__startswith="judge-")}
    assert set(stored) >= {
        ("judge-reference", "reference-guided"),
        ("judge-fidelity", "fidelity"),
        ("judge-fidelity", "fidelity-reasoned"),
    }
    fidelity = stored[("judge-fidelity", "fidelity")]
    assert fidelity.builtin and fidelity.version == 1
    assert fidelity.decoding["repeats"] == 3 and fidelity.decoding["temperature"] == 0
    assert stored[("judge-reference", "reference-guided")].decoding["repeats"] == 1
    for variant in stored.values():
        get_task(variant.task).check(variant.spec())


# --- launching ---------------------------------------------------------------------------


@pytest.fixture
def items_project(db) -> dict:
    project = Project.objects.create(
        name="FLUB-mini", taxonomy=install_preset(name="mafalda"), kind="items", form=FORM
    )
    documents = [
        Document.objects.create(
            project=project,
            text=item.text,
            position=i,
            metadata={"gold": {"explanation": EXPLANATIONS[i], "type": "a"}},
        )
        for i, item in enumerate([*ITEMS, TaskItem(3, "God exists because the Bible says so.")])
    ]
    admin = User.objects.create_user("boss")
    reviewer = User.objects.create_user("rev")
    Membership.objects.create(project=project, user=admin, role="admin")
    Membership.objects.create(project=project, user=reviewer, role="reviewer")
    return {"project": project, "documents": documents, "admin": admin, "reviewer": reviewer}


def problems(error: pytest.ExceptionInfo[LaunchError]) -> dict[str, list[str]]:
    return error.value.as_dict()


def test_launch_creates_a_queued_judge_run(items_project) -> None:
    project, documents = items_project["project"], items_project["documents"]
    judged = free_text_run(project, documents, limit=2)
    run = launch_judge_run(
        project=project,
        judge_model=ModelSpec("random", ""),
        variant=builtin("judge-reference", "reference-guided"),
        judged_run=judged,
        repeats=3,
        enqueue=False,
    )
    assert (run.task, run.field, run.judged_run_id, run.limit) == (
        "judge-reference",
        "explanation",
        judged.pk,
        2,  # as many items as the judged run answered
    )
    assert run.total == 6 and run.config["repeats"] == 3
    assert run.config["params"]["temperature"] == 0.0
    assert run.status == "queued" and run.run_shards.count() == 1
    assert run.gold_standard_id is None


def _refusals(project: Project, **launch: Any) -> dict[str, list[str]]:
    """The problems, by field, of a judge launch that must be refused (random judge unless
    ``judge_model`` is given)."""
    launch.setdefault("judge_model", ModelSpec("random", ""))
    with pytest.raises(LaunchError) as error:
        launch_judge_run(project=project, enqueue=False, **launch)
    return problems(error)


def test_launch_refusals_name_the_field(items_project) -> None:
    project, documents = items_project["project"], items_project["documents"]
    reference = builtin("judge-reference", "reference-guided")
    running = free_text_run(project, documents, status="running")
    found = _refusals(project, variant=reference, judged_run=running)
    assert "only a finished (done) run is judged" in found["judged_run"][0]

    labels = free_text_run(project, documents, field="type")
    found = _refusals(
        project,
        judge_model=ModelSpec("nope", "m"),
        variant=reference,
        judged_run=labels,
        repeats=50,
    )
    assert "not a free-text field" in found["judged_run"][0]
    assert "unknown backend 'nope'" in found["judge_model.backend"][0]
    assert "from 1 to 20" in found["repeats"][0]

    other = Project.objects.create(name="Other", taxonomy=project.taxonomy, kind="items", form=FORM)
    elsewhere = free_text_run(other, [Document.objects.create(project=other, text="t")])
    found = _refusals(project, variant=reference, judged_run=elsewhere)
    assert "belongs to another project ('Other')" in found["judged_run"][0]

    mafalda = PromptVariant.objects.create(
        task="mafalda", name="m", kind="zero-shot", template="{text}{sentence}"
    )
    done = free_text_run(project, documents)
    found = _refusals(project, variant=mafalda, judged_run=done)
    assert "not a judge" in found["prompt_variant"][0]

    found = _refusals(project, variant=reference)  # no run: the items have no candidates
    assert "no candidate texts" in found["judged_run"][0]
    assert "name the free-text field" in found["field"][0]
    assert not ModelRun.objects.filter(task__startswith="judge").exists()


def test_the_launch_api_is_for_admins(items_project, django_capture_on_commit_callbacks) -> None:
    project, documents = items_project["project"], items_project["documents"]
    judged = free_text_run(project, documents)
    variant = builtin("judge-fidelity", "fidelity")
    body = {
        "project": project.pk,
        "judge_model": {"backend": "random", "model": ""},
        "prompt_variant": variant.pk,
        "judged_run": judged.pk,
        "repeats": 2,
    }
    client = APIClient()
    client.force_authenticate(items_project["reviewer"])
    assert client.post("/api/evaluation/judges/", body, format="json").status_code == 403
    client.force_authenticate(User.objects.create_user("stranger"))
    assert client.post("/api/evaluation/judges/", body, format="json").status_code == 404
    client.force_authenticate(items_project["admin"])
    bad = client.post("/api/evaluation/judges/", {**body, "repeats": 0}, format="json")
    assert bad.status_code == 400 and "repeats" in bad.json()
    with django_capture_on_commit_callbacks() as queued:  # the shard, queued on commit
        created = client.post("/api/evaluation/judges/", body, format="json")
    assert created.status_code == 201, created.content
    (run,) = created.json()["runs"]
    stored = ModelRun.objects.get(pk=run["id"])
    assert (stored.task, stored.judged_run_id, stored.total) == ("judge-fidelity", judged.pk, 6)
    assert len(queued) == 1


# --- a real worker ------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_judge_run_rates_a_free_text_runs_outputs_through_a_real_worker(
    test_database_url,
) -> None:
    from tests.support.processes import celery_worker, embedded_env

    project = Project.objects.create(
        name="Judged", taxonomy=install_preset(name="mafalda"), kind="items", form=FORM
    )
    documents = [
        Document.objects.create(
            project=project,
            text=text,
            position=i,
            metadata={"gold": {"explanation": EXPLANATIONS[i], "type": "a"}},
        )
        for i, text in enumerate(item.text for item in [*ITEMS, TaskItem(3, "Circular.")])
    ]
    judged = free_text_run(project, documents)
    run = launch_judge_run(
        project=project,
        judge_model=ModelSpec("random", ""),
        variant=builtin("judge-fidelity", "fidelity"),
        judged_run=judged,
    )
    env = embedded_env(settings.DATA_DIR, DATABASE_URL=test_database_url)
    if os.environ.get("CELERY_BROKER_URL"):
        env["CELERY_BROKER_URL"] = os.environ["CELERY_BROKER_URL"]
    with celery_worker(env) as worker:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            run.refresh_from_db()
            if run.status in ("done", "failed", "cancelled"):
                break
            assert worker.poll() is None, worker.stdout.read() if worker.stdout else ""
            time.sleep(0.5)
    assert run.status == "done", run.error
    outputs = list(RunOutput.objects.filter(run=run).order_by("document__position", "unit_index"))
    assert [(o.document_id, o.unit_index) for o in outputs] == [
        (d.pk, i) for d in documents for i in range(3)
    ]
    answers = {o.document_id: o.raw_output for o in RunOutput.objects.filter(run=judged)}
    for output in outputs:
        assert answers[output.document_id] in output.prompt  # the judged run's answer
        assert output.raw_output.startswith("Score: ")  # the random judge's raw judgement
    report = RunScore.objects.get(run=run, profile="items").report
    assert report["primary"]["name"] == "judge_mean"
    assert report["unparseable"]["count"] == 0
    task = FidelityJudge()
    for document in documents:
        values = [task.parse(o.raw_output) for o in outputs if o.document_id == document.pk]
        assert report["per_item"][str(document.pk)] == pytest.approx(sum(values) / 3)


# --- the shell command --------------------------------------------------------------------


def test_the_command_names_refused_options(items_project) -> None:
    from django.core.management import CommandError, call_command

    project, documents = items_project["project"], items_project["documents"]
    builtin("judge-reference", "reference-guided")
    running = free_text_run(project, documents, status="running")
    with pytest.raises(CommandError, match=r"--run: run .* is running"):
        call_command("judge", "--project", project.name, "--backend", "random", "--run", running.pk)
    with pytest.raises(CommandError, match=r"--prompt: no variant 'nope'"):
        call_command("judge", "--project", project.name, "--backend", "random", "--prompt", "nope")
    assert not ModelRun.objects.filter(task__startswith="judge").exists()


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_the_command_judges_inline_and_prints_the_report(test_database_url, monkeypatch) -> None:
    import io
    import json

    from django.core.management import call_command

    monkeypatch.setenv("DATABASE_URL", test_database_url)  # the runner process's database
    project = Project.objects.create(
        name="Inline", taxonomy=install_preset(name="mafalda"), kind="items", form=FORM
    )
    documents = [
        Document.objects.create(
            project=project,
            text=item.text,
            position=i,
            metadata={"gold": {"explanation": EXPLANATIONS[i]}},
        )
        for i, item in enumerate(ITEMS)
    ]
    judged = free_text_run(project, documents)
    builtin("judge-reference", "reference-guided")
    out = io.StringIO()
    call_command(
        "judge",
        "--project",
        "Inline",
        "--backend",
        "random",
        "--run",
        str(judged.pk),
        "--repeats",
        "2",
        "--inline",
        stdout=out,
        stderr=io.StringIO(),
    )
    report = json.loads(out.getvalue())
    run = ModelRun.objects.get(pk=report["run"])
    assert (run.task, run.judged_run_id, run.status) == ("judge-reference", judged.pk, "done")
    assert run.outputs.count() == 4 and report["judgements"] == 4
    assert report["scale"] == {"min": 1, "max": 10} and report["unparseable"]["count"] == 0
    assert set(report["per_item"]) == {str(d.pk) for d in documents}
    assert all(
        "[Reference answer]\n" + EXPLANATIONS[0] in o.prompt
        for o in run.outputs.filter(document=documents[0])
    )
