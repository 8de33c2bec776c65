"""The Results API, server-side: a board computed on every request vs the stored board.

Builds, in this process (a temporary ``FALLACY_DATA_DIR`` with the embedded SQLite default, or
a scratch PostgreSQL database made with ``bench/servers.py``):

(a) an item project with the FLUB preset and FLUB's 834 items (``../shared/datasets``),
    ``--models`` models x 2 fields (answer, type) finished item runs (default 20 x 2 = 40
    runs of 834 synthetic outputs each, scored by ``score_item_run``) and 3 annotators
    who answered 200 items each;
(b) the MAFALDA user study: its gold (20 texts) and the four annotators' work, plus
    ``--gold-runs`` finished runs of synthetic outputs (default 10), scored.

Then times, through Django's test client as a superuser (middleware, view, rendering; no
network), ``GET /api/evaluation/projects/ID/item-leaderboard/`` and
``GET /api/evaluation/leaderboard/?gold_standard=ID``:

- recompute: the board computed as every request did before boards were stored
  (``item_leaderboard`` / ``leaderboard`` and the JSON rendering, no store);
- cold: the first request (no stored board: compute, store, send);
- warm: the p50 and p95 of ``--requests`` requests (default 20) with the board stored.

Prints the machine, then one line per board with the figures side by side and the ratio.

    .venv/bin/python bench/results_api.py [--backend sqlite|postgresql] [--models 20]
        [--gold-runs 10] [--requests 20] [--db-url URL] [--db-name NAME]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from typing import Any

from machine import describe_machine  # bench/ is the script's folder
from servers import ROOT, add_db_url_argument, create_database, drop_database

SHARED = ROOT.parent / "shared" / "datasets"
FLUB = SHARED / "flub" / "FLUB.jsonl"
MAFALDA = SHARED / "mafalda" / "datasets"
STUDY_USERS = ("user1", "user2", "user4", "user5")
FIELDS = (("answer", "multiple-choice"), ("type", "classification"))


def setup_django() -> None:
    """Django in this process against the environment's database, migrated."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fallacy_platform.settings")
    sys.path[:0] = [str(ROOT), str(ROOT / "platform")]
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def _item_outputs(run: Any, documents: list[Any], field: str, labels: list[str], rng: Any) -> None:
    from evaluation.models import RunOutput

    rows = []
    for document in documents:
        gold = (document.metadata.get("gold") or {}).get(field)
        if field == "answer":
            answer = gold if gold and rng.random() < 0.6 else rng.choice("ABCD")
        else:
            answer = gold if gold and rng.random() < 0.4 else rng.choice(labels)
        if rng.random() < 0.03:
            answer = "I am not sure."
        raw = f"Let me think.\nAnswer: {answer}"
        rows.append(
            RunOutput(
                run=run,
                document=document,
                unit_index=0,
                unit_text=document.text,
                raw_output=raw,
                answer=str(answer),
            )
        )
    RunOutput.objects.bulk_create(rows, batch_size=1000)


def build_item_project(models: int, rng: random.Random) -> Any:
    """(a): the FLUB project, its runs (scored) and three annotators' responses."""
    from django.contrib.auth.models import User
    from django.utils import timezone

    from annotations.form_presets import FLUB_LABELS, form_preset
    from annotations.importing.items import import_items
    from annotations.models import Annotation, Document
    from annotations.services.projects import create_project
    from annotations.services.taxonomy import install_preset
    from evaluation.items.scorer import score_item_run
    from evaluation.models import ModelRun, PromptVariant

    project = create_project(
        name="bench FLUB results",
        taxonomy=install_preset(name="flub"),
        kind="items",
        form=form_preset("flub"),
    )
    import_items(path=FLUB, project=project, format="flub")
    documents = list(Document.objects.filter(project=project).order_by("position"))
    now = timezone.now()
    for index in range(models):
        for field, task in FIELDS:
            variant = PromptVariant.objects.get(task=task, name="zero-shot", version=1)
            run = ModelRun.objects.create(
                project=project,
                name=f"model {index} {field}",
                backend="vllm",
                model_name=f"org/model-{index}",
                task=task,
                field=field,
                prompt_variant=variant,
                status=ModelRun.Status.DONE,
                total=len(documents),
                done=len(documents),
                finished_at=now,
            )
            _item_outputs(run, documents, field, list(FLUB_LABELS), rng)
            score_item_run(run)
    for name in ("ann-a", "ann-b", "ann-c"):
        user = User.objects.create(username=name)
        answered = rng.sample(documents, 200)
        Annotation.objects.bulk_create(
            Annotation(
                document=document,
                annotator=user,
                status=Annotation.Status.SUBMITTED,
                submitted_at=now,
                response={"answer": rng.choice("ABCD"), "type": rng.choice(FLUB_LABELS)},
            )
            for document in answered
        )
    return project


def _gold_run(gold: Any, index: int, rng: random.Random) -> None:
    from annotations.models import Sentence
    from evaluation.models import ModelRun, PromptVariant, RunOutput
    from evaluation.runs.services import score_and_store

    labels = ["ad hominem", "appeal to fear", "slippery slope", "straw man", "false causality"]
    run = ModelRun.objects.create(
        project=gold.project,
        gold_standard=gold,
        name=f"gold run {index}",
        backend="vllm",
        model_name=f"org/span-model-{index}",
        task="mafalda-span",
        prompt_variant=PromptVariant.objects.get(task="mafalda", name="zero-shot", version=1),
        status=ModelRun.Status.DONE,
    )
    sentences = Sentence.objects.filter(document__in=gold.documents.all()).select_related(
        "document"
    )
    rows = []
    for sentence in sentences:
        label = rng.choice(labels) if rng.random() < 0.3 else "no fallacy"
        rows.append(
            RunOutput(
                run=run,
                document=sentence.document,
                unit_index=sentence.index,
                unit_text=sentence.document.text[sentence.start : sentence.end],
                raw_output=label,
                parsed_labels=[label],
            )
        )
    RunOutput.objects.bulk_create(rows)
    score_and_store(run=run)


