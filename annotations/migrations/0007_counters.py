"""Counters kept by the database: documents' assignments/annotations/submissions, projects'
documents by status, members' work (``annotations.models``, "counters kept by the database").

Triggers on documents, assignments, annotations, memberships and projects keep every
``*_count`` column right however rows change (services, bulk_create, QuerySet.update and
delete, raw SQL). PostgreSQL: statement-level triggers over transition tables (a bulk
insert of 100,000 rows is one UPDATE per counter table); each lock the affected projects'
rows first, so every writer takes the project lock before the documents' (no deadlock
between an assignment and a submission). SQLite: row-level triggers (one writer at a time).
An UPDATE that changes no counted value (a span save bumping the annotation's revision)
writes nothing else.

- Replaces: counting rows when reading (``Count`` aggregates over a project's documents,
  assignments and annotations for its progress and each document's figures).
- Pays: ``bench/fenced.py --only counters`` (a project's progress): counting takes 189 times
  as long at 20,000 documents (119 against 0.6 ms; 2 cores at load 2; 45 times at load 15),
  and the gap grows with the project.
- Same figures:
  ``tests/annotations/services/test_counters.py::test_counters_follow_every_kind_of_write``
  (after every kind of write the columns equal the counts of the rows) and
  ``test_refresh_counts_repairs_counters``.
"""

from django.db import migrations, models

# --- PostgreSQL --------------------------------------------------------------------------------

# (sign, transition table) pairs per operation
PG_SOURCES = {
    "INSERT": [("1", "new_rows")],
    "DELETE": [("-1", "old_rows")],
    "UPDATE": [("-1", "old_rows"), ("1", "new_rows")],
}


def _union(op: str, select: str) -> str:
    return " UNION ALL ".join(select.format(sign=sign, src=src) for sign, src in PG_SOURCES[op])


def _lock_projects(op: str, counted: str) -> str:
    """Lock the affected projects' rows (in id order) before any document's. An UPDATE
    that changes none of the ``counted`` columns returns at once: it locks nothing."""
    unchanged = ""
    if op == "UPDATE":
        changed = " OR ".join(f"o.{c} IS DISTINCT FROM n.{c}" for c in counted.split())
        unchanged = (
            "IF NOT EXISTS (SELECT 1 FROM old_rows o JOIN new_rows n ON n.id = o.id "
            f"WHERE {changed}) THEN RETURN NULL; END IF;"
        )
    docs = _union(op, "SELECT document_id FROM {src}")
    return (
        f"{unchanged} PERFORM 1 FROM annotations_project p WHERE p.id IN (SELECT d.project_id "
        f"FROM annotations_document d WHERE d.id IN ({docs})) ORDER BY p.id FOR NO KEY UPDATE;"
    )


def _pg_assignment(op: str) -> str:
    delta = _union(op, "SELECT document_id, annotator_id, {sign} AS n FROM {src}")
    return f"""
    {_lock_projects(op, "document_id annotator_id")}
    UPDATE annotations_document d SET assignment_count = d.assignment_count + c.n
    FROM (SELECT document_id, sum(n) AS n FROM ({delta}) x GROUP BY document_id
          HAVING sum(n) <> 0) c
    WHERE d.id = c.document_id;
    UPDATE annotations_membership m SET assigned_count = m.assigned_count + c.n
    FROM (SELECT d.project_id, x.annotator_id, sum(x.n) AS n FROM ({delta}) x
          JOIN annotations_document d ON d.id = x.document_id
          GROUP BY d.project_id, x.annotator_id HAVING sum(x.n) <> 0) c
    WHERE m.project_id = c.project_id AND m.user_id = c.annotator_id;
    {_pg_done(op, "annotations_annotation", "AND o.status = 'submitted'", "{sign}")}
    """


