"""Recreate the SQLite triggers that keep published gold immutable.

Migration 0005 created them. On SQLite, Django's ``AddField`` of a column with a default
rebuilds the table (create a copy, copy the rows, drop the old one, rename). That drops the
table's triggers. 0006 (``project``) and 0007 (``document``, ``project``) rebuilt those
tables, so the triggers refusing a text change under a published version, or the deletion
of such a document or project, were gone on SQLite. The gold tables' own triggers survived.
This migration drops and recreates every SQLite trigger of 0005, so it is safe to run again.
PostgreSQL keeps its triggers across ``ALTER TABLE``, so nothing changes there.

A later migration that rebuilds one of these tables on SQLite must recreate them the same
way. ``tests/annotations/services/test_gold_immutability.py`` runs the raw-SQL tests on both databases.
"""

from importlib import import_module

from django.db import migrations


def _statements() -> list[str]:
    return import_module(
        "annotations.migrations.0005_gold_adjudication_history"
    )._sqlite_statements()


def recreate(apps, schema_editor) -> None:
    if schema_editor.connection.vendor != "sqlite":
        return
    for statement in _statements():
        name = statement.split()[2]
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {name}", params=None)
        schema_editor.execute(statement, params=None)


class Migration(migrations.Migration):
    dependencies = [("annotations", "0007_counters")]

    operations = [migrations.RunPython(recreate, migrations.RunPython.noop)]
