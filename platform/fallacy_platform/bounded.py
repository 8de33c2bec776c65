"""Untrusted files parsed in a bounded child process.

``run_bounded("package.module:function", *args)`` starts a fresh Python (``python -m
fallacy_platform.bounded``, never a fork of a threaded web process) that sets its own hard
limits before it reads anything: ``RLIMIT_AS`` (``IMPORT_MEMORY_BYTES``), ``RLIMIT_CPU`` and a
wall-clock timeout (``IMPORT_SECONDS``), ``RLIMIT_FSIZE`` (``IMPORT_TEMP_BYTES``), and a
temporary folder of its own (``TMPDIR``) that the parent removes afterwards. It calls the
function and hands back its result (plain data) or its exception, pickled into a file of that
folder. Past a limit the parent raises ``LimitExceeded`` naming the limit and its setting.

Inside the child, code that reads the file checks the limits that are about the data
(``limit("IMPORT_MAX_UNPACKED_BYTES")``, ...) and raises ``LimitExceeded`` itself.
"""

from __future__ import annotations

import importlib
import os
import pickle
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

MIB = 1024 * 1024
#: The limits the child is given, by setting name (copied from ``settings`` by the parent).
LIMIT_SETTINGS = (
    "IMPORT_MEMORY_BYTES",
    "IMPORT_SECONDS",
    "IMPORT_TEMP_BYTES",
    "IMPORT_MAX_UNPACKED_BYTES",
    "IMPORT_MAX_ZIP_MEMBERS",
    "IMPORT_MAX_ROWS",
    "IMPORT_MAX_ROW_GROUP_BYTES",
)
_limits: dict[str, int] = {}
_PAYLOAD, _RESULT = "payload.pickle", "result.pickle"
NEEDS_MEMORY = "reading the file needs too much memory"
TOO_LONG = "reading the file took too long"


def size_text(value: int) -> str:
    for unit, factor in (("GiB", 1024 * MIB), ("MiB", MIB), ("KiB", 1024)):
        if value >= factor and value % factor == 0:
            return f"{value // factor} {unit}"
    return f"{value:,} bytes" if value >= 1024 else str(value)


class LimitExceeded(ValueError):
    """A limit of the parsing process was reached: ``setting`` names it."""

    def __init__(self, setting: str, message: str) -> None:
        self.setting = setting
        self.message = message
        super().__init__(setting, message)

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.setting, self.message))

    def __str__(self) -> str:
        value = _limits.get(self.setting)
        shown = "" if value is None else f" = {_shown(self.setting, value)}"
        return f"{self.message} (limit {self.setting}{shown})"


def _shown(setting: str, value: int) -> str:
    return f"{value} s" if setting.endswith("SECONDS") else size_text(value)


def limit(setting: str) -> int:
    """The value of a limit in this process: the child's copy, else ``settings``."""
    if setting not in _limits:
        from django.conf import settings

        _limits.update({name: int(getattr(settings, name)) for name in LIMIT_SETTINGS})
    return _limits[setting]


class ChildFailed(RuntimeError):
    """The child ended without a result, and not at a known limit."""

    def __init__(self, detail: str) -> None:
        self.detail = detail
        super().__init__(detail)

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.detail,))

    def __str__(self) -> str:
        return f"the parsing process failed: {self.detail}"


def run_bounded(target: str, *args: Any, django: bool = False, **kwargs: Any) -> Any:
    """``target(*args, **kwargs)`` run in a bounded child; its result, or its exception
    raised here. ``target`` is ``"module:function"``; ``django``: the child sets Django up
    first (for functions that import models; it never touches the database)."""
    limits = {name: limit(name) for name in LIMIT_SETTINGS}
    folder = Path(tempfile.mkdtemp(prefix="bounded-"))
    try:
        with (folder / _PAYLOAD).open("wb") as sink:
            pickle.dump((target, args, kwargs, limits, django), sink)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        try:
            done = subprocess.run(
                [sys.executable, "-m", "fallacy_platform.bounded", str(folder)],
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                timeout=limits["IMPORT_SECONDS"],
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise _with(limits, LimitExceeded("IMPORT_SECONDS", TOO_LONG)) from None
        return _outcome(folder, done, limits)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _with(limits: dict[str, int], error: LimitExceeded) -> LimitExceeded:
    _limits.update(limits)
    return error


def _outcome(folder: Path, done: subprocess.CompletedProcess, limits: dict[str, int]) -> Any:
    result = folder / _RESULT
    if result.is_file():
        with result.open("rb") as source:
            ok, value = pickle.load(source)  # written by this module's child, not by the file
        if ok:
            return value
        if isinstance(value, LimitExceeded):
            raise _with(limits, value)
        raise value
    stderr = done.stderr.decode("utf-8", "replace")
    if done.returncode in (-signal.SIGXCPU, -signal.SIGKILL) and "MemoryError" not in stderr:
        raise _with(limits, LimitExceeded("IMPORT_SECONDS", TOO_LONG))
    if done.returncode == -signal.SIGXFSZ:
        raise _with(limits, LimitExceeded("IMPORT_TEMP_BYTES", "the file unpacks too large"))
    if "MemoryError" in stderr or "bad_alloc" in stderr or "Out of memory" in stderr:
        raise _with(limits, LimitExceeded("IMPORT_MEMORY_BYTES", NEEDS_MEMORY))
    last = stderr.strip().splitlines()[-1:] or [f"exit status {done.returncode}"]
    raise ChildFailed(last[0][:200])


# --- the child ---------------------------------------------------------------------------------


def _set_limits(limits: dict[str, int]) -> None:
    memory, seconds = limits["IMPORT_MEMORY_BYTES"], limits["IMPORT_SECONDS"]
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 5))
    disk = limits["IMPORT_TEMP_BYTES"]
    resource.setrlimit(resource.RLIMIT_FSIZE, (disk, resource.RLIM_INFINITY))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past it fails (EFBIG) instead


def _child(folder: Path) -> None:
    with (folder / _PAYLOAD).open("rb") as source:
        target, args, kwargs, limits, django = pickle.load(source)
    (folder / _PAYLOAD).unlink()
    _limits.update(limits)
    work = folder / "tmp"
    work.mkdir()
    os.environ["TMPDIR"] = str(work)
    tempfile.tempdir = str(work)
    if django:
        import django as django_module

        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fallacy_platform.settings")
        django_module.setup()
    module_name, function_name = target.split(":")
    function = getattr(importlib.import_module(module_name), function_name)
    _set_limits(limits)
    try:
        outcome: tuple[bool, Any] = (True, function(*args, **kwargs))
    except MemoryError:
        outcome = (False, LimitExceeded("IMPORT_MEMORY_BYTES", NEEDS_MEMORY))
    except OSError as error:
        if error.errno == 27:  # EFBIG: RLIMIT_FSIZE
            outcome = (False, LimitExceeded("IMPORT_TEMP_BYTES", "the file unpacks too large"))
        else:
            outcome = (False, error)
    except Exception as error:  # noqa: BLE001 - handed to the parent, which raises it
        outcome = (False, error)
    shutil.rmtree(work, ignore_errors=True)
    resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    try:
        data = pickle.dumps(outcome)
    except Exception as error:  # noqa: BLE001 - an exception that does not pickle
        data = pickle.dumps((False, ChildFailed(f"{type(outcome[1]).__name__}: {error}")))
    (folder / _RESULT).write_bytes(data)


if __name__ == "__main__":
    _child(Path(sys.argv[1]))