def _pg_done(op: str, other: str, condition: str, value: str) -> str:
    """Members' ``done_count`` (assignments whose annotation by the same member is
    submitted): the rows of ``src`` weighted by ``value`` when ``other`` has the pair."""
    delta = _union(
        op,
        f"SELECT r.document_id, r.annotator_id, {value} AS n FROM {{src}} r WHERE EXISTS "
        f"(SELECT 1 FROM {other} o WHERE o.document_id = r.document_id "
        f"AND o.annotator_id = r.annotator_id {condition})",
    )
    return f"""
    UPDATE annotations_membership m SET done_count = m.done_count + c.n
    FROM (SELECT d.project_id, x.annotator_id, sum(x.n) AS n FROM ({delta}) x
          JOIN annotations_document d ON d.id = x.document_id
          GROUP BY d.project_id, x.annotator_id HAVING sum(x.n) <> 0) c
    WHERE m.project_id = c.project_id AND m.user_id = c.annotator_id;
    """


def _pg_annotation(op: str) -> str:
    delta = _union(
        op,
        "SELECT document_id, annotator_id, {sign} AS n, "
        "{sign} * (status = 'submitted')::int AS s, "
        "{sign} * (status = 'in_progress')::int AS p FROM {src}",
    )
    return f"""
    {_lock_projects(op, "status document_id annotator_id")}
    UPDATE annotations_document d SET annotation_count = d.annotation_count + c.n,
        submitted_count = d.submitted_count + c.s
    FROM (SELECT document_id, sum(n) AS n, sum(s) AS s FROM ({delta}) x GROUP BY document_id
          HAVING sum(n) <> 0 OR sum(s) <> 0) c
    WHERE d.id = c.document_id;
    UPDATE annotations_membership m SET in_progress_count = m.in_progress_count + c.p,
        submitted_count = m.submitted_count + c.s
    FROM (SELECT d.project_id, x.annotator_id, sum(x.p) AS p, sum(x.s) AS s FROM ({delta}) x
          JOIN annotations_document d ON d.id = x.document_id
          GROUP BY d.project_id, x.annotator_id HAVING sum(x.p) <> 0 OR sum(x.s) <> 0) c
    WHERE m.project_id = c.project_id AND m.user_id = c.annotator_id;
    {_pg_done(op, "annotations_assignment", "", "{sign} * (r.status = 'submitted')::int")}
    """


def _pg_document(op: str) -> str:
    delta = _union(
        op,
        "SELECT r.project_id, {sign} AS docs, {sign} * r.assignment_count AS a, "
        "{sign} * r.submitted_count AS s, "
        "{sign} * (r.submitted_count >= p.annotators_per_document)::int AS done, "
        "{sign} * (r.submitted_count < p.annotators_per_document "
        "AND r.annotation_count > 0)::int AS prog, "
        "{sign} * (r.annotation_count = 0 AND r.assignment_count > 0)::int AS todo "
        "FROM {src} r JOIN annotations_project p ON p.id = r.project_id",
    )
    return f"""
    UPDATE annotations_project p SET document_count = p.document_count + c.docs,
        assignment_count = p.assignment_count + c.a, submitted_count = p.submitted_count + c.s,
        done_count = p.done_count + c.done, in_progress_count = p.in_progress_count + c.prog,
        todo_count = p.todo_count + c.todo
    FROM (SELECT project_id, sum(docs) AS docs, sum(a) AS a, sum(s) AS s, sum(done) AS done,
                 sum(prog) AS prog, sum(todo) AS todo
          FROM ({delta}) x GROUP BY project_id
          HAVING sum(docs) <> 0 OR sum(a) <> 0 OR sum(s) <> 0 OR sum(done) <> 0
              OR sum(prog) <> 0 OR sum(todo) <> 0) c
    WHERE p.id = c.project_id;
    """


