"""Agreement figures of a project: computed by a task, cached per inputs hash, served by the API.

The figures are checked against nltk, krippendorff and statsmodels called directly here on
units built independently from the same stored sentences and spans.
"""

from __future__ import annotations

import os
import threading
import time
from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.db import connection
from django.utils import timezone
from fallacy_platform import dispatch
from kombu.exceptions import OperationalError as KombuOperationalError
from rest_framework.test import APIClient

from annotations.labels import NO_FALLACY
from annotations.models import Annotation, Membership, Project, Span
from annotations.services.documents import add_document
from annotations.services.projects import create_project
from annotations.services.taxonomy import install_preset
from evaluation.agreement import jobs as agreement_jobs
from evaluation.models import AgreementResult
from tests.support.agreement import assert_library_figures, independent_units
from tests.support.processes import celery_worker, embedded_env

TEXTS = [
    "You cannot trust him. He is a known liar. So his plan is wrong.",
    "If we ban cars, next we ban bikes. Then walking is banned. Nobody wants that.",
    "Everyone I know agrees. So it must be true. The sky is blue.",
]
# annotator -> document index -> [(sentence index, labels)]
WORK = {
    "ann1": {
        0: [(0, ["ad hominem"]), (2, ["ad hominem", NO_FALLACY])],
        1: [(0, ["slippery slope"])],
        2: [(0, ["ad populum"])],
    },
    "ann2": {
        0: [(0, ["ad hominem"])],
        1: [(0, ["slippery slope"]), (1, ["slippery slope"])],
        2: [],
    },
    "ann3": {
        0: [(1, ["appeal to fear"])],
        1: [(0, ["causal oversimplification"])],
        2: [(0, ["ad populum"])],
    },
}


def build(project: Project) -> None:
    documents = [add_document(project=project, text=text) for text in TEXTS]
    for username, by_document in WORK.items():
        user = User.objects.create_user(username)
        Membership.objects.create(project=project, user=user, role="annotator")
        for index, document in enumerate(documents):
            annotation = Annotation.objects.create(
                document=document, annotator=user, status="submitted", submitted_at=timezone.now()
            )
            sentences = list(document.sentences.order_by("index").values_list("start", "end"))
            for sentence, labels in by_document[index]:
                start, end = sentences[sentence]
                Span.objects.create(annotation=annotation, start=start, end=end, labels=labels)


@pytest.fixture
def project(db: None) -> Project:
    admin = User.objects.create_user("boss", password="pw-for-tests-123")
    project = create_project(name="IAA", taxonomy=install_preset(name="mafalda"), created_by=admin)
    build(project)
    return project


def computed(project: Project) -> dict:
    result = agreement_jobs.agreement_for(project=project, start=False)
    assert agreement_jobs.compute(result.pk) == "done"
    result.refresh_from_db()
    return result.payload


@pytest.mark.parametrize("level", [0, 1, 2])
def test_figures_match_nltk_krippendorff_and_statsmodels(project: Project, level: int) -> None:
    payload = computed(project)
    assert payload["documents"] == 3
    assert_library_figures(payload, independent_units(project, level), level)
    # Fleiss: every unit has three annotators here
    fleiss = payload["levels"][str(level)]["fleiss_kappa"]
    assert fleiss["units"] == 9 and fleiss["reason"] is None


