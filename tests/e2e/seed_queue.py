"""A project to move through with previous / next: four texts, the first three assigned to
``queue-ann`` (the first submitted), the fourth to nobody; ``queue-ann2`` has started the
first and the third; ``queue-rev`` reviews. Data of ``tests/e2e/test_document_nav.py``.

Run as a script against the database the environment selects, after ``migrate``::

    python tests/e2e/seed_queue.py

Prints a JSON object: {"project", "documents": [ids in project order], "annotators":
{username: id}}.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [] if str(ROOT) in sys.path else [str(ROOT)]  # run as a script
from tests.e2e.seed_base import mafalda, setup_django  # noqa: E402
from tests.e2e.seed_base import user as _user  # noqa: E402

PROJECT = "Queue navigation"
TEXTS = [
    ("queue-1", "Everyone buys this phone. So it must be the best phone. Buy it today."),
    ("queue-2", "My opponent was once late to a meeting. His budget plan is therefore wrong."),
    ("queue-3", "If we allow this, soon everything will be allowed. Then chaos follows."),
    ("queue-4", "Nobody has proven ghosts do not exist. Hence they exist. That settles it."),
]


def ensure() -> dict:
    from annotations.models import Annotation, Document, Project
    from annotations.services.annotations import start_annotation, submit_annotation
    from annotations.services.documents import NewDocument, add_documents, assign_documents
    from annotations.services.projects import add_member, create_project

    annotator, reviewer, second = _user("queue-ann"), _user("queue-rev"), _user("queue-ann2")
    project = Project.objects.filter(name=PROJECT).first()
    if project is None:
        project = create_project(name=PROJECT, taxonomy=mafalda())
        add_member(project=project, user=annotator, role="annotator")
        add_member(project=project, user=reviewer, role="reviewer")
        docs = add_documents(
            project=project, texts=[NewDocument(text=t, external_id=e) for e, t in TEXTS]
        )
        assign_documents(project=project, annotator=annotator, documents=docs[:3])
        first = start_annotation(document=docs[0], annotator=annotator)
        submit_annotation(annotation=first, by=annotator)
    ids = list(
        Document.objects.filter(project=project).order_by("position").values_list("pk", flat=True)
    )
    if not Annotation.objects.filter(document__project=project, annotator=second).exists():
        add_member(project=project, user=second, role="annotator")
        theirs = list(Document.objects.filter(pk__in=[ids[0], ids[2]]))
        assign_documents(project=project, annotator=second, documents=theirs)
        for document in theirs:
            start_annotation(document=document, annotator=second)
    users = {"queue-ann": annotator.pk, "queue-ann2": second.pk}
    return {"project": project.pk, "documents": ids, "annotators": users}


if __name__ == "__main__":
    setup_django()
    print(json.dumps(ensure()))