PG_TABLES = {
    "assignment": ("annotations_assignment", _pg_assignment),
    "annotation": ("annotations_annotation", _pg_annotation),
    "document": ("annotations_document", _pg_document),
}
REFERENCING = {
    "INSERT": "REFERENCING NEW TABLE AS new_rows",
    "DELETE": "REFERENCING OLD TABLE AS old_rows",
    "UPDATE": "REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows",
}


def _pg_statements() -> list[str]:
    out = []
    for name, (table, body) in PG_TABLES.items():
        for op in ("INSERT", "DELETE", "UPDATE"):
            function = f"fallacy_count_{name}_{op.lower()}"
            out.append(
                f"CREATE OR REPLACE FUNCTION {function}() RETURNS trigger LANGUAGE plpgsql AS "
                f"$$ BEGIN {body(op)} RETURN NULL; END $$"
            )
            out.append(
                f"CREATE TRIGGER {function} AFTER {op} ON {table} {REFERENCING[op]} "
                f"FOR EACH STATEMENT EXECUTE FUNCTION {function}()"
            )
    out.append(
        """CREATE OR REPLACE FUNCTION fallacy_count_project_need() RETURNS trigger
        LANGUAGE plpgsql AS $$ BEGIN
            SELECT count(*) FILTER (WHERE submitted_count >= NEW.annotators_per_document),
                   count(*) FILTER (WHERE submitted_count < NEW.annotators_per_document
                                    AND annotation_count > 0)
            INTO NEW.done_count, NEW.in_progress_count
            FROM annotations_document WHERE project_id = NEW.id;
            RETURN NEW;
        END $$"""
    )
    out.append(
        "CREATE TRIGGER fallacy_count_project_need BEFORE UPDATE ON annotations_project "
        "FOR EACH ROW WHEN (OLD.annotators_per_document IS DISTINCT FROM "
        "NEW.annotators_per_document) EXECUTE FUNCTION fallacy_count_project_need()"
    )
    out.append(
        """CREATE OR REPLACE FUNCTION fallacy_count_membership_insert() RETURNS trigger
        LANGUAGE plpgsql AS $$ BEGIN
            SELECT count(*) INTO NEW.assigned_count FROM annotations_assignment a
            JOIN annotations_document d ON d.id = a.document_id
            WHERE d.project_id = NEW.project_id AND a.annotator_id = NEW.user_id;
            SELECT count(*) FILTER (WHERE a.status = 'in_progress'),
                   count(*) FILTER (WHERE a.status = 'submitted')
            INTO NEW.in_progress_count, NEW.submitted_count FROM annotations_annotation a
            JOIN annotations_document d ON d.id = a.document_id
            WHERE d.project_id = NEW.project_id AND a.annotator_id = NEW.user_id;
            SELECT count(*) INTO NEW.done_count FROM annotations_assignment s
            JOIN annotations_document d ON d.id = s.document_id
            JOIN annotations_annotation a ON a.document_id = s.document_id
                AND a.annotator_id = s.annotator_id AND a.status = 'submitted'
            WHERE d.project_id = NEW.project_id AND s.annotator_id = NEW.user_id;
            RETURN NEW;
        END $$"""
    )
    out.append(
        "CREATE TRIGGER fallacy_count_membership_insert BEFORE INSERT ON "
        "annotations_membership FOR EACH ROW EXECUTE FUNCTION fallacy_count_membership_insert()"
    )
    return out


# The counters make documents rows that change (an assignment, an annotation started or
# submitted). Free space on each page lets PostgreSQL update them in place (HOT): no new
# entries in the document's indexes (its text's trigram index above all) for a counter.
PG_FILLFACTOR = "ALTER TABLE annotations_document SET (fillfactor = 75)"


