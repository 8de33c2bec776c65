"""Benchmark: every agreement figure of a synthetic project, in memory.

A seeded project-shaped data set: N documents (default 1,000) × 3 annotators × ~6 sentences
(4 to 8), spans on ~40% of the sentences (some crossing into the next one) with MAFALDA
types, drawn around a shared "true" label so that agreement is neither 0 nor 1, some
alternatives and some ⊥ ("no fallacy") alternatives, some sentences with no span (⊥).

Times computing EVERY figure of ``evaluation.scoring.iaa`` at levels 0, 1 and 2: the sentence
units, α (MASI and Jaccard), per-label α, Cohen's κ per pair, Fleiss' κ, co-occurrence,
distributions, and per-document α (MASI and Jaccard) for every document at every level;
then nltk's own ``AnnotationTask.alpha`` on the project-level units beside ours.

``--stored`` instead builds the project in the database (DATABASE_URL, else a throw-away
SQLite file) and times the Celery task's ``agreement.jobs.compute_payload`` (which adds the
disjunctive cross-comparison and the database reads).

Usage: .venv/bin/python bench/agreement.py [--documents 1000] [--annotators 3] [--stored]
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

from evaluation.scoring import NO_FALLACY, iaa, mafalda_mapping  # noqa: E402

LEVELS = (0, 1, 2)
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
    "appeal to anger",
    "guilt by association",
]
Doc = tuple[str, list[tuple[int, int]], dict[str, list[tuple[int, int, list[str]]]]]


def synthetic(documents: int, annotators: int, seed: int) -> list[Doc]:
    """``[(text, sentences, {annotator: [(start, end, labels)]})]``, seeded."""
    rng = random.Random(seed)
    names = [f"ann{i + 1}" for i in range(annotators)]
    out: list[Doc] = []
    for _ in range(documents):
        parts = [
            " ".join(rng.choices(WORDS, k=rng.randint(6, 14))).capitalize() + "."
            for _ in range(rng.randint(4, 8))
        ]
        sentences, start = [], 0
        for part in parts:
            sentences.append((start, start + len(part)))
            start += len(part) + 1
        truth = [rng.choice(TYPES) if rng.random() < 0.4 else None for _ in sentences]
        spans: dict[str, list[tuple[int, int, list[str]]]] = {name: [] for name in names}
        for name in names:
            for index, (s_start, s_end) in enumerate(sentences):
                label = truth[index]
                if rng.random() < 0.25:  # disagrees: another type, or nothing, or something
                    label = rng.choice([None, *TYPES])
                if label is None:
                    continue
                labels = {label}
                if rng.random() < 0.15:
                    labels.add(rng.choice(TYPES))
                if rng.random() < 0.08:
                    labels.add(NO_FALLACY)
                end = s_end
                if index + 1 < len(sentences) and rng.random() < 0.1:
                    end = sentences[index + 1][0] + 5  # spills into the next sentence
                spans[name].append((s_start + rng.randint(0, 3), end, sorted(labels)))
        out.append((" ".join(parts), sentences, spans))
    return out


def units_at(docs: list[Doc], mapping, level: int) -> list[dict]:
    """Per document: ``{(document, sentence): {annotator: value}}``."""
    out = []
    for number, (_, sentences, spans) in enumerate(docs):
        values = {
            name: iaa.unit_values(sentences, rows, mapping, level) for name, rows in spans.items()
        }
        out.append(
            {
                (number, index): {name: row[index] for name, row in values.items()}
                for index in range(len(sentences))
            }
        )
    return out


def spans_at(docs: list[Doc], mapping, level: int) -> list[dict]:
    return [
        {name: iaa.level_spans(rows, mapping, level) for name, rows in spans.items()}
        for _, _, spans in docs
    ]


def per_document(per_doc: list[dict]) -> list[list[float | None]]:
    groups = dict(enumerate(per_doc))
    by_distance = [iaa.alphas(groups, d) for d in iaa.DISTANCES]
    return [[results[g].value for results in by_distance] for g in groups]


def every_figure(docs: list[Doc]) -> tuple[dict, dict]:
    """Every figure at every level, and the seconds each part took."""
    mapping = mafalda_mapping()
    figures: dict = {}
    seconds: dict[str, float] = {}

    def timed(part: str, function, *args):
        t0 = time.perf_counter()
        result = function(*args)
        seconds[part] = seconds.get(part, 0.0) + time.perf_counter() - t0
        return result

    for level in LEVELS:
        per_doc = timed("sentence units", units_at, docs, mapping, level)
        units = {key: row for doc in per_doc for key, row in doc.items()}
        span_docs = timed("spans at the level", spans_at, docs, mapping, level)
        labels = sorted(mapping.labels_at(level))
        figures[level] = {
            "alpha": {d: timed("alpha", iaa.alpha, units, d) for d in iaa.DISTANCES},
            "labels": timed("per-label alpha", iaa.label_alphas, units, labels),
            "cohen": timed("Cohen kappa", iaa.cohen_kappas, units),
            "fleiss": timed("Fleiss kappa", iaa.fleiss_kappa, units),
            "cooccurrence": timed("co-occurrence", iaa.cooccurrence, span_docs),
            "distribution": timed("distribution", iaa.distribution, span_docs),
            "per_document": timed("per-document alpha", per_document, per_doc),
            "units": units,
        }
    return figures, seconds


def _fmt(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.4f}"


def in_memory(args: argparse.Namespace) -> None:
    docs = synthetic(args.documents, args.annotators, args.seed)
    sentences = sum(len(s) for _, s, _ in docs)
    spans = sum(len(rows) for _, _, by in docs for rows in by.values())
    print(f"machine: {describe_machine()}")
    print(
        f"data: {args.documents} documents x {args.annotators} annotators, {sentences} "
        f"sentences, {spans} spans (seed {args.seed}, in memory)"
    )
    t0 = time.perf_counter()
    import_libraries()
    print(f"library imports (once per worker): {time.perf_counter() - t0:.2f} s")
    t0 = time.perf_counter()
    figures, seconds = every_figure(docs)
    total = time.perf_counter() - t0
    print(f"every figure, levels 0, 1, 2: {total:.2f} s  [target < 5 s]")
    for part, value in seconds.items():
        print(f"  {part:<22} {value:6.3f} s")
    for level in LEVELS:
        f = figures[level]
        defined = [r.value for r in f["labels"].values() if r.value is not None]
        per_doc = [masi for masi, _ in f["per_document"] if masi is not None]
        cohen = ", ".join(f"{c['a']}-{c['b']} {_fmt(c['kappa'])}" for c in f["cohen"])
        print(
            f"level {level}: {f['alpha']['masi'].units} units; alpha MASI "
            f"{_fmt(f['alpha']['masi'].value)}, Jaccard {_fmt(f['alpha']['jaccard'].value)}; "
            f"Fleiss {_fmt(f['fleiss']['value'])}; Cohen {cohen}"
        )
        print(
            f"  per-label alpha: {len(defined)}/{len(f['labels'])} defined, mean "
            f"{sum(defined) / max(len(defined), 1):.4f}; per-document MASI alpha: "
            f"{len(per_doc)}/{len(f['per_document'])} defined, mean "
            f"{sum(per_doc) / max(len(per_doc), 1):.4f}; co-occurrence "
            f"{len(f['cooccurrence']['labels'])}x{len(f['cooccurrence']['labels'])}, "
            f"total {sum(map(sum, f['cooccurrence']['counts']))}; distribution "
            f"{ {k: sum(v) for k, v in f['distribution']['annotators'].items()} }"
        )
    if args.skip_nltk:
        return
    from nltk.metrics.agreement import AnnotationTask
    from nltk.metrics.distance import jaccard_distance, masi_distance

    for level in LEVELS:
        units = figures[level]["units"]
        data = [(c, str(key), value) for key, row in units.items() for c, value in row.items()]
        for name, function in (("masi", masi_distance), ("jaccard", jaccard_distance)):
            t1 = time.perf_counter()
            ours = iaa.alpha(units, name).value
            t2 = time.perf_counter()
            theirs = AnnotationTask(data=data, distance=function).alpha()
            t3 = time.perf_counter()
            print(
                f"level {level} alpha {name}: ours {_fmt(ours)} in {t2 - t1:.3f} s; nltk "
                f"AnnotationTask {theirs:.4f} in {t3 - t2:.3f} s (same: "
                f"{ours is not None and abs(ours - theirs) < 1e-9})"
            )


# --- --stored: the same through the database and the Celery task's code ---------------


def setup_django() -> None:
    if not os.environ.get("DATABASE_URL"):
        os.environ["FALLACY_DATA_DIR"] = tempfile.mkdtemp(prefix="bench-agreement-")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fallacy_platform.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def build(documents: int, annotators: int, seed: int):
    """The same synthetic data as a stored project, every annotation submitted."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from annotations.models import Annotation, Document, Sentence, Span
    from annotations.services.projects import create_project
    from annotations.services.taxonomy import install_preset

    data = synthetic(documents, annotators, seed)
    name = f"bench agreement {time.time_ns()}"
    project = create_project(name=name, taxonomy=install_preset(name="mafalda"))
    names = list(data[0][2]) if data else []
    users = {n: get_user_model().objects.create(username=f"{name}-{n}") for n in names}
    docs = Document.objects.bulk_create(
        Document(project=project, text=text, position=position)
        for position, (text, _, _) in enumerate(data)
    )
    sentences = [
        Sentence(document=doc, index=index, start=start, end=end)
        for doc, (_, bounds, _) in zip(docs, data, strict=True)
        for index, (start, end) in enumerate(bounds)
    ]
    Sentence.objects.bulk_create(sentences, batch_size=2000)
    now = timezone.now()
    annotations = Annotation.objects.bulk_create(
        Annotation(document=doc, annotator=users[n], status="submitted", submitted_at=now)
        for doc in docs
        for n in names
    )
    by_key = {(a.document_id, a.annotator_id): a for a in annotations}
    spans = [
        Span(annotation=by_key[doc.pk, users[n].pk], start=start, end=end, labels=labels)
        for doc, (_, _, by_name) in zip(docs, data, strict=True)
        for n, rows in by_name.items()
        for start, end, labels in rows
    ]
    Span.objects.bulk_create(spans, batch_size=2000)
    return project, len(sentences), len(spans)


