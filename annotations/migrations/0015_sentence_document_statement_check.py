"""A sentence's document must exist: checked once per statement instead of once per row.

A plain-text import writes ~32 sentences per document. As a foreign key, PostgreSQL checked
each sentence row on its own at commit (one lookup and row lock per row, ~3.7 µs): 1.2 s of
the 10,000-text import's 3.9 s, more than the rest of the database's work.

The sentence's ``document`` field is now declared without a database constraint
(``db_constraint=False``) and these triggers enforce the same rule:

- PostgreSQL: after each INSERT or UPDATE statement on sentences, one query over the
  statement's new rows locks their distinct documents ``FOR KEY SHARE`` (the lock a foreign
  key's check takes: a concurrent delete of such a document waits for this transaction) and
  raises ``foreign_key_violation`` (23503) when one of them is missing. After each DELETE
  statement on documents, their sentences are deleted with them (the model's ``CASCADE``,
  which Django's own deletes have done already). A document's id never changes.
- SQLite (one writer at a time): row-level triggers doing the same.

Unlike the foreign key, which was deferred to the commit, the check runs at the end of each
statement: a document is inserted before its sentences (every writer does so).

On SQLite, a later migration that rebuilds the sentence or document table drops these
triggers: it must create them again (``SQLITE_DROP``, then ``SQLITE_STATEMENTS``), as 0008
does for 0005's.

- Pays: ``bench/import_api.py --runs 3 --backends sqlite,postgresql --compare-with`` the
  foreign key's version (10,000 plain texts, 319k sentences; 2-core AMD EPYC): PostgreSQL's
  import through the API took 2.48 s against 3.52 s (0.70), 1.68x SQLite's 1.48 s where it
  was 2.35x; SQLite unchanged (0.99).
- Same rule: ``tests/annotations/services/test_sentence_document_check.py`` (on either
  database: a missing document, a document deleted by raw SQL, an id change, and on
  PostgreSQL concurrent deletes).
"""

import django.db.models.deletion
from django.db import migrations, models

PG_STATEMENTS = [
    """
    CREATE FUNCTION annotations_sentence_document_exists() RETURNS trigger
    LANGUAGE plpgsql AS $$
    DECLARE
        wanted bigint[];
        locked bigint[];
        missing bigint;
    BEGIN
        SELECT array_agg(DISTINCT document_id) INTO wanted FROM new_rows;
        IF wanted IS NULL THEN
            RETURN NULL;
        END IF;
        SELECT array_agg(d.id) INTO locked FROM (
            SELECT id FROM annotations_document WHERE id = ANY (wanted) FOR KEY SHARE
        ) AS d;
        IF coalesce(cardinality(locked), 0) < cardinality(wanted) THEN
            SELECT w INTO missing FROM unnest(wanted) AS w
            WHERE w <> ALL (coalesce(locked, '{}')) LIMIT 1;
            RAISE EXCEPTION 'insert or update on table "annotations_sentence" violates '
                'foreign key "sentence_document_exists"'
                USING ERRCODE = 'foreign_key_violation',
                DETAIL = format('Key (document_id)=(%s) is not present in table '
                    '"annotations_document".', missing);
        END IF;
        RETURN NULL;
    END $$
    """,
    """
    CREATE FUNCTION annotations_document_sentences_deleted() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
        DELETE FROM annotations_sentence s USING old_rows o WHERE s.document_id = o.id;
        RETURN NULL;
    END $$
    """,
    """
    CREATE FUNCTION annotations_document_id_fixed() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION 'a document''s id never changes'
            USING ERRCODE = 'foreign_key_violation',
            DETAIL = format('Key (id)=(%s) would become (%s).', OLD.id, NEW.id);
    END $$
    """,
    "CREATE TRIGGER annotations_sentence_document_insert AFTER INSERT ON annotations_sentence "
    "REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT "
    "EXECUTE FUNCTION annotations_sentence_document_exists()",
    "CREATE TRIGGER annotations_sentence_document_update AFTER UPDATE ON annotations_sentence "
    "REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT "
    "EXECUTE FUNCTION annotations_sentence_document_exists()",
    "CREATE TRIGGER annotations_document_sentences_deleted AFTER DELETE ON annotations_document "
    "REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT "
    "EXECUTE FUNCTION annotations_document_sentences_deleted()",
    "CREATE TRIGGER annotations_document_id_fixed BEFORE UPDATE OF id ON annotations_document "
    "FOR EACH ROW WHEN (OLD.id IS DISTINCT FROM NEW.id) "
    "EXECUTE FUNCTION annotations_document_id_fixed()",
]

