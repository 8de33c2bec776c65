"""The annotation API's write path in SQL statements: span create, update and delete with
token auth (as scripts and bench/annotate_api.py call them) take an exact number of queries,
so a request that grows one fails here. Counted without the test's SAVEPOINT/RELEASE; on
PostgreSQL a span write opens no transaction of its own (its write is one statement).

Also here: what makes those counts possible stays right -- the label cache follows taxonomy
edits, the hand-written span JSON equals ``SpanSerializer``'s, a create retried while its
first attempt holds the lock returns the first span.
"""

from __future__ import annotations

import threading
import time
import uuid
from typing import Any

import pytest
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import connection
from django.db.models import F
from django.test.utils import CaptureQueriesContext
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotations import spans
from annotations.api.serializers import SpanSerializer, span_data
from annotations.models import Annotation, Span, TaxonomyNode
from annotations.services import annotations as services
from tests.support.factories import BOUNDS, World, make_world
from tests.support.paths import ROOT

pytestmark = pytest.mark.django_db

S0, S1, S2, S3 = BOUNDS

# Statements per request (token auth, label index cached):
#   auth: the token with its user
#   read: the annotation (+ visibility, text length, sentence edges, client_id; for a change or
#         a delete the span), no lock
#   write: one statement (PostgreSQL): bump the annotation's revision if it is the one read,
#          write the span, record its history row (SQLite: three, in one transaction)
WRITE = 1 if settings.DATABASE_VENDOR == "postgresql" else 3
CREATE = UPDATE = DELETE = 2 + WRITE
CREATE_RETRY = 3  # auth, read (finds the client_id), the span
CONFLICT = 2  # auth, read (the span at another revision): 409
BAD_SENTENCE = 3  # auth, read, the sentence bounds for the message: 400
LABEL_INDEX = 1  # the taxonomy's nodes, once per process (and after an edit)


@pytest.fixture
def world(db: None) -> World:
    return make_world()


def token_client(user: Any) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client


def counted(call: Any) -> tuple[Any, list[str]]:
    with CaptureQueriesContext(connection) as ctx:
        response = call()
    statements = [
        q["sql"]
        for q in ctx.captured_queries
        if not q["sql"].startswith(("SAVEPOINT", "RELEASE SAVEPOINT", "ROLLBACK TO SAVEPOINT"))
    ]
    return response, statements


def expect(statements: list[str], n: int) -> None:
    assert len(statements) == n, "\n".join(s[:200] for s in statements)


def create(client: APIClient, annotation: int, **body: Any) -> Any:
    payload = {"start": S1[0], "end": S1[1], "labels": ["ad hominem"], **body}
    return client.post(f"/api/annotations/{annotation}/spans/", payload, format="json")


@pytest.fixture
def warm(world: World) -> APIClient:
    """ann1's token client after one write (the label index is cached)."""
    client = token_client(world.ann1)
    assert create(client, world.a1.pk, start=S0[0], end=S0[1]).status_code == 201
    return client


def test_create(world: World, warm: APIClient) -> None:
    client_id = str(uuid.uuid4())
    response, statements = counted(lambda: create(warm, world.a1.pk, client_id=client_id))
    assert response.status_code == 201, response.content
    expect(statements, CREATE)
    response, statements = counted(lambda: create(warm, world.a1.pk, labels=["slippery slope"]))
    assert response.status_code == 201, response.content
    expect(statements, CREATE)

    retry, statements = counted(lambda: create(warm, world.a1.pk, client_id=client_id))
    assert retry.status_code == 200 and retry.json()["client_id"] == client_id
    expect(statements, CREATE_RETRY)


def test_update(world: World, warm: APIClient) -> None:
    span = create(warm, world.a1.pk).json()
    url = f"/api/spans/{span['id']}/"
    body = {"revision": 1, "labels": ["ad hominem", "no fallacy"]}
    response, statements = counted(lambda: warm.patch(url, body, format="json"))
    assert response.status_code == 200, response.content
    expect(statements, UPDATE)

    body = {"revision": 2, "start": S1[0], "end": S2[1]}
    response, statements = counted(lambda: warm.patch(url, body, format="json"))
    assert response.status_code == 200 and response.json()["end"] == S2[1]
    expect(statements, UPDATE)

    stale, statements = counted(lambda: warm.patch(url, body, format="json"))
    assert stale.status_code == 409 and stale.json()["current"]["revision"] == 3
    expect(statements, CONFLICT)


