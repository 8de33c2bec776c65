"""The hand-written replacements of stock idioms, each against the idiom it replaces.

In process, on a scratch PostgreSQL database filled as ``bench/read_api.py`` fills it
(``--documents``, 5 annotators, 2 per document, a third of the assignments annotated, and
one opened document with its sentences): each pair, the platform's way and the stock idiom,
first gives the same answer (checked), then runs alternately (``--rounds`` rounds of
``--calls`` calls each, so that a busy machine slows both alike). Prints the median
microseconds per call of each and the ratio stock / platform:

- ``authentication``: ``fallacy_platform.authentication.TokenAuthentication`` against DRF's
  ``TokenAuthentication`` (``authenticate_credentials`` of a valid token);
- ``rows``: the session's user read by hand and built by ``rows.instance``
  (``sessions.UserBackend.get_user``) against ``ModelBackend.get_user`` (a queryset);
- ``span_sql``: a span create and a change by the services (``create_span``,
  ``update_span``: one read and one write statement each) against the same services' checks
  on ORM reads and writes (the annotation or span under ``select_for_update`` with
  ``select_related``, the text and sentences read by the model, ``Span.objects.create`` /
  ``save()`` recording history through simple_history, the revision bumped by ``update``);
- ``span_input``: a span create's JSON body read by ``annotations.api.span_input`` against
  ``SpanCreateSerializer`` (DRF builds and deep-copies its fields per request);
- ``document_page``: the document list's first page of 25 rows for staff against the ORM
  (``document_list``'s page with the text's length, ``prefetch_related`` of the assignments and
  annotations with their users; the status from the prefetched rows);
- ``counters``: a project's progress (documents, done, in progress, to do, assignments,
  submitted) from its counter columns against counting the rows (``Count`` aggregates).

    .venv/bin/python bench/fenced.py [--documents 20000] [--rounds 7] [--calls 100]
        [--only authentication,rows,span_sql,span_input,document_page,counters]

``MEASURED_ELSEWHERE`` lists the other replacements, whose figure another script gives (the
request as a whole, not a pair of calls): each with the idiom it replaces, its figure as its
module states it, the script that measures it, and the test that shows it answers as the
idiom does (``tests/platform/test_fences.py`` checks that each exists).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from machine import describe_machine  # bench/ is the script's folder
from servers import ROOT, add_db_url_argument, create_database, drop_database

Pair = tuple[str, Callable[[], Any], Callable[[], Any], str]


@dataclass(frozen=True)
class Fence:
    """A replacement measured by another script: ``module`` (a path from the repository
    root) replaces ``replaces``; ``figure`` is what it pays, measured by ``bench`` (a path;
    None where it pays in correctness, not speed);
    ``equivalence`` is the test ("path::name") comparing it with the idiom."""

    module: str
    replaces: str
    figure: str
    bench: str | None  # None: a correctness replacement, no speed figure
    equivalence: str


MEASURED_ELSEWHERE = (
    Fence(
        "annotations/selectors/opening.py",
        "the open view's ORM querysets (DocumentSerializer plus /documents/ID/annotations/) "
        "and the document list's project-and-role queryset",
        "open: 3 of 3.6 ms went to queryset construction and compilation; project and role: "
        "0.8 ms by the ORM, 0.1 ms as SQL (pyinstrument under the script's requests)",
        "bench/read_api.py",
        "tests/annotations/selectors/test_query_counts.py"
        "::test_open_is_the_two_calls_it_replaces_and_writes_nothing",
    ),
    Fence(
        "annotations/selectors/project_page.py",
        "the ORM's count, page and memberships querysets with ProjectListSerializer",
        "GET /api/projects/ 4.1 ms against 1.1 ms in process (the script's fixture, "
        "django.test.Client)",
        "bench/read_api.py",
        "tests/annotations/selectors/test_query_counts.py"
        "::test_project_list_is_what_the_serializer_gives",
    ),
    Fence(
        "annotations/services/bulk_rows.py",
        "Document.objects.bulk_create and Sentence.objects.bulk_create",
        "10,000 texts on PostgreSQL: 7.6 s against 10.2 s (medians of 3 alternating runs); "
        "on SQLite multi-row VALUES 2.4x faster than executemany",
        "bench/import_api.py",
        "tests/annotations/services/test_bulk_rows.py",
    ),
    Fence(
        "platform/fallacy_platform/postgresql/base.py",
        "Django's CONN_HEALTH_CHECKS SELECT 1 before each request's first query",
        "one round trip of a span write's seven, a tenth of its time under load (py-spy on a "
        "gunicorn worker under the script's 8 clients)",
        "bench/annotate_api.py",
        "tests/platform/test_db_backend.py"
        "::test_quiet_connections_are_kept_without_a_round_trip_and_closed_ones_replaced",
    ),
    Fence(
        "annotations/history.py",
        "simple_history's HistoricalRecords building the history manager's class per access",
        "a fifth of a span write's history record (cProfile under the script's requests)",
        "bench/annotate_api.py",
        "tests/annotations/services/test_document_history.py"
        "::test_history_managers_share_one_class_and_stay_bound",
    ),
    Fence(
        "platform/fallacy_platform/api/pagination.py",
        "DRF's LimitOffsetPagination",
        "not a speed-up: a limit or offset that is not a whole number in range is a 400 "
        "naming it, where DRF falls back to the default for one it cannot read and passes "
        "any offset (and, without max_limit, any limit) to the database: out of PostgreSQL's "
        "range, a 500 (the fuzzer found it)",
        None,
        "tests/platform/test_api_errors.py::test_huge_limit_is_not_a_server_error",
    ),
)


def setup(db_url: str, documents: int) -> dict[str, Any]:
    """Django on the scratch database, filled by ``read_fixture.build``."""
    os.environ["DATABASE_URL"] = db_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fallacy_platform.settings")
    sys.path[:0] = [str(ROOT), str(ROOT / "platform")]
    from read_fixture import build

    return build(documents)


def auth_pairs(fx: dict[str, Any]) -> list[Pair]:
    from django.contrib.auth.backends import ModelBackend
    from django.contrib.auth.models import User
    from fallacy_platform.authentication import TokenAuthentication
    from fallacy_platform.sessions import UserBackend
    from rest_framework import authentication
    from rest_framework.authtoken.models import Token

    user = User.objects.get(username="bench-annotator-0")
    key = Token.objects.create(user=user).key
    ours, stock = TokenAuthentication(), authentication.TokenAuthentication()
    return [
        (
            "authentication",
            lambda: ours.authenticate_credentials(key)[0].pk,
            lambda: stock.authenticate_credentials(key)[0].pk,
            "a valid token's user",
        ),
        (
            "rows",
            lambda: user_fields(UserBackend().get_user(user.pk)),
            lambda: user_fields(ModelBackend().get_user(user.pk)),
            "the session's user",
        ),
    ]


def user_fields(user: Any) -> list[Any]:
    return [getattr(user, f.attname) for f in user._meta.concrete_fields]


def span_pair(fx: dict[str, Any]) -> Pair:
    from django.contrib.auth.models import User

    from annotations.models import Annotation, Sentence
    from annotations.services.annotations import create_span, update_span

    annotator = User.objects.get(username="bench-annotator-0")
    annotation = Annotation.objects.get(document_id=fx["document"], annotator=annotator)
    first, second = Sentence.objects.filter(document_id=fx["document"]).order_by("index")[:2]
    labels = list(annotation.document.project.taxonomy.nodes.filter(level=2).order_by("name"))
    names = [n.name for n in labels[:3]]

    def ours() -> tuple:
        span = create_span(
            annotation=annotation.pk,
            start=first.start,
            end=second.end,
            labels=names[:2],
            client_id=uuid.uuid4(),
            by=annotator,
        )
        span = update_span(span=span.pk, expected_revision=1, labels=names[2:], by=annotator)
        return written(span)

    def stock() -> tuple:
        span = orm_create_span(annotation.pk, annotator, first.start, second.end, names[:2])
        return written(orm_update_span(span.pk, 1, annotator, names[2:]))

    return ("span_sql", ours, stock, "a span create + change (with their history rows)")


def span_input_pair(fx: dict[str, Any]) -> Pair:
    from annotations.api.serializers import SpanCreateSerializer
    from annotations.api.span_input import span_create_input

    body = {"start": 0, "end": 40, "labels": ["ad hominem", "appeal to fear"]}
    body |= {"details": {"ad hominem": {"slots": {"X": "the speaker"}}}}
    body["client_id"] = str(uuid.uuid4())

    def stock() -> dict[str, Any]:
        serializer = SpanCreateSerializer(data=body)
        serializer.is_valid(raise_exception=True)
        return dict(serializer.validated_data)

    return ("span_input", lambda: span_create_input(body), stock, "a span create's JSON input")


def written(span: Any) -> tuple:
    history = list(span.history.order_by("history_id").values_list("history_type", "labels"))
    return (span.start, span.end, span.labels, span.details, span.revision, history)


def orm_create_span(annotation_id: int, by: Any, start: int, end: int, labels: list[str]) -> Any:
    """A span create with the services' checks on ORM reads and writes."""
    from django.db import transaction
    from django.db.models import F
    from django.utils import timezone

    from annotations.models import Annotation, Span
    from annotations.services.annotations import _validated_fields
    from annotations.spans import check_writable

    client_id = uuid.uuid4()
    with transaction.atomic():
        seen = (
            Annotation.objects.select_for_update(of=("self",))
            .select_related("document__project__taxonomy")
            .get(pk=annotation_id, annotator=by)
        )
        existing = Span.objects.filter(annotation=seen, client_id=client_id).first()
        if existing is not None:
            return existing
        check_writable(seen, by)
        canon, details = _validated_fields(seen, start=start, end=end, labels=labels, details={})
        span = Span.objects.create(
            annotation=seen,
            start=start,
            end=end,
            labels=canon,
            details=details,
            client_id=client_id,
        )
        Annotation.objects.filter(pk=seen.pk).update(
            revision=F("revision") + 1, updated_at=timezone.now()
        )
    return span


