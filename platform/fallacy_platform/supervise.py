"""A tiny process supervisor, standard library only (``manage.py serve`` execs it, so no
process with Django loaded stays behind just to wait; run as a script, not imported).

    python supervise.py '{"web": [...], "worker": [...]}' ['["/tmp/folder-to-remove"]']

Starts each named command in the current environment and directory, each in its own process
group (with its children), then watches them. One that exits (a crash, an out-of-memory kill)
is started again, after a back-off that doubles from 1 s to 60 s while it keeps dying within
a minute of its start and is back to 1 s once it stayed up a minute; what remained of its
process group is killed first. The others keep running meanwhile. Only SIGINT or SIGTERM to
the supervisor stops everything: SIGTERM to every group, SIGKILL after 20 s; the folders of
the second argument are then removed, and the supervisor exits with status 0.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time

GRACE_SECONDS = 20
STABLE_SECONDS = 60.0  # up this long: its next death restarts it after the shortest back-off
MAX_BACKOFF_SECONDS = 60.0
POLL_SECONDS = 0.2


def _signal_group(process: subprocess.Popen, sig: int) -> None:
    """Signals the process's group: the process, or what is left of it after it died."""
    try:
        os.killpg(process.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _start(name: str, command: list[str]) -> subprocess.Popen:
    sys.stderr.write(f"supervisor: starting {name}\n")
    return subprocess.Popen(command, start_new_session=True)


class Child:
    """One supervised command: its current process and its restart state."""

    def __init__(self, name: str, command: list[str]) -> None:
        self.name, self.command = name, command
        self.process = _start(name, command)
        self.started = time.monotonic()
        self.failures = 0  # deaths in a row, each within STABLE_SECONDS of its start
        self.restart_at: float | None = None

    def check(self, now: float) -> None:
        """Notices a death (and schedules the restart) or restarts when the back-off is over."""
        if self.restart_at is not None:
            if now >= self.restart_at:
                _signal_group(self.process, signal.SIGKILL)
                self.process = _start(self.name, self.command)
                self.started, self.restart_at = now, None
            return
        if self.process.poll() is None:
            return
        up = now - self.started
        self.failures = 1 if up >= STABLE_SECONDS else self.failures + 1
        delay = min(MAX_BACKOFF_SECONDS, 2.0 ** (self.failures - 1))
        sys.stderr.write(
            f"supervisor: {self.name} exited with status {self.process.returncode} after "
            f"{up:.0f} s; restarting it in {delay:g} s\n"
        )
        _signal_group(self.process, signal.SIGTERM)  # its children, if any are left
        self.restart_at = now + delay


def _stop(children: list[Child]) -> None:
    for child in children:
        _signal_group(child.process, signal.SIGTERM)
    deadline = time.monotonic() + GRACE_SECONDS
    for child in children:
        try:
            child.process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass
    for child in children:
        _signal_group(child.process, signal.SIGKILL)
        child.process.wait()


def supervise(commands: dict[str, list[str]], remove: list[str] | None = None) -> int:
    stopping: list[int] = []
    signal.signal(signal.SIGINT, lambda signum, frame: stopping.append(signum))
    signal.signal(signal.SIGTERM, lambda signum, frame: stopping.append(signum))
    children = [Child(name, command) for name, command in commands.items()]
    try:
        while not stopping:
            now = time.monotonic()
            for child in children:
                child.check(now)
            time.sleep(POLL_SECONDS)
    finally:
        _stop(children)
        for folder in remove or []:
            shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    folders = json.loads(sys.argv[2]) if len(sys.argv) > 2 else []
    sys.exit(supervise(json.loads(sys.argv[1]), folders))
