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
import logging
import os
import pickle
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)
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
    "IMPORT_MAX_TEXT_CHARS",
)
_limits: dict[str, int] = {}  # in the child only: the limits its parent gave it
_PAYLOAD, _RESULT = "payload.pickle", "result.pickle"
#: The peak resident memory of the last child that handed back a result (for tests, logs).
last_peak_bytes = 0
NEEDS_MEMORY = "reading the file needs too much memory"
TOO_LONG = "reading the file took too long"
UNPACKS_TOO_LARGE = "the archive unpacks to more than the limit"


def size_text(value: int) -> str:
    for unit, factor in (("GiB", 1024 * MIB), ("MiB", MIB), ("KiB", 1024)):
        if value >= factor and value % factor == 0:
            return f"{value // factor} {unit}"
    return f"{value:,} bytes" if value >= 1024 else str(value)


class LimitExceeded(Exception):
    """A limit of the parsing process was reached: ``setting`` names it, ``value`` its value."""

    def __init__(self, setting: str, message: str, value: int | None = None) -> None:
        self.setting = setting
        self.message = message
        self.value = limit(setting) if value is None else value
        super().__init__(setting, message, self.value)

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.setting, self.message, self.value))

    def __str__(self) -> str:
        shown = f"{self.value} s" if self.setting.endswith("SECONDS") else size_text(self.value)
        return f"{self.message} (limit {self.setting} = {shown})"


def limit(setting: str) -> int:
    """The value of a limit: the child's copy in the child, else ``settings``."""
    if _limits:
        return _limits[setting]
    from django.conf import settings

    return int(getattr(settings, setting))


def check_archive(archive: zipfile.ZipFile) -> None:
    """A .zip's member count and declared unpacked sizes within the limits, before anything is
    unpacked (what is unpacked is counted as it streams, too: ``zipfile`` stops a member at its
    declared size)."""
    infos = archive.infolist()
    if len(infos) > limit("IMPORT_MAX_ZIP_MEMBERS"):
        raise LimitExceeded("IMPORT_MAX_ZIP_MEMBERS", f"the archive has {len(infos)} members")
    if sum(info.file_size for info in infos) > limit("IMPORT_MAX_UNPACKED_BYTES"):
        raise LimitExceeded("IMPORT_MAX_UNPACKED_BYTES", UNPACKS_TOO_LARGE)


class ChildFailed(RuntimeError):
    """The child ended without a result, and not at a known limit."""

    def __init__(self, detail: str) -> None:
        self.detail = detail
        super().__init__(detail)

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.detail,))

    def __str__(self) -> str:
        return f"the parsing process failed: {self.detail}"


def run_bounded(target: str, *args: Any, **kwargs: Any) -> Any:
    """``target(*args, **kwargs)`` run in a bounded child; its result, or its exception
    raised here. ``target`` is ``"module:function"`` of a module that imports no Django
    models (the child does not set Django up)."""
    limits = {name: limit(name) for name in LIMIT_SETTINGS}
    folder = Path(tempfile.mkdtemp(prefix="bounded-"))
    try:
        with (folder / _PAYLOAD).open("wb") as sink:
            pickle.dump((target, args, kwargs, limits), sink)
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(p for p in sys.path if p),
            "FALLACY_BOUNDED_CHILD": "1",  # the package skips loading Celery
        }
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
            raise LimitExceeded("IMPORT_SECONDS", TOO_LONG) from None
        return _outcome(folder, done)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _outcome(folder: Path, done: subprocess.CompletedProcess) -> Any:
    result = folder / _RESULT
    if result.is_file():
        global last_peak_bytes
        with result.open("rb") as source:
            # written by this module's child, not by the file it read
            ok, value, last_peak_bytes = pickle.load(source)
        if ok:
            return value
        raise value
    stderr = done.stderr.decode("utf-8", "replace")
    if done.returncode in (-signal.SIGXCPU, -signal.SIGKILL) and "MemoryError" not in stderr:
        raise LimitExceeded("IMPORT_SECONDS", TOO_LONG)
    if done.returncode == -signal.SIGXFSZ:
        raise LimitExceeded("IMPORT_TEMP_BYTES", "the file unpacks too large")
    if "MemoryError" in stderr or "bad_alloc" in stderr or "Out of memory" in stderr:
        raise LimitExceeded("IMPORT_MEMORY_BYTES", NEEDS_MEMORY)
    logger.error("the bounded parsing process ended without a result: %s", stderr[-4000:])
    raise ChildFailed(f"exit status {done.returncode}")


# --- the child ---------------------------------------------------------------------------------


def _set_limits(limits: dict[str, int]) -> None:
    memory, seconds = limits["IMPORT_MEMORY_BYTES"], limits["IMPORT_SECONDS"]
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 5))
    disk = limits["IMPORT_TEMP_BYTES"]
    resource.setrlimit(resource.RLIMIT_FSIZE, (disk, resource.RLIM_INFINITY))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past it fails (EFBIG) instead


def _peak_bytes() -> int:
    """This process's peak resident memory (``VmHWM``; ``ru_maxrss`` would count the parent's
    memory at the fork that started it)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


def _child(folder: Path) -> None:
    with (folder / _PAYLOAD).open("rb") as source:
        target, args, kwargs, limits = pickle.load(source)
    (folder / _PAYLOAD).unlink()
    _limits.update(limits)
    work = folder / "tmp"
    work.mkdir()
    os.environ["TMPDIR"] = str(work)
    tempfile.tempdir = str(work)
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
    peak = _peak_bytes()
    try:
        data = pickle.dumps((*outcome, peak))
    except MemoryError:  # a result too large to hand back within the memory limit
        outcome = (False, LimitExceeded("IMPORT_MEMORY_BYTES", NEEDS_MEMORY))
        data = pickle.dumps((*outcome, _peak_bytes()))
    except Exception as error:  # noqa: BLE001 - an exception that does not pickle
        failed = ChildFailed(f"{type(outcome[1]).__name__}: {error}")
        data = pickle.dumps((False, failed, peak))
    (folder / _RESULT).write_bytes(data)


if __name__ == "__main__":
    # Run as the imported module, so that what is pickled names its classes by module.
    importlib.import_module("fallacy_platform.bounded")._child(Path(sys.argv[1]))
