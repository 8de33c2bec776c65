"""On PostgreSQL, trigram indexes make the document list's search (``ILIKE '%q%'`` on the
text and the name, as Django's ``icontains`` writes it) an index lookup instead of a scan.

Elsewhere (SQLite), or where the role may not create the ``pg_trgm`` extension, nothing is
done: the search still works, only slower on large projects.
"""

from django.db import migrations, transaction

INDEXES = {
    "document_text_trgm": "upper(text)",
    "document_name_trgm": "upper(name)",
}


def create_indexes(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    try:
        with transaction.atomic(using=schema_editor.connection.alias):
            schema_editor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    except Exception:  # noqa: BLE001 (no privilege: keep the plain scan)
        return
    for name, expression in INDEXES.items():
        schema_editor.execute(
            f"CREATE INDEX IF NOT EXISTS {name} ON annotations_document "
            f"USING gin ({expression} gin_trgm_ops)"
        )


def drop_indexes(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for name in INDEXES:
        schema_editor.execute(f"DROP INDEX IF EXISTS {name}")


class Migration(migrations.Migration):
    dependencies = [("annotations", "0003_project_pages")]

    operations = [migrations.RunPython(create_indexes, drop_indexes)]
