"""Helpers for job tests: tests that run the shell entry points and real workers against a
database of their own, and read that database directly.

Migrating takes a process 10–25 s, so each kind of database a test starts from is built once
a session as a template (``DatabaseTemplates``) and every test gets a copy of it:
``CREATE DATABASE … TEMPLATE`` on PostgreSQL, a copy of the file on SQLite.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest

from tests.support.processes import embedded_env, manage

TEXTS = [
    "We must ban video games now. My cousin played one game and failed his exam. "
    "Every gamer will fail in life. Nobody who plays can succeed.",
    "The senator is a liar, so his tax plan is wrong. He cheated on his wife. "
    "Why would anyone trust his numbers?",
    "If we allow one exception, soon there will be no rules at all. Then chaos follows. "
    "The school will collapse within a year.",
]


def gold_file(folder: Path) -> Path:
    """A MAFALDA-format gold file of three small texts (sentence units given)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "gold.jsonl"
    with path.open("w") as handle:
        for text in TEXTS:
            units = [s for s in re.split(r"(?<=[.?])\s+", text) if s]
            first = units[1]
            start = text.index(first)
            record = {
                "text": text,
                "labels": [[start, start + len(first), "hasty generalization"]],
                "comments": [],
                "sentences_with_labels": json.dumps({unit: [[]] for unit in units}),
            }
            handle.write(json.dumps(record) + "\n")
    return path


def wait_for(
    predicate: Callable[[], Any],
    timeout: float = 120,
    interval: float = 0.05,
    explain: Callable[[], str] | None = None,
) -> Any:
    """Poll ``predicate`` until it returns something true; its value, else TimeoutError
    (saying what ``explain()`` returns then: the state a failure needs to be understood)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise TimeoutError("condition not met in time" + (f"\n{explain()}" if explain else ""))


@dataclass
class JobEnv:
    """The environment of a job test's processes and direct SQL on its database."""

    env: dict[str, str]
    mode: str

    def query(self, sql: str, *params: Any) -> list[tuple]:
        url = self.env.get("DATABASE_URL", "")
        if url.startswith("postgres"):
            import psycopg

            with psycopg.connect(url, autocommit=True) as conn:
                return conn.execute(sql.replace("?", "%s"), params).fetchall()
        db = Path(self.env["FALLACY_DATA_DIR"]) / "db.sqlite3"
        with sqlite3.connect(db, timeout=30) as conn:
            return conn.execute(sql, params).fetchall()

    def one(self, sql: str, *params: Any) -> Any:
        rows = self.query(sql, *params)
        return rows[0][0] if rows else None

    def manage(self, *args: str, timeout: float = 300):
        return manage(*args, env=self.env, timeout=timeout)


def postgres_services() -> dict[str, str]:
    """``DATABASE_URL`` and ``CELERY_BROKER_URL`` of this test process, with a broker key
    prefix of this call's own; the test is skipped unless they name PostgreSQL and Redis.

    The prefix keeps the test's queues apart from the messages earlier tests left in the same
    Redis database (a killed worker's task, a shard queued after its worker stopped): run ids
    repeat across the tests' databases, so such a message would take over this test's shard."""
    database = os.environ.get("DATABASE_URL", "")
    broker = os.environ.get("CELERY_BROKER_URL", "")
    if not database.startswith("postgres") or not broker.startswith("redis://"):
        pytest.skip("DATABASE_URL / CELERY_BROKER_URL are not PostgreSQL / Redis")
    return {
        "DATABASE_URL": database,
        "CELERY_BROKER_URL": broker,
        "CELERY_BROKER_KEY_PREFIX": f"test-{uuid.uuid4().hex[:10]}:",
    }


def _with_database(url: str, name: str) -> str:
    return urlunsplit(urlsplit(url)._replace(path=f"/{name}"))


def _postgres(url: str):
    import psycopg

    return psycopg.connect(_with_database(url, "postgres"), autocommit=True)


class DatabaseTemplates:
    """Migrated databases built on first use, once a session, and copied per test.

    ``migrated``: the schema only. ``jobs``: ``migrated`` plus the project "Jobs" imported
    from ``gold_file`` (one gold version of three texts)."""

    def __init__(self, folder: Path) -> None:
        self._folder = folder
        self._sqlite: dict[str, Path] = {}
        self._postgres: dict[str, str] = {}  # template -> database name
        self._server = os.environ.get("DATABASE_URL", "")

    def _steps(self, name: str) -> tuple[str | None, list[tuple[str, ...]]]:
        """The template a template starts from and the commands that make it."""
        if name == "migrated":
            return None, [("migrate", "-v0")]
        if name == "jobs":
            gold = gold_file(self._folder / "jobs-gold")
            return "migrated", [
                ("import_dataset", "--format", "mafalda", str(gold), "--project", "Jobs")
            ]
        raise ValueError(f"no database template {name!r}")

    def _build(self, env: dict[str, str], commands: list[tuple[str, ...]]) -> None:
        for command in commands:
            result = manage(*command, env=env, timeout=600)
            assert result.returncode == 0, result.stderr[-3000:]

    def sqlite_copy(self, name: str, data_dir: Path) -> None:
        """``data_dir/db.sqlite3`` becomes a copy of the template ``name``."""
        if name not in self._sqlite:
            base, commands = self._steps(name)
            folder = self._folder / f"sqlite-{name}"
            if base:
                self.sqlite_copy(base, folder)
            self._build(embedded_env(folder), commands)
            self._sqlite[name] = folder / "db.sqlite3"
        data_dir.mkdir(parents=True, exist_ok=True)
        # the backup API: a consistent copy whatever the template's WAL holds
        with (
            closing(sqlite3.connect(self._sqlite[name])) as source,
            closing(sqlite3.connect(data_dir / "db.sqlite3")) as target,
        ):
            source.backup(target)

    def _postgres_template(self, name: str) -> str:
        if name not in self._postgres:
            base, commands = self._steps(name)
            database = f"fallacy_template_{name}_{uuid.uuid4().hex[:10]}"
            self._create(database, self._postgres_template(base) if base else None)
            env = embedded_env(self._folder / f"postgres-{name}")
            env["DATABASE_URL"] = _with_database(self._server, database)
            try:
                self._build(env, commands)
            except BaseException:
                self._drop(database)
                raise
            self._postgres[name] = database
        return self._postgres[name]

    def _create(self, database: str, template: str | None) -> None:
        clause = f' TEMPLATE "{template}"' if template else ""
        with _postgres(self._server) as conn:
            conn.execute(f'CREATE DATABASE "{database}"{clause}')

    def _drop(self, database: str) -> None:
        with _postgres(self._server) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')

    @contextmanager
    def postgres_copy(self, name: str, prefix: str = "fallacy_jobs") -> Iterator[str]:
        """The URL of a new PostgreSQL database copied from the template ``name`` (on the
        server of ``DATABASE_URL``), dropped afterwards."""
        template = self._postgres_template(name)
        database = f"{prefix}_{uuid.uuid4().hex[:10]}"
        self._create(database, template)
        try:
            yield _with_database(self._server, database)
        finally:
            self._drop(database)

    def drop(self) -> None:
        """Drop the PostgreSQL templates (the SQLite ones go with the session's tmp dirs)."""
        for database in reversed(list(self._postgres.values())):
            self._drop(database)
        self._postgres.clear()