def test_cross_comparison_cooccurrence_and_per_document(project: Project) -> None:
    payload = computed(project)
    level2 = payload["levels"]["2"]
    # each annotator against each other one: 3 x 2 ordered pairs, on 3 documents each
    assert len(level2["f1"]) == 6 and {row["documents"] for row in level2["f1"]} == {3}
    ann = {a["username"]: a["id"] for a in payload["annotators"]}
    perfect = [
        row
        for row in level2["f1"]
        if (row["reference"], row["scored"]) == (ann["ann1"], ann["ann2"])
    ]
    assert 0 < perfect[0]["f1"] < 1
    # ann1 and ann3 both said "ad populum" on document 3, ann1 and ann2 "ad hominem" on 1
    labels = level2["cooccurrence"]["labels"]
    counts = level2["cooccurrence"]["counts"]
    assert counts[labels.index("ad populum")][labels.index("ad populum")] >= 1
    assert counts[labels.index("slippery slope")][labels.index("causal oversimplification")] >= 1
    distribution = level2["distribution"]
    assert (
        distribution["annotators"][str(ann["ann2"])][distribution["labels"].index("slippery slope")]
        == 2
    )
    assert [d["position"] for d in payload["per_document"]] == [0, 1, 2]
    keys = agreement_jobs.document_sort_keys(project)
    assert set(keys) == {d["document"] for d in payload["per_document"]}
    assert all(isinstance(k, float) for k in keys.values())


def test_a_changed_span_gives_a_new_key_and_the_old_result_stays(project: Project) -> None:
    first = agreement_jobs.agreement_for(project=project, start=False)
    again = agreement_jobs.agreement_for(project=project, start=False)
    assert first.pk == again.pk
    span = Span.objects.filter(annotation__document__project=project).first()
    span.labels = ["appeal to fear"]
    span.save()
    second = agreement_jobs.agreement_for(project=project, start=False)
    assert second.key != first.key
    assert AgreementResult.objects.filter(project=project).count() == 2


