"""A third-party tool's server for round-trip tests (Label Studio, doccano), from the
virtualenv a `make install-<tool>` target keeps outside the repository.

``InstalledTool`` finds the executable (skip without it, except in CI, where `make test`
made it: fail), gives the process a bare environment with its own home, starts commands with
their output in a log, waits for the server's health address, and keeps a *template* data
folder beside the virtualenv (made once under a lock the other test workers wait on: a
migrated database takes minutes to make, a copy a second).
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.processes import stop, wait_for_http

CACHE = Path.home() / ".cache" / "fallacy-platform"


@dataclass(frozen=True)
class InstalledTool:
    name: str  # as the messages say it
    version: str
    home: Path  # the virtualenv
    executable: str  # in its bin/
    make_target: str

    @property
    def binary(self) -> Path:
        return self.home / "bin" / self.executable

    @property
    def template(self) -> Path:
        return self.home / "test-data-template"

    def require(self) -> Path:
        """The executable; skips (fails in CI) when it is not installed."""
        if self.binary.exists() and (self.home / ".installed").exists():
            return self.binary
        reason = (
            f"{self.name} {self.version} is not installed at {self.home} (run"
            f" `make {self.make_target}`, which `make test` does)"
        )
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)

    def environment(self, data_dir: Path, **settings: str) -> dict[str, str]:
        """Nothing of ours: the path and locale, ``data_dir`` as home, and ``settings``."""
        keep = ("PATH", "LANG", "LC_ALL", "TMPDIR")
        env = {name: os.environ[name] for name in keep if name in os.environ}
        env.update(HOME=str(data_dir), PYTHONUNBUFFERED="1", **settings)
        return env

    def launch(
        self, data_dir: Path, args: list[str], *, env: dict[str, str], log: Path
    ) -> subprocess.Popen:
        return subprocess.Popen(
            [str(self.binary), *args],
            cwd=data_dir,
            env=env,
            stdout=log.open("ab"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def wait_started(
        self, url: str, *, process: subprocess.Popen, log: Path, seconds: float
    ) -> None:
        """Until ``url`` answers; the log's tail in the failure when it never does."""
        try:
            wait_for_http(url, timeout=seconds, process=process)
        except (RuntimeError, TimeoutError) as error:
            tail = log.read_text(errors="replace")[-4000:]
            raise AssertionError(f"{self.name} did not start: {error}\n{tail}") from None

    def made_template(self, ready: str, build: Callable[[Path], None]) -> Path:
        """The template folder, once ``ready`` (a path inside it) exists; the first caller
        runs ``build`` on an empty folder, the others wait on the lock."""
        self.home.mkdir(parents=True, exist_ok=True)
        with (self.home / "test-data-template.lock").open("w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not (self.template / ready).exists():
                building = Path(tempfile.mkdtemp(prefix="template-", dir=self.home))
                build(building)
                shutil.rmtree(self.template, ignore_errors=True)
                building.rename(self.template)
        return self.template


@contextmanager
def stopping(*processes: subprocess.Popen) -> Iterator[None]:
    """Stops the processes (their whole sessions) on the way out."""
    try:
        yield
    finally:
        for process in processes:
            stop(process, timeout=30)
