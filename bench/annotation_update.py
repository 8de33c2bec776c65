"""The UPDATE a span save makes to its annotation (revision + 1, ``updated_at`` now), under
the counting triggers of each version, side by side on one scratch PostgreSQL database:

- ``one``: migration 0020's single trigger function (the short path: one check over the
  transition tables, then ``last_active`` raised);
- ``two``: 0007's and 0018's functions, each a statement-level trigger with its own check
  (``annotations`` at 0019);
- ``none``: 0007's alone, as before the person counters (0019 less 0018's UPDATE trigger).

Each round installs each version in turn (the order rotated every round) and times
``--calls`` autocommitted UPDATEs of one annotation over one prepared connection; prints the
median microseconds per UPDATE over ``--rounds`` rounds and each ratio to ``none``.

    .venv/bin/python bench/annotation_update.py [--rounds 7] [--calls 2000]
"""

from __future__ import annotations

import argparse
import importlib
import os
import statistics
import time
from typing import Any

from machine import describe_machine  # bench/ is the script's folder
from servers import add_db_url_argument, create_database, drop_database, setup_django

UPDATE = (
    "UPDATE annotations_annotation SET revision = revision + 1, updated_at = clock_timestamp() "
    "WHERE id = %s"
)


def seed() -> int:
    """A project, an annotator assigned 50 documents with an annotation each; the last id."""
    from django.contrib.auth.models import User

    from annotations.models import Annotation, Assignment, Document, Membership, Project
    from tests.support.factories import make_taxonomy

    project = Project.objects.create(name="Span saves", taxonomy=make_taxonomy())
    user = User.objects.create_user("annotator")
    Membership.objects.create(project=project, user=user, role="annotator")
    annotation = None
    for position in range(50):
        doc = Document.objects.create(project=project, text="One.", position=position)
        Assignment.objects.create(document=doc, annotator=user)
        annotation = Annotation.objects.create(document=doc, annotator=user)
    return annotation.pk


def install(version: str) -> None:
    from django.db import connection

    migration = importlib.import_module("annotations.migrations.0020_one_annotation_update_trigger")
    with connection.schema_editor() as editor:
        migration.merge(None, editor)  # from any version: drops 0018's trigger if there
        if version != "one":
            migration.split(None, editor)
        if version == "none":
            editor.execute(f"DROP TRIGGER {migration.WORKER_TRIGGER} ON annotations_annotation")


def timed(conn: Any, annotation_id: int, calls: int) -> float:
    """Microseconds per UPDATE over ``calls`` UPDATEs."""
    start = time.perf_counter()
    for _ in range(calls):
        conn.execute(UPDATE, [annotation_id], prepare=True)
    return (time.perf_counter() - start) / calls * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_db_url_argument(parser)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()
    name = f"fallacy_bench_annotation_update_{os.getpid()}"
    db_url = create_database(args.db_url, name)
    versions = ["one", "two", "none"]
    times: dict[str, list[float]] = {v: [] for v in versions}
    try:
        setup_django(db_url)
        import psycopg

        annotation_id = seed()
        with psycopg.connect(db_url, autocommit=True) as conn:
            for round_ in range(args.rounds):
                for version in versions[round_ % 3 :] + versions[: round_ % 3]:
                    install(version)
                    timed(conn, annotation_id, args.calls // 10)  # warm the plans
                    times[version].append(timed(conn, annotation_id, args.calls))
            install("one")
            version = conn.execute("SHOW server_version").fetchone()[0]
    finally:
        from django.db import connections

        connections.close_all()
        drop_database(args.db_url, name)
    print(f"machine: {describe_machine()}; PostgreSQL {version}; load {os.getloadavg()}")
    print(f"median of {args.rounds} rounds of {args.calls} UPDATEs (microseconds per UPDATE)")
    base = statistics.median(times["none"])
    for v in versions:
        median = statistics.median(times[v])
        print(f"  {v:<5} {median:>8.0f}  {median / base:>5.2f}x none")


if __name__ == "__main__":
    main()
