"""Counters kept by the database per (project, person): assignments, annotations in progress
and submitted, assigned documents started and done, and the latest annotation change
(``annotations.models.AnnotatorCounter``; the same scheme as migration 0007).

A row exists for everyone with assignments or annotations in the project, members or not,
so the progress page reads people who left the project from it too. PostgreSQL:
statement-level triggers over transition tables; SQLite: row-level triggers. Triggers named
``fallacy_count_worker_*`` fire after 0007's on the same statement, which have locked the
affected projects' rows when anything counted changed. A change of ``updated_at`` alone (a
span save) only raises ``last_active``: it takes no project lock. ``last_active`` is
recomputed from the rows only when the latest change of a pair is deleted or moved back.

- Replaces: a GROUP BY over every annotation of the project on each progress read.
- Same figures: ``tests/annotations/services/test_counters.py`` (triggers against the rows
  and against ``refresh_counts``).
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

TABLE = "annotations_annotatorcounter"
COLUMNS = (
    "project_id, annotator_id, assigned_count, in_progress_count, submitted_count, "
    "started_count, done_count, last_active"
)
# a new row: zero counts, no change yet (last_active NULL)
ZEROS = (
    f"INSERT INTO {TABLE} (project_id, annotator_id, assigned_count, in_progress_count, "
    "submitted_count, started_count, done_count)"
)
PAIR = "d.project_id, x.annotator_id"
LATEST = (
    "(SELECT max(a.updated_at) FROM annotations_annotation a JOIN annotations_document d "
    "ON d.id = a.document_id WHERE a.annotator_id = {t}.annotator_id "
    "AND d.project_id = {t}.project_id)"
)

# --- PostgreSQL --------------------------------------------------------------------------------

SOURCES = {
    "INSERT": [("1", "new_rows")],
    "DELETE": [("-1", "old_rows")],
    "UPDATE": [("-1", "old_rows"), ("1", "new_rows")],
}


def _union(op: str, select: str) -> str:
    return " UNION ALL ".join(select.format(sign=sign, src=src) for sign, src in SOURCES[op])


def _pg_ensure(op: str) -> str:
    """A zero row for every (project, person) of the new rows that has none."""
    if op == "DELETE":
        return ""
    return (
        f"{ZEROS} SELECT DISTINCT d.project_id, n.annotator_id, 0, 0, 0, 0, 0 "
        "FROM new_rows n JOIN annotations_document d ON d.id = n.document_id "
        "ON CONFLICT (project_id, annotator_id) DO NOTHING;"
    )


def _pg_add(delta: str, sums: dict[str, str]) -> str:
    """Add the per-pair sums of ``delta`` (columns document_id, annotator_id and the
    ``sums`` values) to the counters."""
    sets = ", ".join(f"{column} = c.{column} + s.{column}" for column in sums)
    totals = ", ".join(f"sum(x.{column}) AS {column}" for column in sums)
    nonzero = " OR ".join(f"sum(x.{column}) <> 0" for column in sums)
    return f"""
    UPDATE {TABLE} c SET {sets}
    FROM (SELECT {PAIR}, {totals} FROM ({delta}) x
          JOIN annotations_document d ON d.id = x.document_id
          GROUP BY {PAIR} HAVING {nonzero}) s
    WHERE c.project_id = s.project_id AND c.annotator_id = s.annotator_id;
    """


def _changed(op: str, counted: str) -> str:
    if op != "UPDATE":
        return "TRUE"
    changed = " OR ".join(f"o.{c} IS DISTINCT FROM n.{c}" for c in counted.split())
    return f"EXISTS (SELECT 1 FROM old_rows o JOIN new_rows n ON n.id = o.id WHERE {changed})"


def _pg_assignment(op: str) -> str:
    mine = (
        "SELECT status FROM annotations_annotation a WHERE a.document_id = r.document_id "
        "AND a.annotator_id = r.annotator_id"
    )
    delta = _union(
        op,
        "SELECT r.document_id, r.annotator_id, {sign} AS assigned_count, "
        f"{{sign}} * coalesce(({mine}) = 'in_progress', false)::int AS started_count, "
        f"{{sign}} * coalesce(({mine}) = 'submitted', false)::int AS done_count FROM {{src}} r",
    )
    sums = dict.fromkeys(("assigned_count", "started_count", "done_count"), "")
    return f"""IF {_changed(op, "document_id annotator_id")} THEN
        {_pg_ensure(op)} {_pg_add(delta, sums)} END IF;"""


def _pg_annotation(op: str) -> str:
    assigned = (
        "EXISTS (SELECT 1 FROM annotations_assignment o WHERE o.document_id = r.document_id "
        "AND o.annotator_id = r.annotator_id)"
    )
    delta = _union(
        op,
        "SELECT r.document_id, r.annotator_id, "
        "{sign} * (r.status = 'in_progress')::int AS in_progress_count, "
        "{sign} * (r.status = 'submitted')::int AS submitted_count, "
        f"{{sign}} * (r.status = 'in_progress' AND {assigned})::int AS started_count, "
        f"{{sign}} * (r.status = 'submitted' AND {assigned})::int AS done_count FROM {{src}} r",
    )
    sums = dict.fromkeys(("in_progress_count", "submitted_count", "started_count", "done_count"))
    counts = f"""IF {_changed(op, "status document_id annotator_id")} THEN
        {_pg_ensure(op)} {_pg_add(delta, sums)} END IF;"""
    return counts + _pg_latest(op)


def _pg_latest(op: str) -> str:
    """``last_active``: raised to the new rows' latest change; recomputed for the pairs
    whose latest change was deleted, moved to another pair or set back."""
    out = ""
    if op != "DELETE":
        out += f"""
        UPDATE {TABLE} c SET last_active = s.t
        FROM (SELECT {PAIR}, max(x.updated_at) AS t FROM new_rows x
              JOIN annotations_document d ON d.id = x.document_id GROUP BY {PAIR}) s
        WHERE c.project_id = s.project_id AND c.annotator_id = s.annotator_id
        AND (c.last_active IS NULL OR c.last_active < s.t);"""
    if op == "INSERT":
        return out
    lost = "old_rows"
    if op == "UPDATE":
        lost = (
            "(SELECT o.* FROM old_rows o JOIN new_rows n ON n.id = o.id "
            "WHERE n.document_id <> o.document_id OR n.annotator_id <> o.annotator_id "
            "OR n.updated_at < o.updated_at)"
        )
    return (
        out
        + f"""
    UPDATE {TABLE} c SET last_active = {LATEST.format(t="c")}
    FROM (SELECT {PAIR}, max(x.updated_at) AS t FROM {lost} x
          JOIN annotations_document d ON d.id = x.document_id GROUP BY {PAIR}) s
    WHERE c.project_id = s.project_id AND c.annotator_id = s.annotator_id
    AND c.last_active <= s.t;"""
    )


PG_TABLES = {
    "assignment": ("annotations_assignment", _pg_assignment),
    "annotation": ("annotations_annotation", _pg_annotation),
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
            function = f"fallacy_count_worker_{name}_{op.lower()}"
            out.append(
                f"CREATE OR REPLACE FUNCTION {function}() RETURNS trigger LANGUAGE plpgsql AS "
                f"$$ BEGIN {body(op)} RETURN NULL; END $$"
            )
            out.append(
                f"CREATE TRIGGER {function} AFTER {op} ON {table} {REFERENCING[op]} "
                f"FOR EACH STATEMENT EXECUTE FUNCTION {function}()"
            )
    return out


def _pg_drop() -> list[str]:
    out = []
    for name, (table, _) in PG_TABLES.items():
        for op in ("insert", "delete", "update"):
            out.append(f"DROP TRIGGER IF EXISTS fallacy_count_worker_{name}_{op} ON {table}")
            out.append(f"DROP FUNCTION IF EXISTS fallacy_count_worker_{name}_{op}()")
    return out


# --- SQLite -----------------------------------------------------------------------------------


def _sq_project(row: str) -> str:
    return f"(SELECT project_id FROM annotations_document WHERE id = {row}.document_id)"


def _sq_where(row: str) -> str:
    return f"WHERE annotator_id = {row}.annotator_id AND project_id = {_sq_project(row)}"


def _sq_ensure(row: str) -> str:
    return (
        f"{ZEROS.replace('INSERT', 'INSERT OR IGNORE', 1)} SELECT project_id, "
        f"{row}.annotator_id, 0, 0, 0, 0, 0 FROM annotations_document "
        f"WHERE id = {row}.document_id;"
    )


def _sq_raise(row: str) -> str:
    return (
        f"UPDATE {TABLE} SET last_active = {row}.updated_at {_sq_where(row)} "
        f"AND (last_active IS NULL OR last_active < {row}.updated_at);"
    )


def _sq_assignment(row: str, sign: str) -> str:
    mine = (
        "(SELECT status FROM annotations_annotation a "
        f"WHERE a.document_id = {row}.document_id AND a.annotator_id = {row}.annotator_id)"
    )
    ensure = _sq_ensure(row) if sign == "+" else ""
    return f"""{ensure}
    UPDATE {TABLE} SET assigned_count = assigned_count {sign} 1,
        started_count = started_count {sign} coalesce({mine} = 'in_progress', 0),
        done_count = done_count {sign} coalesce({mine} = 'submitted', 0)
    {_sq_where(row)};"""


def _sq_annotation(row: str, sign: str) -> str:
    assigned = (
        "EXISTS (SELECT 1 FROM annotations_assignment o WHERE "
        f"o.document_id = {row}.document_id AND o.annotator_id = {row}.annotator_id)"
    )
    ensure = _sq_ensure(row) + _sq_raise(row) if sign == "+" else ""
    return f"""{ensure}
    UPDATE {TABLE} SET
        in_progress_count = in_progress_count {sign} ({row}.status = 'in_progress'),
        submitted_count = submitted_count {sign} ({row}.status = 'submitted'),
        started_count = started_count {sign} ({row}.status = 'in_progress' AND {assigned}),
        done_count = done_count {sign} ({row}.status = 'submitted' AND {assigned})
    {_sq_where(row)};"""


def _sq_recompute(row: str) -> str:
    """``last_active`` of the pair of ``row`` from the rows, when ``row`` held it."""
    return (
        f"UPDATE {TABLE} SET last_active = {LATEST.format(t=TABLE)} {_sq_where(row)} "
        f"AND last_active <= {row}.updated_at;"
    )


def _sqlite_statements() -> list[str]:
    out = []
    tables = {"assignment": _sq_assignment, "annotation": _sq_annotation}
    columns = {"assignment": "document_id, annotator_id", "annotation": "status"}
    for name, body in tables.items():
        table = f"annotations_{name}"
        trigger = f"fallacy_count_worker_{name}"
        delete = body("OLD", "-") + (_sq_recompute("OLD") if name == "annotation" else "")
        out += [
            f"CREATE TRIGGER {trigger}_insert AFTER INSERT ON {table} BEGIN {body('NEW', '+')} END",
            f"CREATE TRIGGER {trigger}_delete AFTER DELETE ON {table} BEGIN {delete} END",
            f"CREATE TRIGGER {trigger}_update AFTER UPDATE OF {columns[name]}, document_id, "
            f"annotator_id ON {table} WHEN OLD.document_id <> NEW.document_id OR "
            f"OLD.annotator_id <> NEW.annotator_id"
            + (" OR OLD.status IS NOT NEW.status" if name == "annotation" else "")
            + f" BEGIN {body('OLD', '-')} {body('NEW', '+')} END",
        ]
    out += [
        "CREATE TRIGGER fallacy_count_worker_annotation_time AFTER UPDATE OF updated_at "
        f"ON annotations_annotation BEGIN {_sq_raise('NEW')} END",
        "CREATE TRIGGER fallacy_count_worker_annotation_back AFTER UPDATE OF updated_at, "
        "document_id, annotator_id ON annotations_annotation WHEN OLD.document_id <> "
        "NEW.document_id OR OLD.annotator_id <> NEW.annotator_id OR "
        f"NEW.updated_at < OLD.updated_at BEGIN {_sq_recompute('OLD')} END",
    ]
    return out


def _sqlite_drop() -> list[str]:
    names = [f"{n}_{op}" for n in ("assignment", "annotation") for op in ("insert", "delete")]
    names += ["assignment_update", "annotation_update", "annotation_time", "annotation_back"]
    return [f"DROP TRIGGER IF EXISTS fallacy_count_worker_{n}" for n in names]


# --- the counts of the rows already there (annotations.services.counts.refresh_counts too) -----

REFRESH = f"""INSERT INTO {TABLE} ({COLUMNS})
SELECT project_id, annotator_id, sum(assigned), sum(in_progress), sum(submitted),
       sum(started), sum(done), max(t)
