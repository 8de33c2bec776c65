"""Benchmark: the demo's preselected model run, watched as its run page shows it.

Launches, as the launch page does by default, the launch options' first suggested model (the
packaged SmolLM2 GGUF through ``transformers``, its suggested settings) with the zero-shot
variant at level 2 and the page's default decoding
(``runs.launch_options_api.launch_defaults``: 24 new tokens, what ``bench/eval_throughput.py``
measures), over the first ``--texts`` texts (the page's default sample is 2; ``--texts 200``
is the whole gold) of the demo's MAFALDA gold version (``make demo`` seeds it). The run goes
through ``manage.py evaluate --inline`` (this process's child supervises the runner process,
as a worker does), while this script samples what the run page reads (status, phase, done /
total, ETA: ``evaluation.runs.selectors.run_progress``) every ``--every`` seconds.

Printed: the samples, the time to the end of generation and to the scored run, the model
load the runner recorded, and the largest growth of the ETA between two samples once the
model has loaded (target: under 50%; the whole run under 2 minutes on an idle machine).

Usage (the demo's data folder, migrated and loaded with ``manage.py load_demo``):
    FALLACY_DATA_DIR=var .venv/bin/python bench/demo_run.py [--texts 2] [--every 2] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "bench"), str(ROOT), str(ROOT / "platform")]

from machine import describe_machine  # noqa: E402 (bench/ is the script's folder)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=2, help="the first N gold texts")
    parser.add_argument("--every", type=float, default=2.0, help="seconds between samples")
    parser.add_argument("--project", default="MAFALDA gold standard")
    parser.add_argument("--name", help="run name (default: demo run <time>)")
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        help="the launch page's seed is 0; another one misses the cache of earlier runs",
    )
    return parser.parse_args()


def launch(args: argparse.Namespace, model: dict, params: dict) -> subprocess.Popen:
    command = [
        sys.executable,
        str(ROOT / "manage.py"),
        "evaluate",
        "--project",
        args.project,
        "--gold-version",
        "1",
        "--backend",
        model["backend"],
        "--model",
        model["model"],
        "--backend-settings",
        json.dumps(model["settings"]),
        "--limit",
        str(args.texts),
        "--max-new-tokens",
        str(params["max_new_tokens"]),
        "--temperature",
        str(params["temperature"]),
        "--seed",
        str(params["seed"]),
        "--name",
        args.name or f"demo run {time.strftime('%H:%M:%S')}",
        "--inline",
    ]
    return subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def main() -> None:
    args = parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fallacy_platform.settings")
    import django

    django.setup()
    from evaluation.models import ModelRun
    from evaluation.runs.launch_options_api import launch_defaults
    from evaluation.runs.progress import load_seconds_of
    from evaluation.runs.selectors import run_progress, suggested_models

    model = suggested_models()[0]
    params = {**launch_defaults("spans")["params"], "seed": args.seed}  # the launch page's
    print(f"machine: {describe_machine()}")
    print(f"load average: {os.getloadavg()[0]:.2f} (1 min) at the start")
    print(f"model: {model['label']}: {model['model']} {model['settings']}; params {params}")
    before = ModelRun.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
    began = time.monotonic()
    child = launch(args, model, params)
    samples: list[tuple[float, str, str | None, float | None]] = []
    generated_at = None
    while child.poll() is None:
        time.sleep(args.every)
        run = ModelRun.objects.filter(pk__gt=before).order_by("pk").first()
        if run is None:
            continue
        found = run_progress(run)
        elapsed = time.monotonic() - began
        eta = None if found.eta_seconds is None else round(found.eta_seconds, 1)
        samples.append((elapsed, run.status, found.phase, eta))
        print(
            f"  {elapsed:6.1f} s  {run.status:<8} {found.phase or '-':<10} "
            f"{run.done}/{run.total}  ETA {eta if eta is not None else '-'}",
            flush=True,
        )
        if generated_at is None and run.status != ModelRun.Status.RUNNING and run.done:
            generated_at = elapsed
    total = time.monotonic() - began
    output = child.stdout.read().decode(errors="replace") if child.stdout else ""
    run = ModelRun.objects.filter(pk__gt=before).order_by("pk").first()
    if child.returncode or run is None:
        print(output)
        raise SystemExit(f"evaluate failed ({child.returncode})")
    loaded = [eta for _, status, phase, eta in samples if phase == "generating" and eta]
    growth = max((b / a - 1 for a, b in zip(loaded, loaded[1:], strict=False)), default=0.0)
    print(
        f"run {run.pk} {run.status}: {run.done}/{run.total} requests; generation ended by "
        f"{generated_at or total:.1f} s, the whole command {total:.1f} s; model load "
        f"{load_seconds_of(run.environment)} s; generation {run.generation_seconds:.1f} s"
    )
    print(f"largest ETA growth once loaded: {growth:+.0%} (target < +50%)")
    print(f"load average: {os.getloadavg()[0]:.2f} (1 min) at the end")


if __name__ == "__main__":
    main()