def _pg_drop() -> list[str]:
    out = ["ALTER TABLE annotations_document RESET (fillfactor)"]
    for name, (table, _) in PG_TABLES.items():
        for op in ("insert", "delete", "update"):
            out.append(f"DROP TRIGGER IF EXISTS fallacy_count_{name}_{op} ON {table}")
            out.append(f"DROP FUNCTION IF EXISTS fallacy_count_{name}_{op}()")
    for name, table in (("project_need", "project"), ("membership_insert", "membership")):
        out.append(f"DROP TRIGGER IF EXISTS fallacy_count_{name} ON annotations_{table}")
        out.append(f"DROP FUNCTION IF EXISTS fallacy_count_{name}()")
    return out


# --- SQLite -----------------------------------------------------------------------------------


def _sq_assignment(row: str, sign: str) -> str:
    return f"""
    UPDATE annotations_document SET assignment_count = assignment_count {sign} 1
    WHERE id = {row}.document_id;
    UPDATE annotations_membership SET assigned_count = assigned_count {sign} 1,
        done_count = done_count {sign} EXISTS (SELECT 1 FROM annotations_annotation o
            WHERE o.document_id = {row}.document_id AND o.annotator_id = {row}.annotator_id
            AND o.status = 'submitted')
    WHERE user_id = {row}.annotator_id AND project_id =
        (SELECT project_id FROM annotations_document WHERE id = {row}.document_id);
    """


def _sq_annotation(row: str, sign: str) -> str:
    return f"""
    UPDATE annotations_document SET annotation_count = annotation_count {sign} 1,
        submitted_count = submitted_count {sign} ({row}.status = 'submitted')
    WHERE id = {row}.document_id;
    UPDATE annotations_membership
    SET in_progress_count = in_progress_count {sign} ({row}.status = 'in_progress'),
        submitted_count = submitted_count {sign} ({row}.status = 'submitted'),
        done_count = done_count {sign} ({row}.status = 'submitted' AND EXISTS (
            SELECT 1 FROM annotations_assignment o WHERE o.document_id = {row}.document_id
            AND o.annotator_id = {row}.annotator_id))
    WHERE user_id = {row}.annotator_id AND project_id =
        (SELECT project_id FROM annotations_document WHERE id = {row}.document_id);
    """


def _sq_document(row: str, sign: str) -> str:
    return f"""
    UPDATE annotations_project SET document_count = document_count {sign} 1,
        assignment_count = assignment_count {sign} {row}.assignment_count,
        submitted_count = submitted_count {sign} {row}.submitted_count,
        done_count = done_count {sign} ({row}.submitted_count >= annotators_per_document),
        in_progress_count = in_progress_count {sign}
            ({row}.submitted_count < annotators_per_document AND {row}.annotation_count > 0),
        todo_count = todo_count {sign}
            ({row}.annotation_count = 0 AND {row}.assignment_count > 0)
    WHERE id = {row}.project_id;
    """


SQ_TABLES = {
    "assignment": ("annotations_assignment", _sq_assignment, "document_id, annotator_id", ""),
    "annotation": (
        "annotations_annotation",
        _sq_annotation,
        "status, document_id, annotator_id",
        "WHEN OLD.status IS NOT NEW.status OR OLD.document_id <> NEW.document_id "
        "OR OLD.annotator_id <> NEW.annotator_id",
    ),
    "document": (
        "annotations_document",
        _sq_document,
        "assignment_count, annotation_count, submitted_count, project_id",
        "",
    ),
}