def orm_update_span(span_id: int, expected: int, by: Any, labels: list[str]) -> Any:
    """A span change (its labels) with the services' checks on ORM reads and writes."""
    from django.db import transaction
    from django.db.models import F
    from django.utils import timezone

    from annotations.models import Annotation, Span
    from annotations.services.annotations import _validated_fields
    from annotations.spans import check_writable

    with transaction.atomic():
        span = (
            Span.objects.select_for_update(of=("self",))
            .select_related("annotation__document__project__taxonomy")
            .get(pk=span_id, annotation__annotator=by)
        )
        assert span.revision == expected, "conflict"
        check_writable(span.annotation, by)
        canon, details = _validated_fields(
            span.annotation, start=span.start, end=span.end, labels=labels, details={}
        )
        span.labels, span.details, span.revision = canon, details, span.revision + 1
        span.save()
        Annotation.objects.filter(pk=span.annotation_id).update(
            revision=F("revision") + 1, updated_at=timezone.now()
        )
    return span


def page_pair(fx: dict[str, Any]) -> Pair:
    from django.contrib.auth.models import User

    from annotations.models import Project
    from annotations.selectors.document_page import document_page
    from annotations.selectors.documents import DocumentQuery

    admin = User.objects.get(username="bench-admin")
    project = Project.objects.get(pk=fx["project"])

    def ours() -> list:
        return document_page(admin, project, DocumentQuery(), staff=True, offset=0, limit=25)

    return ("document_page", ours, lambda: orm_page(admin, project), "the first 25 rows, staff")


