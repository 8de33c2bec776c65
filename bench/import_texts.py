"""Benchmark: ``manage.py import_dataset --format text`` of 10,000 plain texts.

    .venv/bin/python bench/import_texts.py [--texts 10000] [--backends sqlite,postgresql]
        [--splitters default,pysbd] [--db-url postgres://…/postgres] [--without-search-index]

The corpus is synthetic and deterministic (seed ``SEED``): each text is a run of the 200
MAFALDA gold texts (``../shared/datasets/mafalda``), drawn at random and joined by newlines,
cut at the first space after a length drawn uniformly from 200–5,000 characters (so texts
are 200–5,000 characters, about 2,600 on average: 26 MB for 10,000). A text drawn twice is
drawn again, so the importer (which refuses repeated texts) takes them all. The file is
``.txt``: texts separated by a blank line, none inside a text.

For every backend and splitter the import runs as a subprocess, as a user runs it: the
embedded default (a temp ``FALLACY_DATA_DIR``, no ``DATABASE_URL``/``CELERY_BROKER_URL``:
SQLite) or a scratch PostgreSQL database (``bench/servers.py``); ``migrate`` first, untimed,
then the import timed from start to exit (Django start-up included), and the import alone
as the command reports it (wall and CPU seconds of ``import_dataset``'s work; on PostgreSQL
the documents join the search's trigram indexes after its commit, printed apart).
``--splitters default,pysbd`` also runs the import with the previous splitter
(``FALLACY_SENTENCE_SPLITTER=pysbd``) for a side-by-side ratio; ``--without-search-index``
also imports into PostgreSQL with the document search's trigram indexes dropped (what
maintaining them costs an import). The splitter alone (no
database) is timed on the same texts in this process. docs/s = texts / seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from machine import describe_machine  # bench/ is the script's folder

ROOT = Path(__file__).resolve().parents[1]
GOLD = ROOT.parent / "shared" / "datasets" / "mafalda" / "datasets" / "gold_standard_dataset.jsonl"
SEED = 14
MIN_CHARS, MAX_CHARS = 200, 5000


def gold_texts() -> list[str]:
    """The 200 MAFALDA gold texts, stripped, with no blank line inside."""
    with GOLD.open(encoding="utf-8") as stream:
        texts = [json.loads(line)["text"] for line in stream]
    return [re.sub(r"\n\s*\n", "\n", text.strip()) for text in texts]


def build_texts(count: int, seed: int = SEED) -> list[str]:
    """``count`` distinct texts of 200–5,000 characters made of MAFALDA gold texts."""
    pieces = gold_texts()
    rng = random.Random(seed)
    texts: list[str] = []
    seen: set[str] = set()
    while len(texts) < count:
        target = rng.randint(MIN_CHARS, MAX_CHARS)
        parts: list[str] = []
        length = 0
        while length < target:
            piece = rng.choice(pieces)
            parts.append(piece)
            length += len(piece) + 1
        text = "\n".join(parts)
        cut = text.find(" ", target)
        text = text[: cut if 0 < cut <= MAX_CHARS else MAX_CHARS].rstrip()
        if len(text) >= MIN_CHARS and text not in seen:
            seen.add(text)
            texts.append(text)
    return texts


def write_corpus(path: Path, texts: list[str]) -> None:
    path.write_text("\n\n".join(texts) + "\n", encoding="utf-8")


# --- one import, in a subprocess --------------------------------------------------------------


def _env(
    data_dir: Path, database_url: str | None, splitter: str, root: Path = ROOT
) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DATABASE_URL", "CELERY_BROKER_URL", "FALLACY_SENTENCE_SPLITTER")
    }
    env.update(FALLACY_DATA_DIR=str(data_dir), PYTHONPATH=f"{root / 'platform'}:{root}")
    if database_url:
        env["DATABASE_URL"] = database_url
    if splitter != "default":
        env["FALLACY_SENTENCE_SPLITTER"] = splitter
    return env


SEARCH_INDEXES = ("document_text_trgm", "document_name_trgm")  # migration 0004


def run_import(
    corpus: Path,
    data_dir: Path,
    database_url: str | None,
    splitter: str,
    root: Path = ROOT,
    search_index: bool = True,
) -> dict:
    env = _env(data_dir, database_url, splitter, root)
    manage = [sys.executable, str(root / "manage.py")]
    subprocess.run([*manage, "migrate", "-v", "0"], env=env, cwd=root, check=True)
    if not search_index:  # PostgreSQL: what the trigram indexes of the search cost
        import psycopg

        with psycopg.connect(database_url, autocommit=True) as conn:
            for index in SEARCH_INDEXES:
                conn.execute(f"DROP INDEX IF EXISTS {index}")
    started = time.perf_counter()
    result = subprocess.run(
        [*manage, "import_dataset", str(corpus), "--format", "text", "--project", "bench"],
        env=env,
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - started
    if result.returncode != 0:
        raise RuntimeError(result.stderr[-3000:])
    sentences = re.search(r"\((\d+) sentences stored\)", result.stdout)
    inside = re.search(r"in ([\d.]+) s \(.* ([\d.]+) s CPU\)", result.stdout)
    indexed = re.search(r"search index: \d+ documents added in ([\d.]+) s", result.stdout)
    return {
        "index_seconds": float(indexed.group(1)) if indexed else None,
        "seconds": seconds,
        "sentences": int(sentences.group(1)) if sentences else None,
        "import_seconds": float(inside.group(1)) if inside else None,
        "import_cpu_seconds": float(inside.group(2)) if inside else None,
    }


def splitter_rate(texts: list[str], splitter: str) -> tuple[float, int]:
    """(texts/s, sentences) of ``split_sentences`` alone, in this process."""
    sys.path[:0] = [str(ROOT)]
    os.environ.pop("FALLACY_SENTENCE_SPLITTER", None)
    if splitter != "default":
        os.environ["FALLACY_SENTENCE_SPLITTER"] = splitter
    import importlib

    import annotations.importing.sentences as sentences

    sentences = importlib.reload(sentences)  # picks up the environment's splitter
    sentences.split_sentences(texts[0])  # load the splitter's model before timing
    started = time.perf_counter()
    count = sum(len(sentences.split_sentences(text)) for text in texts)
    return len(texts) / (time.perf_counter() - started), count


def describe(result: dict, texts: int, size: float) -> str:
    """One import's line: the command, the import as it reports it, the search index after."""
    inside, index = result["import_seconds"], result["index_seconds"]
    line = (
        f"{texts} texts, {result['sentences']} sentences; command {result['seconds']:.2f} s ="
        f" {texts / result['seconds']:,.0f} docs/s (start-up included)"
    )
    if inside:
        line += (
            f"; import {inside:.2f} s = {texts / inside:,.0f} docs/s,"
            f" {size / inside:.1f} MB/s ({result['import_cpu_seconds']:.2f} s CPU)"
        )
    if index:
        line += f"; then the search index {index:.2f} s"
    return line


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--texts", type=int, default=10_000)
    parser.add_argument("--backends", default="sqlite", help="sqlite,postgresql")
    parser.add_argument("--splitters", default="default", help="default,pysbd")
    parser.add_argument(
        "--db-url",
        default=os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres"),
        help="a PostgreSQL database to connect to for CREATE/DROP DATABASE",
    )
    parser.add_argument(
        "--compare-with",
        type=Path,
        help="another version of the project (e.g. `git archive HEAD | tar -x -C DIR`) whose"
        " import_dataset runs on the same corpus and backends, for a side-by-side ratio",
    )
    parser.add_argument(
        "--without-search-index",
        action="store_true",
        help="PostgreSQL: also import once with the document search's trigram indexes dropped"
        " (migration 0004), to show what maintaining them costs",
    )
    return parser.parse_args()