def import_libraries() -> None:
    """The agreement libraries: a worker imports them once, so they are timed apart."""
    import krippendorff  # noqa: F401
    import nltk.metrics.distance  # noqa: F401
    import statsmodels.stats.inter_rater  # noqa: F401


def stored(args: argparse.Namespace) -> None:
    """Build the project in the database and time the Celery task's computation."""
    setup_django()
    from django.db import connection

    from evaluation.agreement import jobs as agreement_jobs

    started = time.perf_counter()
    project, sentence_count, span_count = build(args.documents, args.annotators, args.seed)
    built = time.perf_counter() - started
    print(f"machine: {describe_machine()}; database: {connection.vendor}")
    print(
        f"project: {args.documents} documents x {args.annotators} annotators, "
        f"{sentence_count} sentences, {span_count} spans (stored in {built:.1f} s)"
    )
    t0 = time.perf_counter()
    import_libraries()
    print(f"library imports (once per worker, as in memory mode): {time.perf_counter() - t0:.2f} s")
    t0 = time.perf_counter()
    payload = agreement_jobs.compute_payload(project, None)
    total = time.perf_counter() - t0
    print(
        f"every figure (agreement_jobs.compute_payload, with the reads): {total:.2f} s  "
        "[target < 5 s]"
    )
    for level in map(str, LEVELS):
        figures = payload["levels"][level]
        print(
            f"level {level}: alpha MASI {_fmt(figures['alpha']['masi']['value'])}, Jaccard "
            f"{_fmt(figures['alpha']['jaccard']['value'])}, Fleiss "
            f"{_fmt(figures['fleiss_kappa']['value'])}, {len(figures['cohen_kappa'])} Cohen "
            f"pairs, {len(figures['f1'])} F1 pairs, {len(payload['per_document'])} documents"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--documents", type=int, default=1000)
    parser.add_argument("--annotators", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--skip-nltk", action="store_true")
    parser.add_argument("--stored", action="store_true", help="time the Celery task instead")
    args = parser.parse_args()
    if args.stored:
        stored(args)
    else:
        in_memory(args)


if __name__ == "__main__":
    main()
