"""Benchmark of the span scorer (pure Python, no Django).

1. The 14 MAFALDA systems x levels 0-2 x both profiles on the real data.
2. Synthetic corpora of 25k, 50k and 100k texts built from the 200 gold texts (each copy
   made unique by a suffix after the text, with GPT-3.5's raw outputs as predictions):
   texts/s per profile and the time ratios, which should grow linearly (100k/25k ~ 4).

Usage: .venv/bin/python bench/score.py [--data ../shared/datasets] [--sizes 25000 50000 100000]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from machine import describe_machine  # noqa: E402 (bench/ is the script's folder)

from evaluation.scoring import (  # noqa: E402
    Corpus,
    Predictions,
    TextGold,
    TextPrediction,
    read_gold,
    read_predictions,
    score,
)

PROFILES = ("paper", "mafalda-2024")


def synthetic(gold: Corpus, predictions: Predictions, size: int) -> tuple[Corpus, Predictions]:
    """``size`` texts cycling through the gold texts, each made unique by a suffix."""
    by_text = {prediction.text: prediction for prediction in predictions.texts}
    texts, outputs = [], []
    for index in range(size):
        source = gold.texts[index % len(gold.texts)]
        text = f"{source.text}#{index}"
        texts.append(TextGold(text, source.spans, f"synthetic:{index}"))
        prediction = by_text[source.text]
        outputs.append(TextPrediction(text, sentences=prediction.sentences, origin=f"syn:{index}"))
    return Corpus(texts), Predictions(outputs)


def timed(function, *args, **kwargs) -> tuple[float, float, object]:
    """(CPU seconds of this process, wall seconds, result). CPU time is the figure to
    compare: wall time also counts other processes competing for the cores."""
    cpu, wall = time.process_time(), time.perf_counter()
    result = function(*args, **kwargs)
    return time.process_time() - cpu, time.perf_counter() - wall, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "datasets")
    parser.add_argument("--sizes", type=int, nargs="+", default=[25_000, 50_000, 100_000])
    parser.add_argument("--bootstrap", type=int, default=1000, help="resamples per level")
    args = parser.parse_args()
    mafalda = args.data / "mafalda"
    print(f"machine: {describe_machine()}")

    gold = read_gold(mafalda / "datasets" / "gold_standard_dataset.jsonl")
    result_files = sorted((mafalda / "results").glob("*_level_2_results.jsonl"))
    load_time, _, runs = timed(lambda: [read_predictions(path) for path in result_files])
    print(f"load average: {os.getloadavg()[0]:.2f} (1 min); times are CPU seconds [wall]")
    print(f"\n[real data] read {len(runs)} result files in {load_time:.3f} s")
    for profile in PROFILES:
        elapsed, wall, _ = timed(
            lambda profile=profile: [
                score(gold, run, profile=profile, bootstrap_resamples=args.bootstrap)
                for run in runs
            ]
        )
        texts = len(runs) * len(gold)
        print(
            f"  {profile:>12}: {len(runs)} systems x 3 levels in {elapsed:.3f} s [{wall:.3f}]"
            f"  ({texts / elapsed:,.0f} texts/s, all levels per text)"
        )

    gpt = next(run for path, run in zip(result_files, runs, strict=True) if "gpt-3.5" in path.name)
    print(f"\n[synthetic] levels 0-2, bootstrap {args.bootstrap}, per-label and confusion on")
    print("  (paper F1 equals the real gpt-3.5 figure; mafalda-2024 F1 is lower because the")
    print("  suffix adds an uncovered gold range to texts whose last span reaches the end)")
    for profile in PROFILES:
        times = {}
        for size in args.sizes:
            corpus, predictions = synthetic(gold, gpt, size)
            elapsed, wall, report = timed(
                score, corpus, predictions, profile=profile, bootstrap_resamples=args.bootstrap
            )
            times[size] = elapsed
            f1 = report.levels[2].f1
            print(
                f"  {profile:>12} {size:>7,} texts: {elapsed:7.2f} s [{wall:6.2f}]"
                f"  {size / elapsed:>9,.0f} texts/s  (F1 level 2 = {f1:.4f})"
            )
        smallest = min(args.sizes)
        ratios = ", ".join(
            f"t({size:,})/t({smallest:,}) = {times[size] / times[smallest]:.2f}"
            f" (linear: {size / smallest:.1f})"
            for size in args.sizes
            if size != smallest
        )
        print(f"  {profile:>12} growth: {ratios}")


if __name__ == "__main__":
    main()