def _sqlite_statements() -> list[str]:
    out = []
    for name, (table, body, columns, when) in SQ_TABLES.items():
        out.append(
            f"CREATE TRIGGER fallacy_count_{name}_insert AFTER INSERT ON {table} "
            f"BEGIN {body('NEW', '+')} END"
        )
        out.append(
            f"CREATE TRIGGER fallacy_count_{name}_delete AFTER DELETE ON {table} "
            f"BEGIN {body('OLD', '-')} END"
        )
        out.append(
            f"CREATE TRIGGER fallacy_count_{name}_update AFTER UPDATE OF {columns} ON {table} "
            f"{when} BEGIN {body('OLD', '-')} {body('NEW', '+')} END"
        )
    out.append(
        """CREATE TRIGGER fallacy_count_project_need AFTER UPDATE OF annotators_per_document
        ON annotations_project WHEN OLD.annotators_per_document <> NEW.annotators_per_document
        BEGIN
            UPDATE annotations_project SET
                done_count = (SELECT count(*) FROM annotations_document d
                    WHERE d.project_id = NEW.id
                    AND d.submitted_count >= NEW.annotators_per_document),
                in_progress_count = (SELECT count(*) FROM annotations_document d
                    WHERE d.project_id = NEW.id AND d.annotation_count > 0
                    AND d.submitted_count < NEW.annotators_per_document)
            WHERE id = NEW.id;
        END"""
    )
    out.append(
        """CREATE TRIGGER fallacy_count_membership_insert AFTER INSERT ON annotations_membership
        BEGIN
            UPDATE annotations_membership SET
                assigned_count = (SELECT count(*) FROM annotations_assignment a
                    JOIN annotations_document d ON d.id = a.document_id
                    WHERE d.project_id = NEW.project_id AND a.annotator_id = NEW.user_id),
                in_progress_count = (SELECT count(*) FROM annotations_annotation a
                    JOIN annotations_document d ON d.id = a.document_id
                    WHERE d.project_id = NEW.project_id AND a.annotator_id = NEW.user_id
                    AND a.status = 'in_progress'),
                submitted_count = (SELECT count(*) FROM annotations_annotation a
                    JOIN annotations_document d ON d.id = a.document_id
                    WHERE d.project_id = NEW.project_id AND a.annotator_id = NEW.user_id
                    AND a.status = 'submitted'),
                done_count = (SELECT count(*) FROM annotations_assignment s
                    JOIN annotations_document d ON d.id = s.document_id
                    JOIN annotations_annotation a ON a.document_id = s.document_id
                        AND a.annotator_id = s.annotator_id AND a.status = 'submitted'
                    WHERE d.project_id = NEW.project_id AND s.annotator_id = NEW.user_id)
            WHERE id = NEW.id;
        END"""
    )
    return out


def _sqlite_drop() -> list[str]:
    names = [f"{n}_{op}" for n in SQ_TABLES for op in ("insert", "delete", "update")]
    return [
        f"DROP TRIGGER IF EXISTS fallacy_count_{n}"
        for n in [*names, "project_need", "membership_insert"]
    ]


# --- the counts of the rows already there (annotations.services.counts.refresh_counts too) -----

REFRESH = [
    """UPDATE annotations_document SET
        assignment_count = (SELECT count(*) FROM annotations_assignment a
            WHERE a.document_id = annotations_document.id),
        annotation_count = (SELECT count(*) FROM annotations_annotation a
            WHERE a.document_id = annotations_document.id),
        submitted_count = (SELECT count(*) FROM annotations_annotation a
            WHERE a.document_id = annotations_document.id AND a.status = 'submitted')""",
    """UPDATE annotations_project SET
        document_count = (SELECT count(*) FROM annotations_document d
            WHERE d.project_id = annotations_project.id),
        assignment_count = (SELECT coalesce(sum(d.assignment_count), 0)
            FROM annotations_document d WHERE d.project_id = annotations_project.id),
        submitted_count = (SELECT coalesce(sum(d.submitted_count), 0)
            FROM annotations_document d WHERE d.project_id = annotations_project.id),
        done_count = (SELECT count(*) FROM annotations_document d
            WHERE d.project_id = annotations_project.id
            AND d.submitted_count >= annotations_project.annotators_per_document),
        in_progress_count = (SELECT count(*) FROM annotations_document d
            WHERE d.project_id = annotations_project.id AND d.annotation_count > 0
            AND d.submitted_count < annotations_project.annotators_per_document),
        todo_count = (SELECT count(*) FROM annotations_document d
            WHERE d.project_id = annotations_project.id AND d.annotation_count = 0
            AND d.assignment_count > 0)""",
    """UPDATE annotations_membership SET
        assigned_count = (SELECT count(*) FROM annotations_assignment a
            JOIN annotations_document d ON d.id = a.document_id
            WHERE d.project_id = annotations_membership.project_id
            AND a.annotator_id = annotations_membership.user_id),
        in_progress_count = (SELECT count(*) FROM annotations_annotation a
            JOIN annotations_document d ON d.id = a.document_id
            WHERE d.project_id = annotations_membership.project_id
            AND a.annotator_id = annotations_membership.user_id AND a.status = 'in_progress'),
        submitted_count = (SELECT count(*) FROM annotations_annotation a
            JOIN annotations_document d ON d.id = a.document_id
            WHERE d.project_id = annotations_membership.project_id
            AND a.annotator_id = annotations_membership.user_id AND a.status = 'submitted'),
        done_count = (SELECT count(*) FROM annotations_assignment s
            JOIN annotations_document d ON d.id = s.document_id
            JOIN annotations_annotation a ON a.document_id = s.document_id
                AND a.annotator_id = s.annotator_id AND a.status = 'submitted'
            WHERE d.project_id = annotations_membership.project_id
            AND s.annotator_id = annotations_membership.user_id)""",
]


