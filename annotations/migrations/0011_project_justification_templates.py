"""A span project's justification templates: required, optional (the default) or off.

On SQLite the new column and its check rebuild ``annotations_project`` (copy, drop, rename),
which drops the table's own triggers and cannot rename while other tables' triggers name it
(0007's counters). So the SQLite triggers of 0005 (published gold immutable) and 0007 (the
counters) are dropped first and recreated afterwards, as 0008 does. PostgreSQL keeps its
triggers across ``ALTER TABLE``: nothing to do there.
"""

from importlib import import_module

from django.db import migrations, models


SOURCES = ("0005_gold_adjudication_history", "0007_counters")


def _sqlite_triggers() -> list[str]:
    return [
        statement
        for source in SOURCES
        for statement in import_module(f"annotations.migrations.{source}")._sqlite_statements()
    ]


def drop_sqlite_triggers(apps, schema_editor) -> None:
    if schema_editor.connection.vendor != "sqlite":
        return
    for statement in _sqlite_triggers():
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {statement.split()[2]}", params=None)


def create_sqlite_triggers(apps, schema_editor) -> None:
    if schema_editor.connection.vendor != "sqlite":
        return
    drop_sqlite_triggers(apps, schema_editor)
    for statement in _sqlite_triggers():
        schema_editor.execute(statement, params=None)


class Migration(migrations.Migration):
    dependencies = [("annotations", "0010_job_heartbeat")]

    operations = [
        migrations.RunPython(drop_sqlite_triggers, create_sqlite_triggers),
        migrations.AddField(
            model_name="project",
            name="justification_templates",
            field=models.CharField(
                choices=[("required", "required"), ("optional", "optional"), ("off", "off")],
                default="optional",
                help_text="Span projects: template slots required (submit refuses empty ones), "
                "optional (submit warns) or off (not shown).",
                max_length=16,
            ),
        ),
        migrations.AddConstraint(
            model_name="project",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("justification_templates__in", ("required", "optional", "off"))
                ),
                name="project_justification_templates_valid",
            ),
        ),
        migrations.RunPython(create_sqlite_triggers, drop_sqlite_triggers),
    ]
