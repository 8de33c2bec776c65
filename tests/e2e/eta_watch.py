"""What the run page shows while a run goes on, sampled every second in several pages at
once: its status, the requests done and the ETA it displays (``RunProgress``), and the
checks a user relies on: the ETA never stands still for more than 10 s while requests are
being answered, and (on a quiet machine: the first batch replaces the prior, and a machine
whose load changes mid-run changes the speed) never grows by more than 10 %."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from playwright.sync_api import Page

#: "ETA 1 min 05 s", "about 42 s once started", "finishing"
SHOWN = re.compile(r"(?:ETA|about) ((?:<?\d+ (?:d|h|min|s)\s?)+)|(finishing)")
UNITS = {"d": 86400, "h": 3600, "min": 60, "s": 1}
#: the steps before any request can be answered (the ETA may stand still while the load
#: overruns the estimate)
BEFORE_THE_MODEL = re.compile(r"waiting for a worker|starting the runner|loading the model")
GROWTH = 0.10
STILL_SECONDS = 10.0


def shown_seconds(text: str) -> float | None:
    """The seconds an ETA text shows (0 for "finishing"), None when it shows none."""
    found = SHOWN.search(text)
    if found is None:
        return None
    if found.group(2):
        return 0.0
    parts = re.findall(r"<?(\d+) (d|h|min|s)", found.group(1))
    return float(sum(int(n) * UNITS[unit] for n, unit in parts))


@dataclass
class Sample:
    at: float
    status: str
    done: int
    total: int
    text: str
    eta: float | None


@dataclass
class Watched:
    page: Page
    samples: list[Sample] = field(default_factory=list)

    def sample(self, at: float) -> Sample:
        status = self.page.get_by_test_id("run-status").inner_text().strip().lower()
        # read at once what is on the page now: the bar and the ETA go when the run ends,
        # and a locator that waits for them would wait for an element that is gone
        bars = self.page.get_by_test_id("run-progress").evaluate_all(
            "bars => bars.map(b => ['aria-valuenow', 'aria-valuemax'].map(a => b.getAttribute(a)))"
        )
        done, total = (int(value or 0) for value in bars[0]) if bars else (0, 0)
        etas = self.page.get_by_test_id("run-eta").all_inner_texts()
        text = etas[0] if etas else ""
        found = Sample(at, status, done, total, text, shown_seconds(text))
        self.samples.append(found)
        return found


def watch(pages: list[Page], *, until: float, every: float = 1.0) -> list[Watched]:
    """Sample every page each ``every`` seconds until all show a finished run or the
    monotonic time ``until``."""
    watched = [Watched(page) for page in pages]
    while time.monotonic() < until:
        now = time.monotonic()
        found = [w.sample(now) for w in watched]
        if all(s.status in ("done", "failed", "cancelled") for s in found):
            break
        time.sleep(max(every - (time.monotonic() - now), 0.0))
    return watched


def eta_growth(samples: list[Sample]) -> list[str]:
    """Where the displayed ETA grew by more than 10 % (1 s at least: the display rounds to
    the second)."""
    shown = [s for s in samples if s.eta is not None]
    return [
        f"grew from {before.text!r} to {after.text!r} at {after.at:.0f}"
        for before, after in zip(shown, shown[1:], strict=False)
        if after.eta > max(before.eta * (1 + GROWTH), before.eta + 1)
    ]


def eta_standing_still(samples: list[Sample]) -> list[str]:
    """Where the displayed ETA stayed the same for more than 10 s while the run answered
    requests (its model loaded, requests left)."""
    problems: list[str] = []
    same_since: Sample | None = None
    for sample in samples:
        answering = (
            sample.status == "running"
            and sample.done < sample.total
            and not BEFORE_THE_MODEL.search(sample.text)
        )
        if not answering or same_since is None or sample.text != same_since.text:
            same_since = sample if answering else None
            continue
        if sample.at - same_since.at > STILL_SECONDS:
            problems.append(f"{sample.text!r} unchanged for {sample.at - same_since.at:.0f} s")
            same_since = sample
    return problems


def write_timeline(samples: list[Sample], start: float, path: Path) -> None:
    """The samples as lines of seconds since ``start``, status, done / total and the text,
    then where the ETA grew by more than 10 %."""
    lines = [f"{s.at - start:7.1f} s  {s.status:<9} {s.done}/{s.total}  {s.text}" for s in samples]
    path.write_text("\n".join([*lines, *eta_growth(samples)]) + "\n")
