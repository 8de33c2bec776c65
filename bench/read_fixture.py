"""The fixture ``read_api.py`` reads (built in its child process, Django set up for one
backend): a project of N short documents bulk-inserted, 5 annotators, each document assigned
to 2 of them, annotations on a third of the assignments (half submitted), plus one
4,996-character document with its sentences and 50 spans by the first annotator; the
statistics refreshed and a logged-in session for the admin and for that annotator.
"""

from __future__ import annotations

import random
import time
from typing import Any

WORDS = (
    "policy taxes people government everyone always never because therefore experts "
    "economy freedom children future crisis plan opponent study shows clearly obviously "
    "dangerous society values tradition science media believe trust costs jobs"
).split()
OPEN_LENGTH = 4996
OPEN_SPANS = 50
ANNOTATORS = 5


def sentences(rng: random.Random, length: int) -> tuple[str, list[tuple[int, int]]]:
    """A text of exactly ``length`` characters made of sentences, with their ranges."""
    parts: list[str] = []
    ranges: list[tuple[int, int]] = []
    pos = 0
    while pos < length:
        sentence = " ".join(rng.choices(WORDS, k=rng.randint(6, 18))).capitalize() + "."
        start = pos + (1 if parts else 0)
        parts.append(sentence)
        ranges.append((start, start + len(sentence)))
        pos = start + len(sentence)
    text = " ".join(parts)[:length]
    while ranges and ranges[-1][0] >= length - 1:  # keep every range non-empty
        ranges.pop()
    ranges[-1] = (ranges[-1][0], length)
    text = text[: length - 1] + "."
    return text, ranges


def build(documents: int) -> dict[str, Any]:
    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.core.management import call_command
    from django.db import transaction

    from annotations.models import Membership, Project, Span
    from annotations.services.taxonomy import install_preset

    call_command("migrate", verbosity=0)
    rng = random.Random(14)
    taxonomy = install_preset(name="mafalda")
    labels = list(
        taxonomy.nodes.filter(level=2).order_by("position", "name").values_list("name", flat=True)
    )
    project = Project.objects.create(
        name="bench read api", taxonomy=taxonomy, annotators_per_document=2
    )
    Project.objects.create(name="bench other project", taxonomy=taxonomy)
    admin = User.objects.create_user("bench-admin")
    Membership.objects.create(project=project, user=admin, role="admin")
    team = [User.objects.create_user(f"bench-annotator-{i}") for i in range(ANNOTATORS)]
    Membership.objects.bulk_create(
        [Membership(project=project, user=u, role="annotator") for u in team]
    )
    started = time.perf_counter()
    with transaction.atomic():
        assignments, worked = fill_documents(rng, project, team, documents)
        doc, annotation = fill_opened(rng, project, team[0], labels, documents)
    fill_s = time.perf_counter() - started
    refresh = _refresh_counts()
    if refresh is not None:
        refresh(project_ids=[project.pk])
    version = analyze()
    return {
        "project": project.pk,
        "document": doc.pk,
        "spans": Span.objects.filter(annotation=annotation).count(),
        "length": len(doc.text),
        "documents": documents + 1,
        "assignments": assignments + 1,
        "annotations": worked + 1,
        "admin": session(admin),
        "annotator": session(team[0]),
        "fill_s": fill_s,
        "version": version,
    }


def fill_documents(
    rng: random.Random, project: Any, team: list[Any], documents: int
) -> tuple[int, int]:
    """``documents`` short texts, each assigned to 2 of the team, annotations on a third of
    the assignments (half submitted); returns the numbers of assignments and annotations."""
    from django.utils import timezone

    from annotations.models import Annotation, Assignment, Document

    pool = [" ".join(rng.choices(WORDS, k=rng.randint(15, 150))) + "." for _ in range(500)]
    for first in range(0, documents, 5000):
        Document.objects.bulk_create(
            [
                Document(
                    project=project,
                    text=pool[i % len(pool)],
                    name=f"doc {i:06d}",
                    external_id=f"doc-{i:06d}",
                    position=i,
                )
                for i in range(first, min(documents, first + 5000))
            ]
        )
    ids = list(Document.objects.filter(project=project).values_list("id", flat=True))
    assignments = []
    for n, doc_id in enumerate(ids):
        for k in (n % ANNOTATORS, (n + 1) % ANNOTATORS):
            assignments.append(Assignment(document_id=doc_id, annotator=team[k]))
    Assignment.objects.bulk_create(assignments, batch_size=5000)
    worked = rng.sample(assignments, len(assignments) // 3)
    now = timezone.now()
    Annotation.objects.bulk_create(
        [
            Annotation(
                document_id=a.document_id,
                annotator=a.annotator,
                status="submitted" if i % 2 else "in_progress",
                submitted_at=now if i % 2 else None,
            )
            for i, a in enumerate(worked)
        ],
        batch_size=5000,
    )
    return len(assignments), len(worked)


def fill_opened(
    rng: random.Random, project: Any, annotator: Any, labels: list[str], position: int
) -> tuple[Any, Any]:
    """The document opened: 4,996 characters, its sentences, 50 spans of ``annotator``;
    returns it and the annotation."""
    from annotations.models import Annotation, Assignment, Document, Sentence, Span

    text, ranges = sentences(rng, OPEN_LENGTH)
    doc = Document.objects.create(project=project, text=text, name="opened", position=position)
    Sentence.objects.bulk_create(
        [Sentence(document=doc, index=i, start=s, end=e) for i, (s, e) in enumerate(ranges)]
    )
    Assignment.objects.create(document=doc, annotator=annotator)
    annotation = Annotation.objects.create(document=doc, annotator=annotator)
    step = max(1, len(ranges) // OPEN_SPANS)
    Span.objects.bulk_create(
        [
            Span(
                annotation=annotation,
                start=ranges[(i * step) % len(ranges)][0],
                end=ranges[(i * step) % len(ranges)][1],
                labels=sorted(rng.sample(labels, rng.randint(1, 2))),
                details={},
            )
            for i in range(OPEN_SPANS)
        ]
    )
    return doc, annotation


def analyze() -> str:
    """Statistics as autovacuum would soon leave them after a bulk load; the database's
    name and version."""
    from django.db import connection

    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("VACUUM ANALYZE")  # what autovacuum does soon after a bulk load
            cursor.execute("SHOW server_version")
            return "PostgreSQL " + cursor.fetchone()[0]
        cursor.execute("ANALYZE")
        cursor.execute("SELECT sqlite_version()")
        return "SQLite " + cursor.fetchone()[0]


def session(user: Any) -> str:
    """A session logged in as ``user``: its key, for the cookie."""
    from django.conf import settings
    from django.contrib.sessions.backends.db import SessionStore

    store = SessionStore()
    store["_auth_user_id"] = str(user.pk)
    store["_auth_user_backend"] = settings.AUTHENTICATION_BACKENDS[0]
    store["_auth_user_hash"] = user.get_session_auth_hash()
    store.create()
    return store.session_key


def _refresh_counts() -> Any:
    """The counters' refresh service when this tree has one (bulk inserts bypass nothing
    else, but a refresh after a fixture costs little and checks it)."""
    try:
        from annotations.services.counts import refresh_counts
    except ImportError:
        return None
    return refresh_counts
