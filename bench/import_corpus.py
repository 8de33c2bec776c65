"""Benchmark: importing a 10,000-text MAFALDA-format corpus on SQLite and PostgreSQL.

    .venv/bin/python bench/import_corpus.py [--texts 10000] [--backends sqlite,postgresql]

The corpus is synthetic, built in a temp dir from the 200 gold texts of
``../shared/datasets/mafalda``: each copy appends ``Copy <n>.`` after the text (so every text
is distinct and gains one sentence pysbd must split) and keeps labels, comments and sentence
units, so the labels stay valid. Each backend runs in its own subprocess (a fresh Django
against a scratch database: a temp SQLite file, or a PostgreSQL database created and dropped
at DATABASE_URL's server, default postgres://postgres@127.0.0.1:5432/postgres) that migrates,
installs the MAFALDA taxonomy and times ``import_mafalda_gold`` and then ``export_mafalda``.
Peak memory is the process's maximum resident set size (``getrusage``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from machine import cpu_model  # noqa: E402 (bench/ is the script's folder)

REPO = Path(__file__).resolve().parents[1]
GOLD = REPO.parent / "shared" / "datasets" / "mafalda" / "datasets" / "gold_standard_dataset.jsonl"
DEFAULT_POSTGRES = "postgres://postgres@127.0.0.1:5432/postgres"


def build_corpus(path: Path, texts: int) -> None:
    with GOLD.open(encoding="utf-8") as stream:
        records = [json.loads(line) for line in stream]
    with path.open("w", encoding="utf-8") as out:
        for number in range(texts):
            record = records[number % len(records)]
            copy = {**record, "text": f"{record['text']}Copy {number}."}
            out.write(json.dumps(copy) + "\n")


def max_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


# --- worker: one backend, in its own process --------------------------------------------------


def worker(corpus: Path, database_url: str) -> dict:
    sys.path[:0] = [str(REPO), str(REPO / "platform")]
    os.environ["DJANGO_SETTINGS_MODULE"] = "fallacy_platform.settings"
    os.environ["DATABASE_URL"] = database_url
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from annotations.importing.datasets import import_mafalda_gold
    from annotations.models import GoldSpan, Sentence
    from annotations.services.exports import export_mafalda
    from annotations.services.projects import create_project
    from annotations.services.taxonomy import install_preset

    call_command("migrate", verbosity=0)
    project = create_project(name="bench", taxonomy=install_preset(name="mafalda"))
    rss_before = max_rss_mib()
    started = time.perf_counter()
    report = import_mafalda_gold(path=corpus, project=project)
    seconds = time.perf_counter() - started
    rss_after_import = max_rss_mib()
    started = time.perf_counter()
    with open(os.devnull, "w", encoding="utf-8") as sink:
        exported = export_mafalda(project=project, out=sink)
    export_seconds = time.perf_counter() - started
    with connection.cursor() as cursor:
        cursor.execute(
            "select sqlite_version()" if connection.vendor == "sqlite" else "show server_version"
        )
        version = cursor.fetchone()[0]
    return {
        "backend": f"{connection.vendor} {version}",
        "texts": report.texts,
        "seconds": round(seconds, 2),
        "texts_per_second": round(report.texts / seconds),
        "spans": GoldSpan.objects.count(),
        "sentences": Sentence.objects.count(),
        "peak_rss_mib_before_import": round(rss_before, 1),
        "peak_rss_mib_after_import": round(rss_after_import, 1),
        "export_seconds": round(export_seconds, 2),
        "exported": exported,
    }


# --- driver --------------------------------------------------------------------------------


def run_worker(corpus: Path, database_url: str) -> dict:
    result = subprocess.run(
        [sys.executable, __file__, "--worker", str(corpus), database_url],
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise RuntimeError(result.stderr[-3000:])
    return json.loads(result.stdout.strip().splitlines()[-1])


def postgres_scratch(server_url: str) -> tuple[str, callable] | None:
    """A scratch database on the server and a function that drops it; None if unreachable."""
    try:
        import psycopg
    except ImportError:
        return None
    name = f"bench_import_{os.getpid()}"
    try:
        admin = psycopg.connect(server_url, autocommit=True, connect_timeout=3)
    except psycopg.OperationalError as error:
        print(f"PostgreSQL not reachable at {server_url}: {error}".strip())
        return None
    admin.execute(f'CREATE DATABASE "{name}"')
    parts = urlsplit(server_url)
    scratch_url = urlunsplit(parts._replace(path=f"/{name}"))

    def drop() -> None:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()

    return scratch_url, drop


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--texts", type=int, default=10_000)
    parser.add_argument("--backends", default="sqlite,postgresql")
    args = parser.parse_args()
    if not GOLD.exists():
        sys.exit(f"MAFALDA gold file not found at {GOLD}")
    print(f"CPU: {cpu_model()} ({os.cpu_count()} cores); Python {platform.python_version()}")
    with tempfile.TemporaryDirectory(prefix="bench-import-") as tmp:
        corpus = Path(tmp) / "corpus.jsonl"
        build_corpus(corpus, args.texts)
        size = corpus.stat().st_size / 2**20
        print(f"Corpus: {args.texts} texts, {size:.1f} MiB ({corpus.name}, from {GOLD.name})")
        results = []
        if "sqlite" in args.backends:
            results.append(run_worker(corpus, f"sqlite:///{Path(tmp) / 'bench.sqlite3'}"))
        if "postgresql" in args.backends:
            scratch = postgres_scratch(os.environ.get("DATABASE_URL", DEFAULT_POSTGRES))
            if scratch is not None:
                url, drop = scratch
                try:
                    results.append(run_worker(corpus, url))
                finally:
                    drop()
    for result in results:
        print(
            f"{result['backend']}: imported {result['texts']} texts in {result['seconds']} s "
            f"({result['texts_per_second']} texts/s; {result['spans']} spans, "
            f"{result['sentences']} sentences); peak RSS {result['peak_rss_mib_after_import']} "
            f"MiB (after migrate: {result['peak_rss_mib_before_import']} MiB); "
            f"export {result['exported']} texts in {result['export_seconds']} s"
        )


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--worker":
        print(json.dumps(worker(Path(sys.argv[2]), sys.argv[3])))
    else:
        main()
