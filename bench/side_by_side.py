"""Two versions of the project side by side: ``annotate_api.py`` and ``read_api.py`` run
alternately on each, the same arguments, and every figure printed with the ratio new/old.

Each version is a detached git worktree (``/tmp/sbs-old`` at ``--old``, ``/tmp/sbs-new`` at
``--new``; made, or reused when already at that commit) sharing this checkout's ``.venv``
(and ``node_modules``) through symlinks; each version runs its own copy of the scripts
against its own code (checked first: ``annotations`` and ``fallacy_platform`` must import
from the worktree, not from this checkout). Each round runs every script once on each side,
the order of the sides swapped every round, so that a load that comes and goes slows both
alike. A side's figure is its median over the rounds; "worse" is the new version's slowdown
(latency up, throughput down) in per cent. The scripts' own output goes to
``--out/<script>-<side>-<round>.txt``.

    .venv/bin/python bench/side_by_side.py [--old f434bc3] [--new HEAD] [--rounds 3]
        [--annotate-args "--requests 300"] [--read-args "--documents 100000"]
        [--scripts annotate_api,read_api] [--out DIR]

Run it on a quiet machine: the two sides share its cores with the clients.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from servers import ROOT  # bench/ is the script's folder

SIDES = {"old": Path("/tmp/sbs-old"), "new": Path("/tmp/sbs-new")}
SHARED = (".venv", "node_modules")  # ignored by git: linked from this checkout
Figures = dict[str, float]

# --- the worktrees -------------------------------------------------------------------------------


def git(*args: str, cwd: Path = ROOT) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout.strip()


def worktree(path: Path, ref: str) -> Path:
    """A detached worktree of ``ref`` at ``path`` with the shared folders linked in; one
    already there at that commit is kept, one at another commit is replaced."""
    commit = git("rev-parse", "--verify", f"{ref}^{{commit}}")
    if path.exists():
        if (path / ".git").exists() and git("rev-parse", "HEAD", cwd=path) == commit:
            link_shared(path)
            return path
        git("worktree", "remove", "--force", str(path))
    git("worktree", "prune")  # a worktree whose folder is gone, e.g. /tmp emptied
    git("worktree", "add", "--detach", str(path), commit)
    link_shared(path)
    return path


def link_shared(path: Path) -> None:
    for name in SHARED:
        if (ROOT / name).exists() and not (path / name).exists():
            (path / name).symlink_to(ROOT / name)


def check_imports(path: Path) -> None:
    """The worktree's Python imports the worktree's packages (as the scripts set it up:
    the project root and ``platform/`` first on ``sys.path``), not this checkout's."""
    code = (
        f"import sys; sys.path[:0] = [{str(path)!r}, {str(path / 'platform')!r}];"
        "import annotations, evaluation, fallacy_platform;"
        "print(annotations.__file__, evaluation.__file__, fallacy_platform.__file__)"
    )
    out = subprocess.run(
        [str(path / ".venv" / "bin" / "python"), "-c", code],
        cwd=path,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    strays = [f for f in out if not Path(f).resolve().is_relative_to(path.resolve())]
    if strays:
        raise SystemExit(f"{path}: imports from outside the worktree: {strays}")


# --- the figures of each script ------------------------------------------------------------------


def annotate_figures(stdout: str, report: Path) -> Figures:
    """``annotate_api.py --json``'s latencies, throughput and CPU per request, by
    configuration and number of clients."""
    figures: Figures = {}
    for config in json.loads(report.read_text())["configs"]:
        for level in config["levels"]:
            at = f"{config['config']} {level['clients']:>2} clients"
            for op in ("create", "update", "all"):
                for q in ("p50_ms", "p95_ms", "p99_ms"):
                    figures[f"{at} {op:<6} {q}"] = level[op][q]
            figures[f"{at} req/s"] = level["throughput_rps"]
            for party, ms in level["cpu_ms_per_request"].items():
                figures[f"{at} CPU ms/request {party}"] = ms
    return figures


READ_BACKEND = re.compile(r"^(SQLite|PostgreSQL) .*: \d+ documents, ")
READ_ROW = re.compile(r"^  (\S.*?) +(\d+\.\d) +(\d+\.\d) +(\d+) +(\d+)$")
READ_THROUGHPUT = re.compile(r"^  throughput: (\d+) requests/s")


def read_figures(stdout: str, report: Path) -> Figures:
    """``read_api.py``'s p50/p95 per step and throughput, by backend (from its output)."""
    figures: Figures = {}
    backend = ""
    for line in stdout.splitlines():
        if match := READ_BACKEND.match(line):
            backend = match.group(1) + (" noprep" if "(no prepared statements)" in line else "")
        elif (match := READ_ROW.match(line)) and backend:
            figures[f"{backend}: {match.group(1)} p50 ms"] = float(match.group(2))
            figures[f"{backend}: {match.group(1)} p95 ms"] = float(match.group(3))
        elif (match := READ_THROUGHPUT.match(line)) and backend:
            figures[f"{backend}: throughput req/s"] = float(match.group(1))
    return figures


SCRIPTS: dict[str, Callable[[str, Path], Figures]] = {
    "annotate_api": annotate_figures,
    "read_api": read_figures,
}


def higher_is_better(name: str) -> bool:
    return "req/s" in name


# --- the rounds ----------------------------------------------------------------------------------


def run_script(side: Path, script: str, args: list[str], log: Path) -> Figures:
    """One run of ``bench/<script>.py`` in ``side``; its figures (SystemExit if it fails)."""
    report = log.with_suffix(".json")
    extra = ["--json", str(report)] if script == "annotate_api" else []
    command = [str(side / ".venv" / "bin" / "python"), f"bench/{script}.py", *args, *extra]
    started = time.monotonic()
    done = subprocess.run(command, cwd=side, capture_output=True, text=True)
    log.write_text(f"$ {shlex.join(command)}\n{done.stdout}\n--- stderr\n{done.stderr}")
    if done.returncode:
        raise SystemExit(f"{shlex.join(command)} failed ({done.returncode}); see {log}")
    figures = SCRIPTS[script](done.stdout, report)
    if not figures:
        raise SystemExit(f"no figures read from {log}")
    print(f"  {script} on {side}: {time.monotonic() - started:.0f} s", flush=True)
    return figures


def run_rounds(
    args: argparse.Namespace, sides: dict[str, Path], out: Path
) -> dict[str, dict[str, list[Figures]]]:
    """Every script once per side and round, the sides' order swapped each round."""
    runs: dict[str, dict[str, list[Figures]]] = {s: {n: [] for n in sides} for s in args.scripts}
    for round_no in range(args.rounds):
        print(f"round {round_no + 1} of {args.rounds}", flush=True)
        order = list(sides) if round_no % 2 == 0 else list(sides)[::-1]
        for script in args.scripts:
            script_args = shlex.split(
                args.annotate_args if script == "annotate_api" else args.read_args
            )
            for name in order:
                log = out / f"{script}-{name}-{round_no + 1}.txt"
                runs[script][name].append(run_script(sides[name], script, script_args, log))
    return runs


def print_side_by_side(script: str, runs: dict[str, list[Figures]], limit: float) -> int:
    """Each figure's median per side, new/old and the slowdown; the number over ``limit``."""
    old, new = runs["old"], runs["new"]
    names = [n for n in old[0] if all(n in r for r in old + new)]
    width = max(len(n) for n in names)
    print(f"\n{script}: median of {len(old)} round(s) per side")
    print(f"  {'figure':<{width}} {'old':>9} {'new':>9} {'new/old':>8} {'worse':>7}")
    over = 0
    for name in names:
        a = statistics.median(r[name] for r in old)
        b = statistics.median(r[name] for r in new)
        ratio = b / a if a else float("nan")
        worse = (1 / ratio - 1 if higher_is_better(name) else ratio - 1) * 100 if a and b else 0.0
        flag = "  <-- over" if worse > limit else ""
        over += worse > limit
        print(f"  {name:<{width}} {a:>9.2f} {b:>9.2f} {ratio:>8.3f} {worse:>6.1f}%{flag}")
    return over


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", default="f434bc3", help="the version compared against")
    parser.add_argument("--new", default="HEAD", help="the version measured")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--annotate-args", default="", help="annotate_api.py's arguments")
    parser.add_argument("--read-args", default="", help="read_api.py's arguments")
    parser.add_argument("--scripts", default=",".join(SCRIPTS), help="comma-separated")
    parser.add_argument("--limit", type=float, default=10.0, help="per cent worse flagged")
    parser.add_argument("--out", type=Path, help="the scripts' output (default: a temp folder)")
    args = parser.parse_args()
    args.scripts = [s.strip() for s in args.scripts.split(",") if s.strip()]
    unknown = set(args.scripts) - set(SCRIPTS)
    if unknown:
        parser.error(f"unknown scripts: {sorted(unknown)}")
    return args


def main() -> None:
    args = parse_args()
    refs = {"old": args.old, "new": args.new}
    sides = {name: worktree(path, refs[name]) for name, path in SIDES.items()}
    for name, path in sides.items():
        check_imports(path)
        print(f"{name}: {path} at {git('log', '-1', '--format=%h %s', cwd=path)[:100]}")
    out = args.out or Path(tempfile.mkdtemp(prefix="sbs-results-"))
    out.mkdir(parents=True, exist_ok=True)
    print(f"output of the scripts: {out}", flush=True)
    started = time.monotonic()
    runs = run_rounds(args, sides, out)
    over = sum(print_side_by_side(s, runs[s], args.limit) for s in args.scripts)
    print(
        f"\n{over} figure(s) more than {args.limit:g} % worse; {time.monotonic() - started:.0f} s"
    )


if __name__ == "__main__":
    main()