def import_once(
    args: argparse.Namespace,
    backend: str,
    variant: tuple[Path, str, bool],
    corpus: Path,
    tmp: str,
) -> dict:
    """One ``import_dataset`` of the corpus by ``variant`` ((checkout, splitter, with the
    search index)) into a fresh data folder, on PostgreSQL into a scratch database."""
    root, splitter, search_index = variant
    data_dir = Path(tempfile.mkdtemp(prefix="data-", dir=tmp))
    database_url, drop = None, None
    if backend == "postgresql":
        from servers import create_database, drop_database

        name = f"bench_import_texts_{os.getpid()}"
        database_url = create_database(args.db_url, name)
        drop = lambda name=name: drop_database(args.db_url, name)  # noqa: E731
    try:
        return run_import(corpus, data_dir, database_url, splitter, root, search_index)
    finally:
        if drop is not None:
            drop()


def main() -> None:
    args = parse_args()
    if not GOLD.exists():
        sys.exit(f"MAFALDA gold file not found at {GOLD}")
    print(f"Machine: {describe_machine()}")
    texts = build_texts(args.texts)
    splitters = [s.strip() for s in args.splitters.split(",") if s.strip()]
    with tempfile.TemporaryDirectory(prefix="bench-import-texts-") as tmp:
        corpus = Path(tmp) / "corpus.txt"
        write_corpus(corpus, texts)
        size = corpus.stat().st_size / 1e6
        lengths = sorted(len(text) for text in texts)
        print(
            f"Corpus: {len(texts)} texts, {size:.1f} MB, {lengths[0]}–{lengths[-1]} characters"
            f" (median {lengths[len(lengths) // 2]}), seed {SEED}"
        )
        for splitter in splitters:
            rate, count = splitter_rate(texts, splitter)
            print(f"Splitter {splitter}: {rate:,.0f} texts/s alone ({count} sentences)")
        runs = [(ROOT, splitter, True) for splitter in splitters]
        if args.compare_with:
            runs.append((args.compare_with.resolve(), "default", True))
        for backend in [b.strip() for b in args.backends.split(",") if b.strip()]:
            variants = runs
            if backend == "postgresql" and args.without_search_index:
                variants = [*runs, (ROOT, "default", False)]
            for root, splitter, search_index in variants:
                result = import_once(args, backend, (root, splitter, search_index), corpus, tmp)
                label = f"splitter {splitter}" if root == ROOT else f"{root} (its default)"
                if not search_index:
                    label += ", without the search's trigram indexes"
                print(f"{backend} / {label}: {describe(result, len(texts), size)}")


if __name__ == "__main__":
    main()