def orm_page(user: Any, project: Any) -> list:
    """The document list's first page for staff by the ORM (querysets and prefetches)."""
    from django.db.models import Prefetch
    from django.db.models.functions import Length

    from annotations.models import Annotation, Assignment, Document
    from annotations.selectors.document_page import AnnotatorStatus, DocumentRow, DocumentWork
    from annotations.selectors.documents import DocumentQuery, document_list, status_of

    found = document_list(user, project, DocumentQuery(), staff=True).values_list("id", flat=True)
    ids = list(found[:25])
    docs = (
        Document.objects.filter(pk__in=ids)
        .annotate(length=Length("text"))
        .only("id", "name", "external_id", "position")
        .order_by("position", "id")
        .prefetch_related(
            Prefetch("assignments", Assignment.objects.select_related("annotator")),
            Prefetch("annotations", Annotation.objects.select_related("annotator")),
        )
    )
    rows = []
    for doc in docs:
        people = {
            a.annotator_id: AnnotatorStatus(a.annotator_id, a.annotator.username, "todo")
            for a in doc.assignments.all()
        }
        annotations = doc.annotations.all()
        for a in annotations:
            people[a.annotator_id] = AnnotatorStatus(a.annotator_id, a.annotator.username, a.status)
        annotators = sorted(people.values(), key=lambda a: a.username)
        submitted = sum(a.status == "submitted" for a in annotations)
        latest = max((a.updated_at for a in annotations), default=None)
        assigned = len(doc.assignments.all())
        status = status_of(assigned, len(annotations), submitted, project.annotators_per_document)
        work = DocumentWork(
            assigned,
            sum(a.status == "in_progress" for a in annotators),
            sum(a.status == "submitted" for a in annotators),
            annotators,
            latest,
        )
        mine = next((a.status for a in annotators if a.id == user.pk), None)
        rows.append(
            DocumentRow(
                doc.id,
                doc.name,
                doc.external_id,
                doc.position,
                doc.length,
                latest,
                status,
                mine,
                work,
            )
        )
    return rows