PG_DROP = [
    "DROP TRIGGER IF EXISTS annotations_sentence_document_insert ON annotations_sentence",
    "DROP TRIGGER IF EXISTS annotations_sentence_document_update ON annotations_sentence",
    "DROP TRIGGER IF EXISTS annotations_document_sentences_deleted ON annotations_document",
    "DROP TRIGGER IF EXISTS annotations_document_id_fixed ON annotations_document",
    "DROP FUNCTION IF EXISTS annotations_sentence_document_exists()",
    "DROP FUNCTION IF EXISTS annotations_document_sentences_deleted()",
    "DROP FUNCTION IF EXISTS annotations_document_id_fixed()",
]

SQLITE_MISSING = "'FOREIGN KEY constraint failed: sentence_document_exists'"
SQLITE_STATEMENTS = [
    "CREATE TRIGGER annotations_sentence_document_insert BEFORE INSERT ON annotations_sentence "
    "FOR EACH ROW WHEN NOT EXISTS "
    "(SELECT 1 FROM annotations_document WHERE id = NEW.document_id) "
    f"BEGIN SELECT RAISE(ABORT, {SQLITE_MISSING}); END",
    "CREATE TRIGGER annotations_sentence_document_update BEFORE UPDATE OF document_id "
    "ON annotations_sentence FOR EACH ROW WHEN NOT EXISTS "
    "(SELECT 1 FROM annotations_document WHERE id = NEW.document_id) "
    f"BEGIN SELECT RAISE(ABORT, {SQLITE_MISSING}); END",
    "CREATE TRIGGER annotations_document_sentences_deleted AFTER DELETE ON annotations_document "
    "FOR EACH ROW BEGIN DELETE FROM annotations_sentence WHERE document_id = OLD.id; END",
    "CREATE TRIGGER annotations_document_id_fixed BEFORE UPDATE OF id ON annotations_document "
    "FOR EACH ROW WHEN OLD.id IS NOT NEW.id "
    "BEGIN SELECT RAISE(ABORT, 'a document''s id never changes'); END",
]

SQLITE_DROP = [
    f"DROP TRIGGER IF EXISTS {name}"
    for name in (
        "annotations_sentence_document_insert",
        "annotations_sentence_document_update",
        "annotations_document_sentences_deleted",
        "annotations_document_id_fixed",
    )
]


def create_triggers(apps, schema_editor) -> None:
    vendor = schema_editor.connection.vendor
    statements = {"postgresql": PG_STATEMENTS, "sqlite": SQLITE_STATEMENTS}.get(vendor, [])
    for statement in statements:
        schema_editor.execute(statement, params=None)


def drop_triggers(apps, schema_editor) -> None:
    vendor = schema_editor.connection.vendor
    for statement in {"postgresql": PG_DROP, "sqlite": SQLITE_DROP}.get(vendor, []):
        schema_editor.execute(statement, params=None)


class Migration(migrations.Migration):
    dependencies = [("annotations", "0014_document_search_pending")]

    operations = [
        migrations.AlterField(
            model_name="sentence",
            name="document",
            field=models.ForeignKey(
                db_constraint=False,
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="sentences",
                to="annotations.document",
            ),
        ),
        migrations.RunPython(create_triggers, drop_triggers),
    ]
