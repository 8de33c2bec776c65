"""PostgreSQL: one trigger function for an UPDATE of annotations, in place of two (0007's
counts and 0018's person counters, each a statement-level trigger with its own check).

A statement that changes no counted column (status, document, annotator) and sets no
``updated_at`` back, such as a span save bumping its annotation's revision, takes the short
path: one check over the transition tables, then ``last_active`` raised; no project lock.
Any other statement runs 0007's body (the project rows locked first) and then 0018's, the
same statements in the same lock order as before. SQLite keeps its row-level triggers.

- Pays: ``bench/annotation_update.py`` (that UPDATE, microseconds, median of 7 rounds, 2-core
  AMD EPYC): 319 with one function, 355 with two, 286 without the person counters; the
  short path halves what the person counters add to a span save.
- Same figures: ``tests/annotations/services/test_counters.py`` (the triggers against the
  rows and against ``refresh_counts``, bumps, times set back, moved annotations) and
  ``test_a_span_save_does_not_lock_the_project_row``.
"""

import importlib

from django.db import migrations

counts = importlib.import_module("annotations.migrations.0007_counters")
workers = importlib.import_module("annotations.migrations.0018_annotator_counters")

COUNTED = ("status", "document_id", "annotator_id")
CHANGED = " OR ".join(f"o.{c} IS DISTINCT FROM n.{c}" for c in COUNTED)
PAIRS = "FROM old_rows o JOIN new_rows n ON n.id = o.id"
TRIGGER = "fallacy_count_annotation_update"
WORKER_TRIGGER = "fallacy_count_worker_annotation_update"
REFERENCING = "REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows"


def _function(name: str, body: str) -> str:
    return (
        f"CREATE OR REPLACE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS "
        f"$$ BEGIN {body} RETURN NULL; END $$"
    )


def _counts_body() -> str:
    """0007's body for an annotation UPDATE less its opening early return."""
    body = counts._pg_annotation("UPDATE")
    check, found, rest = body.partition("THEN RETURN NULL; END IF;")
    if not found or "IF NOT EXISTS" not in check:
        raise ValueError("0007's annotation UPDATE body no longer opens with its check")
    return rest


def merged_body() -> str:
    raise_latest = workers._pg_latest("INSERT")  # last_active raised to the new rows' latest
    return f"""
    IF NOT EXISTS (SELECT 1 {PAIRS} WHERE {CHANGED} OR n.updated_at < o.updated_at) THEN
        {raise_latest}
        RETURN NULL;
    END IF;
    IF EXISTS (SELECT 1 {PAIRS} WHERE {CHANGED}) THEN {_counts_body()} END IF;
    {workers._pg_annotation("UPDATE")}
    """


def merge(apps, schema_editor) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return
    for sql in (
        f"DROP TRIGGER IF EXISTS {WORKER_TRIGGER} ON annotations_annotation",
        f"DROP FUNCTION IF EXISTS {WORKER_TRIGGER}()",
        _function(TRIGGER, merged_body()),
    ):
        schema_editor.execute(sql, params=None)


def split(apps, schema_editor) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return
    for sql in (
        _function(TRIGGER, counts._pg_annotation("UPDATE")),
        _function(WORKER_TRIGGER, workers._pg_annotation("UPDATE")),
        f"CREATE TRIGGER {WORKER_TRIGGER} AFTER UPDATE ON annotations_annotation {REFERENCING} "
        f"FOR EACH STATEMENT EXECUTE FUNCTION {WORKER_TRIGGER}()",
    ):
        schema_editor.execute(sql, params=None)


class Migration(migrations.Migration):
    dependencies = [
        ("annotations", "0019_document_updated_at"),
    ]

    operations = [migrations.RunPython(merge, split)]
