"""Imports in the browser: upload, validate every record, import all or nothing, report.

Small files are imported inside the request; a file over 1 MiB goes through a real Celery
worker process on the ``default`` queue (Redis when CELERY_BROKER_URL says so, else the
embedded filesystem broker), sharing the test database.
"""

from __future__ import annotations

import json
import os
import time

import pytest
from celery import Celery, current_app
from django.conf import settings
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from annotations import queued
from annotations.importing.jobs import INLINE_MAX_BYTES
from annotations.models import Document, GoldStandard, ImportJob, Membership, Project
from annotations.naming import readable_name
from annotations.services.projects import create_project
from annotations.services.taxonomy import install_preset
from tests.support.processes import celery_worker, embedded_env

PASSWORD = "pw-for-tests-123"
USER_STUDY = "user_study_examples_without_labels.jsonl"


@pytest.fixture
def project(db: None, settings) -> Project:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    admin = User.objects.create_user("admin", password=PASSWORD)
    return create_project(name="Study", taxonomy=install_preset(name="mafalda"), created_by=admin)


def client_of(username: str) -> APIClient:
    client = APIClient()
    client.force_authenticate(User.objects.get(username=username))
    return client


@pytest.fixture
def admin(project: Project) -> APIClient:
    return client_of("admin")


def post_import(client: APIClient, project: Project, name: str, content: bytes, **fields):
    upload = SimpleUploadedFile(name, content, "application/octet-stream")
    return client.post(
        f"/api/projects/{project.pk}/imports/", {"file": upload, **fields}, format="multipart"
    )


def test_the_user_study_file_imports_its_texts_with_readable_names(admin, project, mafalda_dir):
    content = (mafalda_dir / "datasets" / USER_STUDY).read_bytes()

    response = post_import(admin, project, USER_STUDY, content, format="mafalda")

    assert response.status_code == 201, response.content
    job = response.json()
    assert (job["status"], job["errors"]) == ("succeeded", [])
    assert job["lines_done"] == job["lines_total"] == 20
    assert job["report"]["documents_created"] == 20
    assert job["report"]["texts_only"] is True
    assert job["report"]["gold_version"] is None
    assert not GoldStandard.objects.filter(project=project).exists()
    documents = Document.objects.filter(project=project).order_by("position")
    assert documents.count() == 20
    for document in documents:
        assert document.name == readable_name(document.text) != ""
        assert document.sentences.exists()
    assert ImportJob.objects.get(pk=job["id"]).content in (b"", memoryview(b""))
    listed = admin.get(f"/api/projects/{project.pk}/imports/").json()
    assert [j["id"] for j in listed] == [job["id"]]
    assert admin.get(f"/api/imports/{job['id']}/").json()["status"] == "succeeded"


def test_the_gold_standard_and_a_doccano_export_import_as_before(admin, project, mafalda_dir):
    gold = (mafalda_dir / "datasets" / "gold_standard_dataset.jsonl").read_bytes()
    job = post_import(admin, project, "gold_standard_dataset.jsonl", gold, format="mafalda")
    report = job.json()["report"]
    assert job.json()["status"] == "succeeded", job.json()["errors"]
    assert (report["documents_created"], report["spans"], report["skipped_to_clean"]) == (
        200,
        203,
        4,
    )
    assert (report["gold_version"], report["texts_only"]) == (1, False)

    user1 = (mafalda_dir / "datasets" / "users_results" / "user1.jsonl").read_bytes()
    # the annotator is one of the project's members (an account the admin does not share a
    # project with answers as a missing one: tests/annotations/api/test_invitations.py)
    annotator = User.objects.create_user("user1", password=PASSWORD)
    Membership.objects.create(project=project, user=annotator, role=Membership.Role.ANNOTATOR)
    job = post_import(admin, project, "user1.jsonl", user1, format="doccano", annotator="user1")
    assert job.status_code < 300 and job.json()["status"] == "succeeded", job.content
    assert job.json()["report"]["annotations_created"] == 20


CSV = (
    "ref;body;lang\n"
    "a-1;Cats are great. Dogs are too.;en\n"
    'a-2;"Two lines\nin one text.";en\n'
    "a-3;Le chat est là.;fr\n"
).encode()


def test_a_csv_file_imports_the_chosen_columns(admin, project):
    inspected = admin.post(
        f"/api/projects/{project.pk}/imports/inspect/",
        {"file": SimpleUploadedFile("texts.csv", CSV)},
        format="multipart",
    )
    assert inspected.status_code == 200, inspected.content
    assert inspected.json() == {
        "columns": ["ref", "body", "lang"],
        "rows": 3,
        "sample": [
            ["a-1", "Cats are great. Dogs are too.", "en"],
            ["a-2", "Two lines\nin one text.", "en"],
            ["a-3", "Le chat est là.", "fr"],
        ],
    }

    response = post_import(
        admin, project, "texts.csv", CSV, format="csv", text_column="body", id_column="ref"
    )

    job = response.json()
    assert job["status"] == "succeeded", job["errors"]
    assert job["report"]["documents_created"] == 3
    documents = list(Document.objects.filter(project=project).order_by("position"))
    assert [(d.name, d.external_id, d.metadata) for d in documents] == [
        ("a-1", "a-1", {"lang": "en"}),
        ("a-2", "a-2", {"lang": "en"}),
        ("a-3", "a-3", {"lang": "fr"}),
    ]
    assert documents[0].sentences.count() == 2


