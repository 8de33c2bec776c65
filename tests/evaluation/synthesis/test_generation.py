"""Prolog-checked generation: rule versions, the generation job and its command.

A local OpenAI-compatible server (``tests/support/openai_server.py``) answers with canned facts
(valid ones, a directive that would create a file, a looping clause, a 10 MB term), one
sentence per solution (naming the solution, so the test can read it back) and judge scores.
The kept items are compared with ``swipl`` called directly on the same valid facts.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from annotations.models import Document, Membership, Project
from annotations.services.taxonomy import install_preset
from evaluation.models import GeneratedItem, GenerationJob, PrologRule
from evaluation.prolog import parse_rule_file, shipped_rule_files
from evaluation.synthesis.services import RuleVersionError, save_rule_version
from tests.support.generation import TYPE, VALID, answer_for, seed
from tests.support.openai_server import openai_server

pytestmark = pytest.mark.skipif(
    shutil.which("swipl") is None, reason="SWI-Prolog (swipl) is not installed"
)

SOURCE = shipped_rule_files()["false_dilemma"]
RULE = parse_rule_file(SOURCE)


def swipl_direct(facts: list[str], tmp_path: Path) -> set[str]:
    """The query's distinct solutions from `swipl` called directly (as
    tests/evaluation/prolog/test_prolog.py)."""
    path = tmp_path / "direct.pl"
    path.write_text(
        RULE.dynamic_directive() + RULE.rule_clauses + "".join(f"{f}.\n" for f in sorted(facts))
    )
    names = ", ".join(RULE.query_vars)
    name = RULE.query.split("(")[0]
    goal = (
        f'forall(distinct([{names}], {RULE.query}), format("{name}(~q, ~q, ~q, ~q)~n", [{names}]))'
    )
    out = subprocess.run(
        ["swipl", "-q", "-g", goal, "-t", "halt", str(path)],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return set(out.stdout.splitlines())


def generate(*args: str) -> dict:
    out = io.StringIO()
    call_command("generate_fallacies", *args, stdout=out, stderr=io.StringIO())
    return json.loads(out.getvalue())


def check_job(report: dict, server, marker: Path, tmp_path: Path) -> None:
    job = GenerationJob.objects.get(pk=report["job"])
    assert job.status == "done", job.error
    expected = swipl_direct(VALID, tmp_path)
    assert len(expected) == 2  # the coach and the mayor leave an option out; the chef does not
    sentences = {d.text for d in Document.objects.filter(generated_from__job=job)}
    assert sentences == {f"Sentence for {instance}." for instance in expected}
    facts = report["facts"]
    assert facts["valid"] == len(VALID)
    assert facts["by_reason"] == {"directive": 1, "rule": 2, "answer_too_long": 1}
    assert facts["rejected"] == sum(facts["by_reason"].values()) >= 4
    assert facts["proposed"] == facts["valid"] + facts["rejected"] + facts["duplicates"]
    assert report["satisfying"] == 2 and report["items"] == 2
    assert not marker.exists()  # the directive was never consulted
    judge = report["judge"]
    assert judge["judgements"] == 6 and judge["unparseable"] == 0
    assert judge["mean"] == pytest.approx(8 / 3)
    assert judge["share"] == {
        "0": 0.0,
        "1": 0.0,
        "2": pytest.approx(1 / 3),
        "3": pytest.approx(2 / 3),
    }
    for item in GeneratedItem.objects.filter(job=job):
        assert item.document.metadata["gold"] == {"types": [TYPE], "fallacious": True}
        assert item.scores == [3, 3, 2]


# --- the command, inline ------------------------------------------------------------------


@pytest.mark.django_db
def test_inline_job_keeps_exactly_the_satisfying_combinations_and_caches(tmp_path) -> None:
    seed()
    marker = tmp_path / "pwned"
    with openai_server(answer=answer_for(marker)) as server:
        args = [
            "--project", "Generated", "--type", TYPE, "--backend", "openai",
            "--model", "test-model", "--n", "20", "--inline",
            "--backend-settings", json.dumps({"base_url": server.base_url}),
        ]  # fmt: skip
        report = generate(*args)
        sent = len(server.completion_requests())
        assert sent == 1 + 2 + 6  # facts, two sentences, 3 judgements each
        assert report["requests"] == {"sent": sent, "from_cache": 0}
        check_job(report, server, marker, tmp_path)
        project = Project.objects.get(name="Generated")
        assert project.kind == "items" and project.form["fields"][0]["name"] == "types"

        again = generate(*args)  # identical: everything from the cache
        assert len(server.completion_requests()) == sent
        assert again["requests"] == {"sent": 0, "from_cache": sent}
        check_job(again, server, marker, tmp_path)
        # the second job links the sentences the first one added, and adds none again;
        # every item has its sentences, as every document does
        documents = Document.objects.filter(project=project)
        assert documents.count() == 2
        assert not documents.filter(sentences__isnull=True).exists()

        out = io.StringIO()
        call_command(
            "generate_fallacies", *args, "--format", "table", stdout=out, stderr=io.StringIO()
        )
        text = out.getvalue()
        assert "facts rejected" in text and "directive 1" in text
        assert re.search(r"scores 0/1/2/3 +0% / 0% / 33% / 67%", text)


@pytest.mark.django_db
def test_direct_method_writes_items_from_the_definition(tmp_path) -> None:
    seed()
    with openai_server(answer=answer_for(tmp_path / "m")) as server:
        report = generate(
            "--project", "Direct", "--type", TYPE, "--backend", "openai", "--model",
            "test-model", "--n", "2", "--method", "direct", "--inline",
            "--backend-settings", json.dumps({"base_url": server.base_url}),
        )  # fmt: skip
    assert report["method"] == "direct" and report["items"] == 2 and report["facts"] == {}
    texts = sorted(Document.objects.filter(project__name="Direct").values_list("text", flat=True))
    assert texts == ["Either we ban cars or the city dies.", "You are with us or against us."]


@pytest.mark.django_db
def test_bad_launches_are_refused_naming_the_field_and_nothing_is_queued() -> None:
    seed()
    with pytest.raises(CommandError) as error:
        call_command(
            "generate_fallacies", "--project", "P", "--type", "no such type", "--backend",
            "openai", "--n", "0", "--method", "guess",
        )  # fmt: skip
    message = str(error.value)
    for option in ("--type: no rule file", "--model: a model name", "--n:", "--method:"):
        assert option in message
    broken = SOURCE.replace("A \\== B,", "A \\== B,,", 1)
    PrologRule.objects.create(type=TYPE, version=99, source=broken)  # bypassing the service
    with pytest.raises(CommandError, match=r"rule 'false dilemma' v99: line 1[0-9]: "):
        call_command("generate_fallacies", "--project", "P", "--type", TYPE, "--backend", "random")
    assert not GenerationJob.objects.exists() and not Project.objects.filter(name="P").exists()


# --- rule versions ------------------------------------------------------------------------


@pytest.mark.django_db
def test_rule_versions_refuse_any_swipl_message_and_write_nothing() -> None:
    seed()
    assert PrologRule.objects.filter(builtin=True).count() == 11
    singleton = SOURCE.replace(
        "% Examples", "odd(X, Y) :- presents_options(X, _, _, _).\n% Examples", 1
    )
    with pytest.raises(RuleVersionError, match=r"line \d+: swipl warning: .*[Ss]ingleton"):
        save_rule_version(type_name=TYPE, source=singleton)
    with pytest.raises(RuleVersionError, match=r"declares type 'false dilemma'"):
        save_rule_version(type_name="equivocation", source=SOURCE)
    assert PrologRule.objects.filter(type=TYPE).count() == 1
    edited = SOURCE.replace("% Examples", "% Examples (edited)", 1)
    rule = save_rule_version(type_name=TYPE, source=edited)
    assert (rule.version, rule.builtin) == (2, False)


@pytest.mark.django_db
def test_the_rules_api_lists_shows_and_versions_for_admins() -> None:
    seed()
    admin = User.objects.create_superuser("root", password="x")
    user = User.objects.create_user("plain", password="x")
    client = APIClient()
    assert client.get("/api/evaluation/prolog-rules/").status_code in (401, 403)
    client.force_authenticate(user)  # no role anywhere
    assert client.get("/api/evaluation/prolog-rules/").status_code == 403
    project = Project.objects.create(name="R", taxonomy=install_preset(name="smartypat"))
    Membership.objects.create(project=project, user=user, role="reviewer")
    listed = client.get("/api/evaluation/prolog-rules/")
    assert listed.status_code == 200 and len(listed.json()) == 11
    rule = PrologRule.objects.get(type=TYPE)
    shown = client.get(f"/api/evaluation/prolog-rules/{rule.pk}/")
    assert shown.status_code == 200 and shown.json()["source"] == SOURCE
    body = {"type": TYPE, "source": SOURCE + "\nbroken(.\n"}
    assert client.post("/api/evaluation/prolog-rules/", body, format="json").status_code == 403
    client.force_authenticate(admin)
    refused = client.post("/api/evaluation/prolog-rules/", body, format="json")
    assert refused.status_code == 400 and "line" in json.dumps(refused.json())
    assert PrologRule.objects.filter(type=TYPE).count() == 1
    created = client.post(
        "/api/evaluation/prolog-rules/", {"type": TYPE, "source": SOURCE + "\n"}, format="json"
    )
    assert created.status_code == 201 and created.json()["version"] == 2


# --- a real worker ------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_generation_job_runs_in_a_real_worker(test_database_url, tmp_path) -> None:
    from tests.support.processes import celery_worker, embedded_env

    seed()
    marker = tmp_path / "pwned"
    env = embedded_env(settings.DATA_DIR, DATABASE_URL=test_database_url)
    if os.environ.get("CELERY_BROKER_URL"):
        env["CELERY_BROKER_URL"] = os.environ["CELERY_BROKER_URL"]
    with openai_server(answer=answer_for(marker)) as server:

        def launch(*, worker_running: bool = False) -> GenerationJob:
            call_command(
                "generate_fallacies", "--project", "Worker", "--type", TYPE,
                "--backend", "openai", "--model", "test-model", "--n", "20",
                "--backend-settings", json.dumps({"base_url": server.base_url}),
                stdout=io.StringIO(), stderr=io.StringIO(),
            )  # fmt: skip
            job = GenerationJob.objects.order_by("-pk").first()
            # queued for a worker, not run inline (a running worker may have taken it already)
            assert job.status in (("queued", "running", "done") if worker_running else ("queued",))
            return job

        def finished(job: GenerationJob, worker) -> GenerationJob:
            deadline = time.monotonic() + 180
            while time.monotonic() < deadline:
                job.refresh_from_db()
                if job.status in ("done", "failed"):
                    return job
                assert worker.poll() is None, worker.stdout.read() if worker.stdout else ""
                time.sleep(0.5)
            raise AssertionError(f"job {job.pk} still {job.status}")

        job = launch()
        with celery_worker(env) as worker:
            job = finished(job, worker)
            check_job({"job": job.pk, **job.report}, server, marker, tmp_path)
            assert len(server.completion_requests()) == 9
            # an identical second job, through the same worker: every answer from the cache
            again = finished(launch(worker_running=True), worker)
        assert len(server.completion_requests()) == 9
        assert again.status == "done", (again.error, again.report)
        assert again.report["requests"] == {"sent": 0, "from_cache": 9}
        check_job({"job": again.pk, **again.report}, server, marker, tmp_path)