def test_a_stuck_result_is_started_again(project: Project, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks() as callbacks:
        result = agreement_jobs.agreement_for(project=project, start=True)
    assert len(callbacks) == 1  # enqueued once
    with django_capture_on_commit_callbacks() as callbacks:
        agreement_jobs.agreement_for(project=project, start=True)
    assert callbacks == []  # pending and fresh: not enqueued twice
    AgreementResult.objects.filter(pk=result.pk).update(
        created_at=timezone.now() - timedelta(hours=1)
    )
    with django_capture_on_commit_callbacks() as callbacks:
        agreement_jobs.agreement_for(project=project, start=True)
    assert len(callbacks) == 1


def test_stuck_running_and_failed_results_are_restarted(
    project: Project, django_capture_on_commit_callbacks
) -> None:
    result = agreement_jobs.agreement_for(project=project, start=False)
    now = timezone.now()
    cases = [
        # (status, started/finished this long ago, restarted?)
        ("running", timedelta(seconds=30), False),
        ("running", agreement_jobs.STUCK_AFTER + timedelta(seconds=1), True),
        ("failed", timedelta(seconds=5), False),
        ("failed", agreement_jobs.RETRY_FAILED_AFTER + timedelta(seconds=1), True),
        ("done", timedelta(hours=5), False),
    ]
    for state, ago, restarted in cases:
        AgreementResult.objects.filter(pk=result.pk).update(
            status=state, started_at=now - ago, finished_at=now - ago, error="boom"
        )
        with django_capture_on_commit_callbacks() as callbacks:
            again = agreement_jobs.agreement_for(project=project)
        assert len(callbacks) == int(restarted), (state, ago)
        assert again.pk == result.pk
        assert again.status == ("pending" if restarted else state)
    # a stale message for a result that is done already changes nothing
    assert agreement_jobs.compute(result.pk) == "done"
    assert agreement_jobs.compute(10**9) == "missing"


def test_a_result_the_job_queue_refuses_is_not_left_pending(
    project: Project, monkeypatch, django_capture_on_commit_callbacks
) -> None:
    """While the broker is away the request fails (the API's 503) and leaves no pending
    result behind, so the next request queues the computation at once (not after
    ``STUCK_AFTER``)."""

    def refuse(message: object) -> None:
        raise KombuOperationalError("Error 111 connecting to 127.0.0.1:6379.")

    with monkeypatch.context() as patched:
        patched.setattr(dispatch, "_publish", refuse)
        with pytest.raises(dispatch.QueueUnavailable):
            with django_capture_on_commit_callbacks(execute=True):
                agreement_jobs.agreement_for(project=project)
    assert not AgreementResult.objects.filter(project=project).exists()
    with django_capture_on_commit_callbacks() as callbacks:
        result = agreement_jobs.agreement_for(project=project)
    assert len(callbacks) == 1 and result.status == "pending"


@pytest.mark.django_db(transaction=True)
def test_concurrent_requests_share_one_result_and_enqueue_once(monkeypatch) -> None:
    admin = User.objects.create_user("boss")
    project = create_project(name="IAA", taxonomy=install_preset(name="mafalda"), created_by=admin)
    build(project)
    enqueued: list[int] = []
    monkeypatch.setattr(agreement_jobs, "_enqueue", enqueued.append)
    barrier = threading.Barrier(8)
    errors: list[BaseException] = []
    keys: list[int] = []

    def request() -> None:
        try:
            barrier.wait()
            keys.append(agreement_jobs.agreement_for(project=project).pk)
        except BaseException as error:  # reported below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=request) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(set(keys)) == 1 and len(keys) == 8
    assert AgreementResult.objects.filter(project=project).count() == 1
    assert enqueued == keys[:1]


@pytest.mark.django_db(transaction=True)
def test_the_api_answers_computing_then_the_figures_from_a_real_worker(test_database_url):
    admin = User.objects.create_user("boss", password="pw-for-tests-123")
    project = create_project(name="IAA", taxonomy=install_preset(name="mafalda"), created_by=admin)
    build(project)
    client = APIClient()
    client.force_authenticate(admin)
    url = f"/api/evaluation/projects/{project.pk}/agreement/"
    env = embedded_env(settings.DATA_DIR, DATABASE_URL=test_database_url)
    if os.environ.get("CELERY_BROKER_URL"):
        env["CELERY_BROKER_URL"] = os.environ["CELERY_BROKER_URL"]

    def wait_done() -> dict:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            response = client.get(url)
            if response.status_code == 200:
                return response.json()
            assert response.status_code == 202 and response.json()["status"] == "computing"
            assert worker.poll() is None, worker.stdout.read() if worker.stdout else ""
            time.sleep(0.3)
        raise AssertionError("agreement not computed within 120 s")

    first = client.get(url)
    assert first.status_code == 202 and first.json()["status"] == "computing"
    with celery_worker(env, queues="default") as worker:
        done = wait_done()
        assert done["status"] == "done", done
        assert done["levels"]["2"]["alpha"]["masi"]["units"] == 9
        assert done["hash"] == done["key"] == first.json()["key"]
        one = client.get(url, {"document": done["per_document"][0]["document"]}).json()
        assert one["document"] == done["per_document"][0]
        span = Span.objects.filter(annotation__document__project=project).first()
        span.labels = ["appeal to fear"]
        span.save()
        changed = client.get(url)
        assert changed.status_code == 202 and changed.json()["key"] != done["key"]
        assert wait_done()["key"] == changed.json()["key"]


def test_documents_with_the_same_text_do_not_break_the_cross_comparison(project: Project) -> None:
    from annotations.models import Document

    first = Document.objects.filter(project=project).order_by("position").first()
    twin = add_document(project=project, text=first.text)
    for annotation in Annotation.objects.filter(document=first):
        copy = Annotation.objects.create(
            document=twin,
            annotator=annotation.annotator,
            status="submitted",
            submitted_at=timezone.now(),
        )
        for span in annotation.spans.all():
            Span.objects.create(annotation=copy, start=span.start, end=span.end, labels=span.labels)
    payload = computed(project)
    assert payload["documents"] == 4
    assert payload["levels"]["2"]["alpha"]["masi"]["units"] == 12  # every sentence counts
    assert {row["documents"] for row in payload["levels"]["2"]["f1"]} == {3}  # one per text