def test_a_broken_file_lists_every_error_and_imports_nothing(admin, project):
    good = {"text": "Everyone does it. So it is fine.", "labels": [[0, 17, "ad populum"]]}
    lines = [
        json.dumps(good),
        '{"text": "broken JSON",',
        json.dumps({"text": "Some text.", "labels": [[0, 4, "made-up fallacy"]]}),
        json.dumps({"text": "Short.", "labels": [[0, 60, "ad hominem"]]}),
        json.dumps(good),
        "",
        json.dumps({"text": "No labels here."}),
        json.dumps({"text": "To clean only.", "labels": [[0, 2, "to clean"]]}),
    ]
    content = ("\n".join(lines) + "\n").encode()
    before = (Document.objects.count(), GoldStandard.objects.count())

    job = post_import(admin, project, "gold.jsonl", content, format="mafalda").json()

    assert job["status"] == "failed"
    assert [error["text"] for error in job["errors"]] == [
        "2: invalid JSON: Expecting property name enclosed in double quotes (column 24)",
        "3: labels[0][2]: unknown label 'made-up fallacy' (not in the project's taxonomy)",
        "4: labels[0][1]: end 60 is beyond the text (length 6)",
        "5: text: same text as line 1",
        "7: labels: required field is missing",
    ]
    assert job["errors"][1] == {
        "line": 3,
        "field": "labels[0][2]",
        "message": "unknown label 'made-up fallacy' (not in the project's taxonomy)",
        "text": job["errors"][1]["text"],
    }
    assert job["report"] == {}
    assert (Document.objects.count(), GoldStandard.objects.count()) == before


def test_every_error_is_listed_and_csv_rows_are_checked_one_by_one(admin, project):
    rows = ["id,text"] + [f"{i}, " for i in range(250)] + ["x,Fine text.", "y,a,b"]
    content = ("\n".join(rows) + "\n").encode()

    job = post_import(admin, project, "many.csv", content, format="csv").json()

    assert job["status"] == "failed"
    errors = [error["text"] for error in job["errors"]]
    # every bad line, none left out: 250 blank texts (lines 2-251) and line 253's field count
    assert len(errors) == 251
    assert errors[:250] == [f"{line}: text: the text is blank" for line in range(2, 252)]
    assert errors[-1].startswith("253: ")
    assert not any("more" in e for e in errors)
    # the job's own endpoint (what the page polls) returns them all too
    polled = admin.get(f"/api/imports/{job['id']}/").json()
    assert [e["text"] for e in polled["errors"]] == errors
    assert Document.objects.filter(project=project).count() == 0

    missing = post_import(admin, project, "t.csv", b"a,b\n1,2\n", format="csv").json()
    assert [e["text"] for e in missing["errors"]] == [
        "1: text: no text column named 'text' in the header (columns: a, b)"
    ]


def test_only_project_admins_import(project):
    for username, role in [("reviewer", "reviewer"), ("annotator", "annotator")]:
        user = User.objects.create_user(username, password=PASSWORD)
        Membership.objects.create(project=project, user=user, role=role)
    User.objects.create_user("stranger", password=PASSWORD)
    job = post_import(client_of("admin"), project, "t.txt", b"One text.\n", format="text").json()

    for username, expected in [("reviewer", 403), ("annotator", 403), ("stranger", 404)]:
        client = client_of(username)
        assert post_import(client, project, "t.txt", b"Hi.", format="text").status_code == expected
        assert client.get(f"/api/imports/{job['id']}/").status_code == expected
        assert client.get(f"/api/projects/{project.pk}/imports/").status_code == expected


def _big_text_file() -> bytes:
    filler = "This sentence is here to make the file larger than the inline limit. " * 6
    lines = []
    size, index = 0, 0
    while size <= INLINE_MAX_BYTES:
        line = json.dumps({"id": f"t-{index}", "text": f"Text number {index}. {filler}"}) + "\n"
        lines.append(line)
        size += len(line.encode())
        index += 1
    return "".join(lines).encode()