def test_delete(world: World, warm: APIClient) -> None:
    span = create(warm, world.a1.pk).json()
    response, statements = counted(lambda: warm.delete(f"/api/spans/{span['id']}/?revision=1"))
    assert response.status_code == 204
    expect(statements, DELETE)


def test_validation_error(world: World, warm: APIClient) -> None:
    response, statements = counted(lambda: create(warm, world.a1.pk, start=S1[0] + 2))
    assert response.status_code == 400 and "not the start of a sentence" in str(response.json())
    expect(statements, BAD_SENTENCE)


def test_cold_label_index_costs_one_query(world: World) -> None:
    client = token_client(world.ann1)
    spans.forget_label_indexes()
    response, statements = counted(lambda: create(client, world.a1.pk))
    assert response.status_code == 201
    expect(statements, CREATE + LABEL_INDEX)


def test_a_node_edit_reaches_the_label_cache(world: World, warm: APIClient) -> None:
    node = TaxonomyNode.objects.get(taxonomy=world.p1.taxonomy, name="ad hominem")
    assert create(warm, world.a1.pk, labels=["zz insult"]).status_code == 400
    node.aliases = [*node.aliases, "zz insult"]
    node.save()
    response = create(warm, world.a1.pk, labels=["zz insult"])
    assert response.status_code == 201 and response.json()["labels"] == ["ad hominem"]
    node.delete()
    assert create(warm, world.a1.pk, labels=["ad hominem"]).status_code == 400


def test_span_data_equals_the_serializer(world: World) -> None:
    spans = [
        Span(pk=1, annotation=world.a1, start=0, end=5, labels=["a", "no fallacy"], details={}),
        Span(
            pk=2,
            annotation=world.a1,
            start=3,
            end=9,
            labels=["ad hominem"],
            details={"ad hominem": {"slots": {"E": "x", "P": 3}, "explanation": "why"}},
            client_id=uuid.uuid4(),
            revision=4,
        ),
        Span(
            pk=3,
            annotation=world.a1,
            start=3,
            end=9,
            labels=["x", "y"],
            details={"x": {"slots": {}}, "y": {"explanation": ""}},
            client_id=str(uuid.uuid4()),
        ),
    ]
    for span in spans:
        assert span_data(span) == SpanSerializer(span).data


def test_outsiders_and_reviewers_still_get_404(world: World) -> None:
    span = create(token_client(world.ann1), world.a1.pk).json()
    for user in (world.ann2, world.reviewer, world.outsider):
        client = token_client(user)
        assert create(client, world.a1.pk).status_code == 404
        url = f"/api/spans/{span['id']}/"
        assert client.patch(url, {"revision": 1, "labels": ["x"]}, format="json").status_code == 404
        assert client.delete(f"{url}?revision=1").status_code == 404
    assert Span.objects.filter(annotation=world.a1).count() == 1


# --- a write that lost the race: another write got in between its read and its write --------


@pytest.fixture
def interleave(monkeypatch: pytest.MonkeyPatch) -> Any:
    """``interleave(write)``: the next span write runs ``write`` (another writer's, on the same
    connection) right after its first read, so its own write finds the revision moved on."""
    real = services.read_for_span_write
    calls: list[int] = []

    def arm(write: Any) -> list[int]:
        pending = [write]

        def read(**kwargs: Any) -> Any:
            calls.append(1)
            seen = real(**kwargs)
            if pending:
                pending.pop()()
            return seen

        monkeypatch.setattr(services, "read_for_span_write", read)
        return calls

    return arm


def test_a_create_that_lost_the_race_is_written_after_the_other(
    world: World, interleave: Any
) -> None:
    before = Annotation.objects.get(pk=world.a1.pk).revision
    other = []
    reads = interleave(
        lambda: other.append(
            services.create_span(
                annotation=world.a1.pk, start=S0[0], end=S0[1], labels=["ad hominem"]
            )
        )
    )
    mine = services.create_span(
        annotation=world.a1.pk, start=S1[0], end=S2[1], labels=["slippery slope"]
    )
    assert len(reads) == 3  # mine, the other's, mine again (under the lock)
    spans = Span.objects.filter(annotation=world.a1).order_by("pk")
    assert [(s.pk, s.end) for s in spans] == [(other[0].pk, S0[1]), (mine.pk, S2[1])]
    assert Annotation.objects.get(pk=world.a1.pk).revision == before + 2
    assert [h.history_type for h in Span.history.filter(id=mine.pk)] == ["+"]