def create_triggers(apps, schema_editor) -> None:
    vendor = schema_editor.connection.vendor
    statements = {"postgresql": _pg_statements, "sqlite": _sqlite_statements}.get(vendor)
    if statements is None:
        return
    fillfactor = [PG_FILLFACTOR] if vendor == "postgresql" else []
    for sql in [*fillfactor, *statements(), *REFRESH]:
        schema_editor.execute(sql, params=None)


def drop_triggers(apps, schema_editor) -> None:
    vendor = schema_editor.connection.vendor
    statements = {"postgresql": _pg_drop, "sqlite": _sqlite_drop}.get(vendor)
    if statements is not None:
        for sql in statements():
            schema_editor.execute(sql, params=None)


def _counter(help_text: str) -> models.PositiveIntegerField:
    return models.PositiveIntegerField(default=0, editable=False, help_text=help_text)


class Migration(migrations.Migration):
    dependencies = [("annotations", "0006_item_projects")]

    operations = [
        migrations.AddField(
            "document",
            "assignment_count",
            _counter("Assignments of the document (kept by the database)."),
        ),
        migrations.AddField(
            "document", "annotation_count", _counter("Annotations of the document, any status.")
        ),
        migrations.AddField(
            "document", "submitted_count", _counter("Submitted annotations of the document.")
        ),
        migrations.AddField(
            "project",
            "document_count",
            _counter("Documents of the project (kept by the database)."),
        ),
        migrations.AddField(
            "project",
            "done_count",
            _counter("Documents with at least annotators_per_document submitted."),
        ),
        migrations.AddField(
            "project",
            "in_progress_count",
            _counter("Documents not done with at least one annotation."),
        ),
        migrations.AddField(
            "project", "todo_count", _counter("Documents assigned, without annotations.")
        ),
        migrations.AddField(
            "project", "assignment_count", _counter("Assignments of the project's documents.")
        ),
        migrations.AddField(
            "project",
            "submitted_count",
            _counter("Submitted annotations of the project's documents."),
        ),
        migrations.AddField(
            "membership",
            "assigned_count",
            _counter("The member's assignments in the project (kept by the database)."),
        ),
        migrations.AddField(
            "membership",
            "in_progress_count",
            _counter("The member's annotations in progress in the project."),
        ),
        migrations.AddField(
            "membership",
            "submitted_count",
            _counter("The member's submitted annotations in the project."),
        ),
        migrations.AddField(
            "membership",
            "done_count",
            _counter("Documents assigned to the member that they submitted."),
        ),
        migrations.RunPython(create_triggers, drop_triggers),
    ]
