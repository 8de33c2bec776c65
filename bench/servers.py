"""What the benchmarks start: a free local port, a scratch PostgreSQL database, gunicorn.

Imported by the scripts in bench/ (their folder is on ``sys.path`` when run as
``.venv/bin/python bench/<script>.py``).
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


# --- Django in this process, for fixtures built through the services -----------------------------


def setup_django(db_url: str) -> None:
    """Django in this process against ``db_url``, migrated."""
    os.environ["DATABASE_URL"] = db_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fallacy_platform.settings")
    sys.path[:0] = [str(ROOT), str(ROOT / "platform")]
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def document_of_sentences(parts: list[str], external_id: str) -> Any:
    """A ``NewDocument`` joining ``parts`` with spaces, each part one sentence given
    explicitly: the figures do not depend on the sentence splitter."""
    from annotations.services.documents import NewDocument

    bounds, at = [], 0
    for part in parts:
        bounds.append((at, at + len(part)))
        at += len(part) + 1
    return NewDocument(text=" ".join(parts), external_id=external_id, sentences=bounds)


# --- scratch PostgreSQL database ----------------------------------------------------------------


def add_db_url_argument(parser: argparse.ArgumentParser) -> None:
    """``--db-url``: the server's maintenance database (``$BENCH_DATABASE_URL`` by default)."""
    parser.add_argument(
        "--db-url",
        default=os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres"),
        help="a PostgreSQL database to connect to for CREATE/DROP DATABASE",
    )


def admin_conn(base_url: str) -> Any:
    import psycopg

    return psycopg.connect(base_url, autocommit=True)


def create_database(base_url: str, name: str) -> str:
    """(Re)create database ``name`` on the server of ``base_url``; returns its URL."""
    with admin_conn(base_url) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    return base_url.rsplit("/", 1)[0] + "/" + name


def drop_database(base_url: str, name: str) -> None:
    """Drop database ``name``, ending the sessions still connected to it."""
    with admin_conn(base_url) as conn:
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = %s AND pid <> pg_backend_pid()",
            [name],
        )
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')


# --- web server for the browser benchmarks -------------------------------------------------------


def start_web_server(env: dict[str, str], timeout: float = 30) -> tuple[str, subprocess.Popen]:
    """gunicorn (2 workers x 4 threads) on a free port, once it serves ``/login/``.

    Raises RuntimeError (after killing it) when it does not answer within ``timeout`` s.
    """
    port = free_port()
    url = f"http://{HOST}:{port}"
    gunicorn = Path(sys.executable).with_name("gunicorn")
    proc = subprocess.Popen(
        [str(gunicorn), "--pythonpath", "platform", "fallacy_platform.wsgi"]
        + ["-b", f"{HOST}:{port}", "-w", "2", "--threads", "4", "--log-level", "warning"],
        cwd=ROOT,
        env=env,
    )
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url + "/login/", timeout=2):
                return url, proc
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                proc.kill()
                raise RuntimeError("web server did not start") from None
            time.sleep(0.2)