def test_a_create_retried_meanwhile_returns_the_span_of_the_retry(
    world: World, interleave: Any
) -> None:
    client_id = uuid.uuid4()
    create_it = dict(annotation=world.a1.pk, start=S0[0], end=S0[1], labels=["ad hominem"])
    first = []
    interleave(lambda: first.append(services.create_span(**create_it, client_id=client_id)))
    span, created = services.create_or_get_span(**create_it, client_id=client_id)
    assert not created and span.pk == first[0].pk
    assert Span.objects.filter(annotation=world.a1).count() == 1


def test_a_change_that_lost_the_race_to_a_change_of_its_span_is_a_conflict(
    world: World, interleave: Any
) -> None:
    span = services.create_span(annotation=world.a1, start=S0[0], end=S0[1], labels=["ad hominem"])
    interleave(
        lambda: services.update_span(span=span.pk, expected_revision=1, labels=["slippery slope"])
    )
    with pytest.raises(services.ConflictError) as conflict:
        services.update_span(span=span.pk, expected_revision=1, labels=["no fallacy", "ad hominem"])
    assert conflict.value.current.revision == 2
    assert Span.objects.get(pk=span.pk).labels == ["slippery slope"]  # the other change stays


def test_a_change_that_lost_the_race_to_another_span_is_written(
    world: World, interleave: Any
) -> None:
    span = services.create_span(annotation=world.a1, start=S0[0], end=S0[1], labels=["ad hominem"])
    interleave(
        lambda: services.create_span(
            annotation=world.a1, start=S1[0], end=S1[1], labels=["slippery slope"]
        )
    )
    labels = iter(["Slippery Slope", "ad hominem"])  # an iterator, read by both attempts
    changed = services.update_span(span=span.pk, expected_revision=1, end=S1[1], labels=labels)
    assert (changed.end, changed.labels, changed.revision) == (
        S1[1],
        ["ad hominem", "slippery slope"],
        2,
    )
    assert Span.objects.filter(annotation=world.a1).count() == 2
    assert [h.history_type for h in Span.history.filter(id=span.pk).order_by("history_id")] == [
        "+",
        "~",
    ]


def test_a_delete_that_lost_the_race_to_a_change_of_its_span_is_a_conflict(
    world: World, interleave: Any
) -> None:
    span = services.create_span(annotation=world.a1, start=S0[0], end=S0[1], labels=["ad hominem"])
    interleave(lambda: services.update_span(span=span.pk, expected_revision=1, end=S1[1]))
    with pytest.raises(services.ConflictError):
        services.delete_span(span=span.pk, expected_revision=1)
    assert Span.objects.get(pk=span.pk).end == S1[1]


def test_a_write_after_a_submit_meanwhile_is_refused(world: World, interleave: Any) -> None:
    span = services.create_span(annotation=world.a1, start=S0[0], end=S0[1], labels=["ad hominem"])
    interleave(lambda: services.submit_annotation(annotation=world.a1))
    with pytest.raises(ValidationError, match="submitted annotations are read-only"):
        services.update_span(span=span.pk, expected_revision=1, end=S1[1])
    assert Span.objects.get(pk=span.pk).end == S0[1]


# --- a retried create while the first attempt holds the lock (PostgreSQL) -----------------


@pytest.mark.skipif(
    settings.DATABASE_VENDOR != "postgresql",
    reason="needs PostgreSQL row locks",
)
@pytest.mark.django_db(transaction=True)
def test_create_waiting_for_the_lock_finds_the_span_committed_meanwhile() -> None:
    """The lock query's subqueries read the snapshot from before the wait; the service
    notices the annotation moved on and looks for the client_id again (no 500 from the
    unique constraint, no duplicate)."""
    import psycopg

    world = make_world()
    client = token_client(world.ann1)
    client_id = uuid.uuid4()
    services.create_span(annotation=world.a1, start=S0[0], end=S0[1], labels=["ad hominem"])
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    other = psycopg.connect(**params)  # the first attempt, holding the lock
    other.execute("SELECT id FROM annotations_annotation WHERE id = %s FOR UPDATE", [world.a1.pk])
    responses: list[Any] = []

    def retry() -> None:
        try:
            responses.append(create(client, world.a1.pk, client_id=str(client_id)))
        finally:
            connection.close()

    thread = threading.Thread(target=retry)
    thread.start()
    deadline = time.monotonic() + 30
    while not other.execute(
        "SELECT count(*) FROM pg_locks WHERE NOT granted AND locktype = 'transactionid'"
    ).fetchone()[0]:
        assert time.monotonic() < deadline, "the retry never waited for the lock"
        time.sleep(0.05)
    first = other.execute(
        'INSERT INTO annotations_span (start, "end", labels, details, annotation_id, client_id,'
        " revision, created_at, updated_at) VALUES (%s, %s, '[\"ad hominem\"]', '{}', %s, %s, 1,"
        " now(), now()) RETURNING id",
        [S1[0], S1[1], world.a1.pk, client_id],
    ).fetchone()[0]
    other.execute(
        "UPDATE annotations_annotation SET revision = revision + 1 WHERE id = %s", [world.a1.pk]
    )
    other.commit()
    other.close()
    thread.join(30)
    (response,) = responses
    assert response.status_code == 200, response.content
    assert response.json()["id"] == first
    assert Span.objects.filter(annotation=world.a1, client_id=client_id).count() == 1
    assert Annotation.objects.get(pk=world.a1.pk).revision == 3


