"""An import's documents are found by the document list's search as soon as they are
listed: on PostgreSQL they join the text's trigram search index after the import job
(``annotations.services.search_index``), and the search reads the pending ones by a scan."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.db import connection
from rest_framework.test import APIClient

from annotations.importing import jobs
from annotations.models import Document, Project
from annotations.services import search_index
from annotations.services.projects import create_project
from annotations.services.taxonomy import install_preset

TEXTS = [
    f"Text {i} asks about the {'referendum' if i % 3 == 0 else 'budget'}. It has two sentences."
    for i in range(30)
]
CONTENT = "\n\n".join(TEXTS).encode()


@pytest.fixture
def project(db: None) -> Project:
    admin = User.objects.create_user("admin")
    return create_project(name="Study", taxonomy=install_preset(name="mafalda"), created_by=admin)


def searched(project: Project, q: str) -> list[str]:
    client = APIClient()
    client.force_authenticate(User.objects.get(username="admin"))
    response = client.get(f"/api/projects/{project.pk}/documents/", {"q": q, "limit": 100})
    assert response.status_code == 200, response.content
    return sorted(row["name"] for row in response.json()["results"])


def pending(project: Project) -> int:
    return Document.objects.filter(project=project, in_search_index=False).count()


def test_the_search_finds_imported_documents_before_and_after_they_join_the_index(
    project, monkeypatch
) -> None:
    monkeypatch.setattr(search_index, "index_pending", lambda **kwargs: 0)  # not yet
    job = jobs.create_import_job(project=project, file_name="t.txt", content=CONTENT, format="text")
    job = jobs.run_import_job(job_id=job.pk)
    assert job.status == "succeeded", job.errors
    # PostgreSQL writes an import's documents outside the index; SQLite has none to fill
    assert pending(project) == (30 if connection.vendor == "postgresql" else 0)
    names = searched(project, "REFERENDUM")
    assert len(names) == 10
    assert names == sorted(
        Document.objects.filter(project=project, text__contains="referendum").values_list(
            "name", flat=True
        )
    )

    monkeypatch.undo()
    marked = search_index.index_pending(project_id=project.pk)

    assert marked == (30 if connection.vendor == "postgresql" else 0)
    assert pending(project) == 0
    assert searched(project, "REFERENDUM") == names
    assert searched(project, "budget") == sorted(
        set(Document.objects.filter(project=project).values_list("name", flat=True)) - set(names)
    )


def test_a_succeeded_job_leaves_no_document_pending(project) -> None:
    job = jobs.create_import_job(project=project, file_name="t.txt", content=CONTENT, format="text")
    job = jobs.run_import_job(job_id=job.pk)

    assert job.status == "succeeded"
    assert Document.objects.filter(project=project).count() == 30
    assert pending(project) == 0
    assert len(searched(project, "referendum")) == 10


def import_texts_into(*projects) -> None:
    """``CONTENT`` imported into each project by an import job."""
    for target in projects:
        jobs.run_import_job(
            job_id=jobs.create_import_job(
                project=target, file_name="t.txt", content=CONTENT, format="text"
            ).pk
        )


def test_pending_documents_are_marked_batch_by_batch_project_by_project(project) -> None:
    other = create_project(name="Other", taxonomy=project.taxonomy)
    import_texts_into(project, other)
    Document.objects.update(in_search_index=False)

    assert search_index.index_pending(project_id=project.pk, batch=7) == 30
    assert (pending(project), pending(other)) == (0, 30)
    assert search_index.index_pending(batch=7) == 30
    assert pending(other) == 0
    assert search_index.index_pending() == 0


def test_pending_documents_are_found_by_their_name_too(project, monkeypatch) -> None:
    import json

    lines = [
        json.dumps({"id": f"case-{i}", "text": f"Text number {i}. Nothing else."}) for i in range(5)
    ]
    monkeypatch.setattr(search_index, "index_pending", lambda **kwargs: 0)  # not yet
    job = jobs.create_import_job(
        project=project, file_name="t.jsonl", content="\n".join(lines).encode(), format="text"
    )
    assert jobs.run_import_job(job_id=job.pk).status == "succeeded"

    assert searched(project, "CASE-3") == ["case-3"]  # in the name only
    monkeypatch.undo()
    search_index.index_pending(project_id=project.pk)
    assert searched(project, "CASE-3") == ["case-3"]


def test_the_workers_sweep_indexes_what_a_dead_process_left_pending(project) -> None:
    """The process that imported died before indexing: the workers' sweep indexes the
    documents, except in a project whose import is still running."""
    from fallacy_platform.liveness import sweep

    busy = create_project(name="Busy", taxonomy=project.taxonomy)
    import_texts_into(project, busy)
    Document.objects.update(in_search_index=False)  # as a process killed before indexing
    running = jobs.create_import_job(project=busy, file_name="u.txt", content=b"x", format="text")
    type(running).objects.filter(pk=running.pk).update(status="running")

    sweep()

    assert (pending(project), pending(busy)) == (0, 30)
    assert len(searched(project, "referendum")) == 10


def test_the_import_command_adds_its_documents_to_the_index_once_committed(
    project, monkeypatch, tmp_path
) -> None:
    """``manage.py import_dataset`` writes the documents outside the index (PostgreSQL), as a
    job does, and adds them once its transaction has committed."""
    import io

    from django.core.management import call_command

    seen: list[tuple[bool, int]] = []
    index = search_index.index_pending
    outside = len(connection.atomic_blocks)  # the test's own transaction

    def after_commit(**kwargs) -> int:
        seen.append((len(connection.atomic_blocks) > outside, pending(project)))
        return index(**kwargs)

    monkeypatch.setattr(search_index, "index_pending", after_commit)
    path = tmp_path / "t.txt"
    path.write_bytes(CONTENT)
    out = io.StringIO()
    call_command("import_dataset", str(path), format="text", project="Study", stdout=out)

    postgresql = connection.vendor == "postgresql"
    assert seen == [(False, 30 if postgresql else 0)]
    assert pending(project) == 0
    assert len(searched(project, "referendum")) == 10
    assert ("search index: 30 documents added in" in out.getvalue()) == postgresql