def build_user_study(runs: int, rng: random.Random) -> Any:
    """(b): the MAFALDA user study gold, its four annotators and ``runs`` scored runs."""
    from django.contrib.auth.models import User

    from annotations.importing.datasets import import_doccano_annotations, import_mafalda_gold
    from annotations.services.projects import create_project
    from annotations.services.taxonomy import install_preset

    project = create_project(name="bench user study", taxonomy=install_preset(name="mafalda"))
    import_mafalda_gold(path=MAFALDA / "user_study_examples_with_labels.jsonl", project=project)
    for name in STUDY_USERS:
        user = User.objects.create(username=name)
        path = MAFALDA / "users_results" / f"{name}.jsonl"
        import_doccano_annotations(path=path, project=project, annotator=user)
    gold = project.gold_standards.get()
    for index in range(runs):
        _gold_run(gold, index, rng)
    return gold


def _timed(call: Any) -> tuple[float, Any]:
    started = time.perf_counter()
    result = call()
    return time.perf_counter() - started, result


def measure(client: Any, url: str, recompute: Any, requests: int) -> dict[str, float]:
    """Seconds: recompute (the old per-request work), cold and warm requests."""
    from evaluation.models import StoredBoard

    StoredBoard.objects.all().delete()
    before, _ = _timed(recompute)
    StoredBoard.objects.all().delete()
    cold, response = _timed(lambda: client.get(url))
    assert response.status_code == 200, response.content[:300]
    client.get(url)  # settles a board whose first computation scored imported runs
    warm = []
    for _ in range(requests):
        seconds, response = _timed(lambda: client.get(url))
        assert response.status_code == 200
        warm.append(seconds)
    warm.sort()
    return {
        "recompute": before,
        "cold": cold,
        "p50": statistics.median(warm),
        "p95": warm[min(len(warm) - 1, round(0.95 * (len(warm) - 1)))],
        "bytes": len(response.content),
    }


def run_bench(args: argparse.Namespace) -> list[tuple[str, dict[str, float]]]:
    from django.contrib.auth.models import User
    from django.test import Client

    from evaluation.items.leaderboard import item_leaderboard
    from evaluation.results.store import render
    from evaluation.runs.leaderboard import leaderboard

    rng = random.Random(7)
    built, project = _timed(lambda: build_item_project(args.models, rng))
    print(f"built (a) in {built:.1f} s: {args.models * len(FIELDS)} item runs x 834 items")
    built, gold = _timed(lambda: build_user_study(args.gold_runs, rng))
    print(f"built (b) in {built:.1f} s: user study gold, 4 annotators, {args.gold_runs} runs")
    client = Client(SERVER_NAME="localhost")
    client.force_login(User.objects.create_superuser("bench-admin", password="x" * 12))
    item_url = f"/api/evaluation/projects/{project.pk}/item-leaderboard/"
    gold_url = f"/api/evaluation/leaderboard/?gold_standard={gold.pk}"
    return [
        (
            f"(a) items, {args.models * len(FIELDS)} runs",
            measure(
                client,
                item_url,
                lambda: render(item_leaderboard(project=project)),
                args.requests,
            ),
        ),
        (
            f"(b) user study, {args.gold_runs} runs + 4 people",
            measure(
                client, gold_url, lambda: render(leaderboard(gold_standard=gold)), args.requests
            ),
        ),
    ]


def report(backend: str, rows: list[tuple[str, dict[str, float]]], requests: int) -> None:
    print(f"\n{describe_machine()}")
    print(f"backend {backend}; warm: {requests} requests; times in ms (server-side)")
    header = f"{'board':38} {'recompute':>10} {'cold':>10} {'warm p50':>10} {'warm p95':>10}"
    print(header + f" {'recompute/warm':>15} {'body KiB':>9}")
    for name, figures in rows:
        ratio = figures["recompute"] / figures["p50"]
        print(
            f"{name:38} {figures['recompute'] * 1000:10.1f} {figures['cold'] * 1000:10.1f} "
            f"{figures['p50'] * 1000:10.1f} {figures['p95'] * 1000:10.1f} {ratio:14.0f}x "
            f"{figures['bytes'] / 1024:9.0f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--models", type=int, default=20)
    parser.add_argument("--gold-runs", type=int, default=10)
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--db-name", default="bench_results_api")
    add_db_url_argument(parser)
    args = parser.parse_args()
    if not FLUB.exists() or not MAFALDA.exists():
        sys.exit(f"shared datasets not found under {SHARED}")
    os.environ["FALLACY_DATA_DIR"] = tempfile.mkdtemp(prefix="bench-results-")
    if args.backend == "postgresql":
        os.environ["DATABASE_URL"] = create_database(args.db_url, args.db_name)
    else:
        os.environ.pop("DATABASE_URL", None)  # the embedded SQLite in the data folder
    try:
        setup_django()
        report(args.backend, run_bench(args), args.requests)
    finally:
        if args.backend == "postgresql":
            from django.db import connections

            connections.close_all()
            drop_database(args.db_url, args.db_name)


if __name__ == "__main__":
    main()