def test_token_auth_refuses_unknown_tokens_and_inactive_users(world: World) -> None:
    client = token_client(world.ann1)
    assert create(client, world.a1.pk).status_code == 201
    world.ann1.is_active = False
    world.ann1.save()
    refused = create(client, world.a1.pk)  # 403, not 401: session auth comes first (no header)
    assert refused.status_code == 403 and "inactive" in refused.json()["detail"]
    stranger = APIClient()
    stranger.credentials(HTTP_AUTHORIZATION="Token " + "0" * 40)
    refused = create(stranger, world.a1.pk)
    assert refused.status_code == 403 and refused.json()["detail"] == "Invalid token."


# what a span row and its history rows hold besides their ids, client id and times
SPAN_VALUES = ["annotation_id", "start", "end", "labels", "details", "revision"]
HISTORY_VALUES = [*SPAN_VALUES, "history_type", "history_user_id", "history_change_reason"]


def orm_write(span: Span, by: Any, delete: bool = False) -> None:
    """A span write as the ORM and simple_history make it: the span saved (or deleted)
    with its history row, then the annotation's revision bumped."""
    span._history_user = by
    span.delete() if delete else span.save()
    Annotation.objects.filter(pk=span.annotation_id).update(revision=F("revision") + 1)


def test_span_writes_equal_the_orm_s(world: World, warm: APIClient) -> None:
    """span_sql's hand-written create, change and delete leave the rows the stock idiom
    leaves (the ORM's save and delete, simple_history's history rows): the span, its
    history (type, user, tracked fields) and one revision more on the annotation each."""
    revision = Annotation.objects.get(pk=world.a1.pk).revision
    ours = create(warm, world.a1.pk, client_id=str(uuid.uuid4())).json()["id"]
    changed = {"revision": 1, "labels": ["slippery slope"], "end": S2[1]}
    assert warm.patch(f"/api/spans/{ours}/", changed, format="json").status_code == 200
    ours_span = Span.objects.get(pk=ours)
    first = Span.history.filter(id=ours).earliest("history_id")
    theirs = Span(**{f: getattr(first, f) for f in SPAN_VALUES}, client_id=uuid.uuid4())
    orm_write(theirs, world.ann1)
    theirs.labels, theirs.end, theirs.revision = ours_span.labels, ours_span.end, 2
    orm_write(theirs, world.ann1)

    def rows(pk: int) -> list[dict[str, Any]]:
        history = Span.history.filter(id=pk).order_by("history_id").values(*HISTORY_VALUES)
        return [*Span.objects.filter(pk=pk).values(*SPAN_VALUES), *history]

    assert rows(ours) == rows(theirs.pk) and len(rows(ours)) == 3
    assert warm.delete(f"/api/spans/{ours}/?revision=2").status_code == 204
    orm_write(Span.objects.get(pk=theirs.pk), world.ann1, delete=True)
    assert rows(ours) == rows(theirs.pk) and [r["history_type"] for r in rows(ours)] == [
        "+",
        "~",
        "-",
    ]
    assert Annotation.objects.get(pk=world.a1.pk).revision == revision + 6


@pytest.mark.skipif(settings.DATABASE_VENDOR == "sqlite", reason="this run is the SQLite one")
@pytest.mark.django_db(databases=[])
def test_this_file_passes_on_the_embedded_sqlite_default_too(tmp_path: Any) -> None:
    """Span writes take another path on SQLite (three statements in one transaction): CI
    runs on PostgreSQL, so this file runs again on the embedded default."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL")}
    env["FALLACY_DATA_DIR"] = str(tmp_path)
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", __file__],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert " passed" in result.stdout and "failed" not in result.stdout
    assert "this run is the SQLite one" in result.stdout  # it did run on SQLite
