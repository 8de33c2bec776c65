"""The text's trigram search index covers the documents marked ``in_search_index``
(PostgreSQL): a bulk import writes its documents unmarked, outside the index (maintaining it
row by row was half of a large import's time), and marks them once it has committed
(``annotations.services.search_index``); the search reads the unmarked ones by a scan, so
it finds every document at any time. A ``(project, id)`` index takes the place of the
project foreign key's own index (a project's document ids without reading the table).

On PostgreSQL, documents' texts are compressed with lz4 where the server has it (a third
of pglz's CPU time on an import's 26 MB) and an import's uploaded bytes are stored
uncompressed (written once, read once, deleted).

SQLite rebuilds the document table for these changes, which its triggers may not outlive:
they are dropped first and created again last (as in 0011)."""

from importlib import import_module

import django.db.models.deletion
from django.db import migrations, models

SQLITE_TRIGGERS = import_module("annotations.migrations.0011_project_justification_templates")

PARTIAL = (
    "CREATE INDEX document_text_trgm ON annotations_document "
    "USING gin (upper(text) gin_trgm_ops) WHERE in_search_index"
)
WHOLE = (
    "CREATE INDEX document_text_trgm ON annotations_document USING gin (upper(text) gin_trgm_ops)"
)


def _has_text_index(schema_editor) -> bool:
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_indexes WHERE indexname = 'document_text_trgm'")
        return cursor.fetchone() is not None


def _replace_text_index(create: str):
    def replace(apps, schema_editor) -> None:
        if schema_editor.connection.vendor != "postgresql" or not _has_text_index(schema_editor):
            return  # SQLite, or no pg_trgm (migration 0004): the search scans
        schema_editor.execute("DROP INDEX document_text_trgm")
        schema_editor.execute(create)

    return replace


def _storage(apps, schema_editor) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(
            "SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals)"
        )
        lz4 = cursor.fetchone() is not None
    if lz4:
        schema_editor.execute(
            "ALTER TABLE annotations_document ALTER COLUMN text SET COMPRESSION lz4"
        )
    schema_editor.execute(
        "ALTER TABLE annotations_importupload ALTER COLUMN content SET STORAGE EXTERNAL"
    )


def _default_storage(apps, schema_editor) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(
        "ALTER TABLE annotations_document ALTER COLUMN text SET COMPRESSION default"
    )
    schema_editor.execute(
        "ALTER TABLE annotations_importupload ALTER COLUMN content SET STORAGE EXTENDED"
    )


class Migration(migrations.Migration):
    dependencies = [
        ("annotations", "0013_import_upload"),
    ]

    operations = [
        migrations.RunPython(
            SQLITE_TRIGGERS.drop_sqlite_triggers, SQLITE_TRIGGERS.create_sqlite_triggers
        ),
        migrations.AddField(
            model_name="document",
            name="in_search_index",
            field=models.BooleanField(
                default=True,
                help_text="In the text's trigram search index (PostgreSQL); a bulk import adds"
                " its documents to it after it commits (``services.search_index``).",
            ),
        ),
        migrations.AlterField(
            model_name="document",
            name="project",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="documents",
                to="annotations.project",
            ),
        ),
        migrations.AddIndex(
            model_name="document",
            index=models.Index(fields=["project", "id"], name="document_project_id"),
        ),
        migrations.AddIndex(
            model_name="document",
            index=models.Index(
                condition=models.Q(("in_search_index", False)),
                fields=["project"],
                name="document_search_pending",
            ),
        ),
        migrations.RunPython(_replace_text_index(PARTIAL), _replace_text_index(WHOLE)),
        migrations.RunPython(_storage, _default_storage),
        migrations.RunPython(
            SQLITE_TRIGGERS.create_sqlite_triggers, SQLITE_TRIGGERS.drop_sqlite_triggers
        ),
    ]
