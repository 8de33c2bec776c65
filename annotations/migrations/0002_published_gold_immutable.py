"""On PostgreSQL, triggers keep published gold versions immutable even for raw SQL writes."""

from django.db import migrations

FUNCTIONS = """
CREATE OR REPLACE FUNCTION gold_row_of_published_version() RETURNS trigger AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM annotations_goldstandard
             WHERE id = NEW.gold_standard_id AND status = 'published') THEN
    RAISE EXCEPTION 'gold standard % is published and cannot change', NEW.gold_standard_id
      USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  RETURN NEW;
END $$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION published_gold_version_update() RETURNS trigger AS $$
BEGIN
  IF OLD.status = 'published' THEN
    RAISE EXCEPTION 'gold standard % is published and cannot change', OLD.id
      USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  RETURN NEW;
END $$ LANGUAGE plpgsql;

CREATE TRIGGER goldspan_published_immutable BEFORE INSERT OR UPDATE ON annotations_goldspan
  FOR EACH ROW EXECUTE FUNCTION gold_row_of_published_version();
CREATE TRIGGER golddocument_published_immutable BEFORE INSERT OR UPDATE
  ON annotations_golddocument FOR EACH ROW EXECUTE FUNCTION gold_row_of_published_version();
CREATE TRIGGER goldstandard_published_immutable BEFORE UPDATE ON annotations_goldstandard
  FOR EACH ROW EXECUTE FUNCTION published_gold_version_update();
"""

REVERSE = """
DROP TRIGGER IF EXISTS goldspan_published_immutable ON annotations_goldspan;
DROP TRIGGER IF EXISTS golddocument_published_immutable ON annotations_golddocument;
DROP TRIGGER IF EXISTS goldstandard_published_immutable ON annotations_goldstandard;
DROP FUNCTION IF EXISTS gold_row_of_published_version();
DROP FUNCTION IF EXISTS published_gold_version_update();
"""


def create_triggers(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FUNCTIONS, params=None)


def drop_triggers(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(REVERSE, params=None)


class Migration(migrations.Migration):
    dependencies = [("annotations", "0001_initial")]
    operations = [migrations.RunPython(create_triggers, drop_triggers)]
