"""Functions the bounded child runs in tests (``fallacy_platform.bounded.run_bounded``):
plain Python, no Django, so the child starts quickly."""

from __future__ import annotations

import time


def zeros(size: int) -> bytes:
    """``size`` zero bytes: handing them back pickles as much again."""
    return bytes(size)


def sleep(seconds: float) -> None:
    time.sleep(seconds)
