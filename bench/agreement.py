"""Benchmark: every agreement figure of a synthetic project, as the Celery task computes it.

A stored project of N documents (default 1,000) × 3 annotators × ~6 sentences (texts built
from sentence templates, seeded), spans on ~40% of the sentences with MAFALDA types, some
alternatives and some "no fallacy" alternatives, all submitted. Times
``agreement_jobs.compute_payload`` (all levels: α MASI + Jaccard, per-label α, Cohen and
Fleiss κ, the disjunctive cross-comparison, co-occurrence, distributions, and per-document α
for every document), its parts, and nltk's own ``AnnotationTask.alpha`` on the same level-2
units beside ours.

Usage: .venv/bin/python bench/agreement.py [--documents 1000] [--annotators 3]
Uses DATABASE_URL when set (PostgreSQL), else a throw-away SQLite database.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "bench"), str(ROOT), str(ROOT / "platform")]

from machine import describe_machine  # noqa: E402 (bench/ is the script's folder)

WORDS = "people always say that the plan will fail because nobody trusts its author".split()
TYPES = [
    "ad hominem",
    "ad populum",
    "slippery slope",
    "appeal to fear",
    "causal oversimplification",
    "hasty generalization",
    "false dilemma",
    "strawman",
]


def setup_django() -> None:
    if not os.environ.get("DATABASE_URL"):
        os.environ["FALLACY_DATA_DIR"] = tempfile.mkdtemp(prefix="bench-agreement-")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fallacy_platform.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def build(documents: int, annotators: int, seed: int):
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from annotations.models import Annotation, Document, Sentence, Span
    from annotations.services.projects import create_project
    from annotations.services.taxonomy import install_preset

    rng = random.Random(seed)
    name = f"bench agreement {time.time_ns()}"
    project = create_project(name=name, taxonomy=install_preset(name="mafalda"))
    users = [get_user_model().objects.create(username=f"{name}-{i}") for i in range(annotators)]
    docs, parts_of, sentences = [], [], []
    for position in range(documents):
        parts = [
            " ".join(rng.choices(WORDS, k=rng.randint(6, 14))).capitalize() + "."
            for _ in range(rng.randint(4, 8))
        ]
        parts_of.append(parts)
        docs.append(Document(project=project, text=" ".join(parts), position=position))
    docs = Document.objects.bulk_create(docs)
    for doc, parts in zip(docs, parts_of, strict=True):
        start = 0
        for index, part in enumerate(parts):
            sentences.append(
                Sentence(document=doc, index=index, start=start, end=start + len(part))
            )
            start += len(part) + 1
    Sentence.objects.bulk_create(sentences, batch_size=2000)
    bounds: dict[int, list[tuple[int, int]]] = {}
    for s in sentences:
        bounds.setdefault(s.document_id, []).append((s.start, s.end))
    now = timezone.now()
    annotations = Annotation.objects.bulk_create(
        Annotation(document=d, annotator=u, status="submitted", submitted_at=now)
        for d in docs
        for u in users
    )
    spans = []
    for annotation in annotations:
        for start, end in bounds[annotation.document_id]:
            if rng.random() < 0.4:
                labels = {rng.choice(TYPES)}
                if rng.random() < 0.2:
                    labels.add(rng.choice(TYPES))
                if rng.random() < 0.1:
                    labels.add("no fallacy")
                spans.append(
                    Span(annotation=annotation, start=start, end=end, labels=sorted(labels))
                )
    Span.objects.bulk_create(spans, batch_size=2000)
    return project, len(sentences), len(spans)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--documents", type=int, default=1000)
    parser.add_argument("--annotators", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--skip-nltk", action="store_true")
    args = parser.parse_args()
    setup_django()
    from django.db import connection

    from evaluation import agreement_jobs
    from evaluation.agreement_data import project_work
    from evaluation.scoring import iaa

    started = time.perf_counter()
    project, sentence_count, span_count = build(args.documents, args.annotators, args.seed)
    built = time.perf_counter() - started
    print(f"machine: {describe_machine()}; database: {connection.vendor}")
    print(
        f"project: {args.documents} documents x {args.annotators} annotators, "
        f"{sentence_count} sentences, {span_count} spans (built in {built:.1f} s)"
    )

    t0 = time.perf_counter()
    payload = agreement_jobs.compute_payload(project, None)
    total = time.perf_counter() - t0

    work = project_work(project)
    t1 = time.perf_counter()
    levels = {level: agreement_jobs._level_figures(work, level) for level in (0, 1, 2)}
    t2 = time.perf_counter()
    agreement_jobs._per_document(work)
    t3 = time.perf_counter()
    agreement_jobs._cross_comparison(work, None)
    t4 = time.perf_counter()
    units = agreement_jobs._units(work, work.documents, 2)
    t5 = time.perf_counter()
    ours = iaa.alpha(units, "masi")
    t6 = time.perf_counter()
    print(f"every figure (compute_payload): {total:.2f} s  [target < 5 s]")
    print(f"  per-level figures (3 levels):  {t2 - t1:.2f} s")
    print(
        f"  per-document alpha ({len(work.documents)} docs x 3 levels x 2 distances): "
        f"{t3 - t2:.2f} s"
    )
    print(f"  disjunctive cross-comparison:  {t4 - t3:.2f} s")
    print(f"level-2 units: {len(units)}; alpha MASI ours: {ours.value:.4f} in {t6 - t5:.3f} s")
    if not args.skip_nltk:
        from nltk.metrics.agreement import AnnotationTask
        from nltk.metrics.distance import masi_distance

        data = [
            (coder, str(key), value) for key, row in units.items() for coder, value in row.items()
        ]
        t7 = time.perf_counter()
        theirs = AnnotationTask(data=data, distance=masi_distance).alpha()
        t8 = time.perf_counter()
        print(
            f"level-2 alpha MASI nltk AnnotationTask: {theirs:.4f} in {t8 - t7:.3f} s "
            f"(time ratio nltk / ours: {(t8 - t7) / max(t6 - t5, 1e-9):.2f}, same value: "
            f"{abs(theirs - ours.value) < 1e-9})"
        )
    figures = payload["levels"]["2"]
    print(
        f"figures (level 2): alpha MASI {figures['alpha']['masi']['value']:.3f}, Jaccard "
        f"{figures['alpha']['jaccard']['value']:.3f}, "
        f"Fleiss {figures['fleiss_kappa']['value']:.3f}, "
        f"{len(figures['labels'])} per-label alphas, {len(figures['cohen_kappa'])} Cohen pairs, "
        f"{len(figures['f1'])} F1 pairs"
    )
    assert levels[2]["alpha"]["masi"]["value"] == figures["alpha"]["masi"]["value"]


if __name__ == "__main__":
    main()
