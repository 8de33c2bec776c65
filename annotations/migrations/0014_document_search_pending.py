"""The trigram search indexes (text and name) cover the documents marked ``in_search_index``
(PostgreSQL): a bulk import writes its documents unmarked, outside them (maintaining them
row by row was over half of a large import's time), and marks them once it has committed
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

INDEXES = {"document_text_trgm": "upper(text)", "document_name_trgm": "upper(name)"}


def _trigram_indexes(partial: bool):
    """Both trigram indexes (migration 0004) rebuilt over the marked documents, or back
    over all of them."""

    def rebuild(apps, schema_editor) -> None:
        if schema_editor.connection.vendor != "postgresql":
            return  # SQLite: the search scans
        with schema_editor.connection.cursor() as cursor:
            cursor.execute(
                "SELECT indexname FROM pg_indexes WHERE indexname = ANY(%s)", [list(INDEXES)]
            )
            present = {row[0] for row in cursor.fetchall()}
        for name in present:  # none without pg_trgm (migration 0004)
            schema_editor.execute(f"DROP INDEX {name}")
            schema_editor.execute(
                f"CREATE INDEX {name} ON annotations_document USING gin "
                f"({INDEXES[name]} gin_trgm_ops){' WHERE in_search_index' if partial else ''}"
            )

    return rebuild


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
                help_text="In the search's trigram indexes (PostgreSQL); a bulk import adds"
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
        migrations.RunPython(_trigram_indexes(partial=True), _trigram_indexes(partial=False)),
        migrations.RunPython(_storage, _default_storage),
        migrations.RunPython(
            SQLITE_TRIGGERS.create_sqlite_triggers, SQLITE_TRIGGERS.drop_sqlite_triggers
        ),
    ]
