"""A tiny process supervisor, standard library only (``manage.py serve`` execs it, so no
process with Django loaded stays behind just to wait; run as a script, not imported).

    python supervise.py '{"web": [...], "worker": [...]}'

Starts each named command in the current environment and directory, then waits. When one
exits, or on SIGINT/SIGTERM, it sends SIGTERM to all the others (each started in its own
process group, with its children), SIGKILL after 20 s, and exits with the status of the
first that ended (0 on a signal).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

GRACE_SECONDS = 20


def _signal_all(processes: dict[str, subprocess.Popen], sig: int) -> None:
    for process in processes.values():
        if process.poll() is None:
            try:
                os.killpg(process.pid, sig)
            except ProcessLookupError:
                pass


def supervise(commands: dict[str, list[str]]) -> int:
    stopping: list[int] = []
    signal.signal(signal.SIGINT, lambda signum, frame: stopping.append(0))
    signal.signal(signal.SIGTERM, lambda signum, frame: stopping.append(0))
    processes = {
        name: subprocess.Popen(command, start_new_session=True)
        for name, command in commands.items()
    }
    status = 0
    while not stopping:
        for name, process in processes.items():
            if process.poll() is not None:
                sys.stderr.write(f"{name} exited with status {process.returncode}\n")
                status = process.returncode or 1
                stopping.append(status)
                break
        else:
            time.sleep(0.5)
    _signal_all(processes, signal.SIGTERM)
    deadline = time.monotonic() + GRACE_SECONDS
    for process in processes.values():
        try:
            process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass
    _signal_all(processes, signal.SIGKILL)
    for process in processes.values():
        process.wait()
    return status


if __name__ == "__main__":
    sys.exit(supervise(json.loads(sys.argv[1])))