@pytest.mark.django_db(transaction=True)
def test_a_large_file_goes_through_a_celery_worker(tmp_path, test_database_url):
    admin_user = User.objects.create_user("admin", password=PASSWORD)
    project = create_project(
        name="Big", taxonomy=install_preset(name="mafalda"), created_by=admin_user
    )
    content = _big_text_file()
    env = embedded_env(settings.DATA_DIR, DATABASE_URL=test_database_url)
    if os.environ.get("CELERY_BROKER_URL"):
        env["CELERY_BROKER_URL"] = os.environ["CELERY_BROKER_URL"]

    with celery_worker(env, queues="default") as worker:
        response = post_import(client_of("admin"), project, "big.jsonl", content, format="text")
        assert response.status_code == 201, response.content
        job = response.json()
        assert job["status"] in ("queued", "running")
        deadline = time.monotonic() + 180
        while job["status"] in ("queued", "running") and time.monotonic() < deadline:
            assert worker.poll() is None, worker.stdout.read() if worker.stdout else ""
            time.sleep(0.5)
            job = client_of("admin").get(f"/api/imports/{job['id']}/").json()

    assert job["status"] == "succeeded", job["errors"]
    lines = content.count(b"\n")
    assert job["lines_done"] == job["lines_total"] == lines
    assert job["report"]["documents_created"] == lines
    assert Document.objects.filter(project=project).count() == lines
    assert Document.objects.get(project=project, external_id="t-7").name == "t-7"
    assert bytes(ImportJob.objects.get(pk=job["id"]).content) == b""


def test_the_import_task_is_registered_with_its_work_bound() -> None:
    from fallacy_platform import dispatch
    from fallacy_platform.celery import app

    app.loader.import_default_modules()  # what a worker imports
    assert queued.run_import_job.name in app.tasks, sorted(app.tasks)
    assert dispatch.bound(queued.run_import_job)


@pytest.mark.django_db(transaction=True)
def test_a_large_file_fails_its_job_when_the_broker_is_down(monkeypatch) -> None:
    admin_user = User.objects.create_user("admin", password=PASSWORD)
    project = create_project(
        name="Big", taxonomy=install_preset(name="mafalda"), created_by=admin_user
    )
    monkeypatch.delenv("CELERY_BROKER_URL", raising=False)  # Celery prefers it to its conf
    previous = current_app._get_current_object()  # restored after: later tests publish
    down = Celery("broker-down", broker="redis://127.0.0.1:1/0", set_as_current=False)
    down.conf.broker_connection_timeout = 0.5  # nothing listens on port 1
    down.conf.task_publish_retry = False
    down.set_current()
    try:
        response = post_import(
            client_of("admin"), project, "big.jsonl", _big_text_file(), format="text"
        )
    finally:
        previous.set_current()
        down.close()

    assert response.status_code == 201, response.content
    job = ImportJob.objects.get(pk=response.json()["id"])
    assert job.status == ImportJob.Status.FAILED
    assert job.errors[0]["message"].startswith("could not queue the import: ")
    assert "127.0.0.1" not in job.errors[0]["message"]  # the broker's address: the log's
    assert bytes(job.content) == b""
    assert not Document.objects.filter(project=project).exists()
    assert current_app._get_current_object() is previous


# --- what a running job writes ------------------------------------------------------------


def _updates_of_lines_done(queries: list[dict]) -> int:
    return sum(
        1
        for q in queries
        if q["sql"].startswith("UPDATE") and "importjob" in q["sql"] and "lines_done" in q["sql"]
    )


@pytest.mark.parametrize(("seconds", "expected"), [(3600.0, "one"), (0.0, "many")])
def test_validation_saves_its_progress_by_time_not_by_line(
    project, monkeypatch, seconds, expected
) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from annotations.importing import validation
    from annotations.importing.jobs import create_import_job

    monkeypatch.setattr(validation, "PROGRESS_SECONDS", seconds)
    content = "\n\n".join(f"Text {i}. It is here." for i in range(2000)).encode()
    job = create_import_job(project=project, file_name="t.txt", content=content, format="text")

    with CaptureQueriesContext(connection) as queries:
        check = validation.FileCheck(job, content)
        check.run()

    assert check.errors.count == 0
    updates = _updates_of_lines_done(queries.captured_queries)
    # a poller sees lines_done move while validation runs, at most every PROGRESS_SECONDS;
    # the last save (every line checked) is always written
    assert updates == 1 if expected == "one" else updates >= 2000
    assert ImportJob.objects.get(pk=job.pk).lines_done == job.lines_total


def test_the_uploaded_bytes_are_a_row_of_their_own_deleted_when_the_job_ends(
    admin, project
) -> None:
    from annotations.importing.jobs import create_import_job, run_import_job
    from annotations.models import ImportUpload

    content = b"A first text.\n\nA second one, longer.\n"
    job = create_import_job(project=project, file_name="t.txt", content=content, format="text")
    # the job's row (written while it runs: claim, progress, heartbeat) holds no bytes
    assert "content" not in {f.name for f in ImportJob._meta.concrete_fields}
    assert bytes(ImportUpload.objects.get(job=job).content) == content
    assert job.content == content

    job = run_import_job(job_id=job.pk)

    assert job.status == "succeeded" and job.report["documents_created"] == 2
    assert not ImportUpload.objects.filter(job_id=job.pk).exists()
    assert job.content == b""

    bad = post_import(admin, project, "bad.txt", b"Fine.\n\nFine.\n", format="text").json()
    assert bad["status"] == "failed" and bad["errors"][0]["text"].startswith("3: text:")
    assert not ImportUpload.objects.filter(job_id=bad["id"]).exists()
