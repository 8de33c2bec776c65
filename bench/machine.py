"""The machine a benchmark ran on, printed with its figures."""

import os
import platform
from pathlib import Path


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def machine_facts() -> dict[str, str | int | None]:
    return {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "system": platform.platform(),
    }


def describe_machine() -> str:
    facts = machine_facts()
    return (
        f"{facts['cpu']}; {facts['cores']} logical cores; Python {facts['python']} "
        f"on {facts['system']}"
    )