FROM (
    SELECT d.project_id, a.annotator_id, 0 AS assigned,
        CASE WHEN a.status = 'in_progress' THEN 1 ELSE 0 END AS in_progress,
        CASE WHEN a.status = 'submitted' THEN 1 ELSE 0 END AS submitted,
        0 AS started, 0 AS done, a.updated_at AS t
    FROM annotations_annotation a JOIN annotations_document d ON d.id = a.document_id
    {{where}}
    UNION ALL
    SELECT d.project_id, s.annotator_id, 1, 0, 0,
        CASE WHEN a.status = 'in_progress' THEN 1 ELSE 0 END,
        CASE WHEN a.status = 'submitted' THEN 1 ELSE 0 END, NULL
    FROM annotations_assignment s JOIN annotations_document d ON d.id = s.document_id
    LEFT JOIN annotations_annotation a ON a.document_id = s.document_id
        AND a.annotator_id = s.annotator_id
    {{where}}
) x GROUP BY project_id, annotator_id"""


def create_triggers(apps, schema_editor) -> None:
    vendor = schema_editor.connection.vendor
    statements = {"postgresql": _pg_statements, "sqlite": _sqlite_statements}.get(vendor)
    if statements is None:
        return
    for sql in [*statements(), REFRESH.format(where="")]:
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
    dependencies = [
        ("annotations", "0017_label_studio_annotators"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="AnnotatorCounter",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("assigned_count", _counter("The person's assignments in the project.")),
                (
                    "in_progress_count",
                    _counter("The person's annotations in progress in the project."),
                ),
                ("submitted_count", _counter("The person's submitted annotations in the project.")),
                (
                    "started_count",
                    _counter("Documents assigned to the person with their annotation in progress."),
                ),
                ("done_count", _counter("Documents assigned to the person that they submitted.")),
                (
                    "last_active",
                    models.DateTimeField(
                        editable=False,
                        help_text="The latest change of the person's annotations.",
                        null=True,
                    ),
                ),
                (
                    "annotator",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="annotator_counters",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "project",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="annotator_counters",
                        to="annotations.project",
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        fields=("project", "annotator"), name="annotator_counter_unique"
                    )
                ],
            },
        ),
        migrations.RunPython(create_triggers, drop_triggers),
    ]