def counters_pair(fx: dict[str, Any]) -> Pair:
    from django.db.models import Count, Q

    from annotations.models import Document, Project

    pk = fx["project"]
    project = Project.objects.get(pk=pk)
    required = project.annotators_per_document
    names = ["document_count", "done_count", "in_progress_count", "todo_count"]

    def ours() -> tuple:
        row = Project.objects.filter(pk=pk).values(*names, "assignment_count", "submitted_count")
        return tuple(row.get().values())

    def stock() -> tuple:
        docs = Document.objects.filter(project_id=pk).annotate(
            assigned=Count("assignments", distinct=True),
            annotated=Count("annotations", distinct=True),
            submitted=Count(
                "annotations", filter=Q(annotations__status="submitted"), distinct=True
            ),
        )
        counts = docs.aggregate(
            documents=Count("id"),
            done=Count("id", filter=Q(submitted__gte=required)),
            in_progress=Count("id", filter=Q(annotated__gt=0, submitted__lt=required)),
            todo=Count("id", filter=Q(annotated=0, assigned__gt=0)),
        )
        more = Document.objects.filter(project_id=pk).aggregate(
            assignments=Count("assignments", distinct=True),
            submitted=Count(
                "annotations", filter=Q(annotations__status="submitted"), distinct=True
            ),
        )
        return (*counts.values(), *more.values())

    return ("counters", ours, stock, "a project's progress")


def timed(fn: Callable[[], Any], calls: int) -> float:
    started = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - started) / calls * 1e6


def compare(pair: Pair, rounds: int, calls: int, budget_s: float) -> dict[str, Any]:
    """Both ways once (the same answer, else AssertionError), warmed up, then alternately;
    fewer than ``calls`` calls a round where the slower way would take over ``budget_s``."""
    name, ours, stock, what = pair
    mine, theirs = ours(), stock()
    assert mine == theirs, f"{name}: the two ways disagree: {mine!r} != {theirs!r}"
    timed(ours, 3)
    slowest = max(timed(ours, 3), timed(stock, 3))
    calls = max(3, min(calls, int(budget_s * 1e6 / slowest)))  # a round of each: ~budget_s
    figures: dict[str, list[float]] = {"ours": [], "stock": []}
    for round_no in range(rounds):
        order = [("ours", ours), ("stock", stock)]
        for label, fn in order if round_no % 2 == 0 else order[::-1]:
            figures[label].append(timed(fn, calls))
    medians = {k: statistics.median(v) for k, v in figures.items()}
    return {
        "name": name,
        "what": what,
        "calls": calls,
        **medians,
        "ratio": medians["stock"] / medians["ours"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_db_url_argument(parser)
    parser.add_argument("--documents", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=7, help="alternating rounds per pair")
    parser.add_argument("--calls", type=int, default=100, help="calls per round")
    parser.add_argument(
        "--budget", type=float, default=0.5, help="seconds a round of the slower way takes at most"
    )
    parser.add_argument("--only", help="comma-separated names of the pairs to run")
    args = parser.parse_args()
    name = f"fallacy_bench_fenced_{os.getpid()}"
    db_url = create_database(args.db_url, name)
    try:
        fx = setup(db_url, args.documents)
        pairs = [*auth_pairs(fx), span_pair(fx), span_input_pair(fx), page_pair(fx)]
        pairs.append(counters_pair(fx))
        chosen = set(args.only.split(",")) if args.only else None
        results = [
            compare(p, args.rounds, args.calls, args.budget)
            for p in pairs
            if chosen is None or p[0] in chosen
        ]
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute("SHOW server_version")
            version = cursor.fetchone()[0]
    finally:
        from django.db import connections

        connections.close_all()
        drop_database(args.db_url, name)
    print(f"machine: {describe_machine()}; PostgreSQL {version}; load {os.getloadavg()}")
    print(
        f"{fx['documents']} documents; median of {args.rounds} alternating rounds"
        " (microseconds per call)"
    )
    print(f"  {'replacement':<15} {'calls':>5} {'ours':>9} {'stock':>9} {'stock/ours':>10}  what")
    for r in results:
        print(
            f"  {r['name']:<15} {r['calls']:>5} {r['ours']:>9.0f} {r['stock']:>9.0f}"
            f" {r['ratio']:>9.2f}x  {r['what']}"
        )


if __name__ == "__main__":
    main()
