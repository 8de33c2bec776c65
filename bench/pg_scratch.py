"""A throw-away PostgreSQL server (initdb + pg_ctl) on its own port and data directory.

For fault-injection benchmarks and tests that stop and start the database server: never the
machine's shared cluster. The cluster runs as the current user, or, when that is root (initdb
refuses root), as an unprivileged account (``$PG_SCRATCH_USER``, else ``postgres``, else
``nobody``) through ``runuser``/``su``. Trust authentication, listening on 127.0.0.1 only,
``fsync`` on (the default: a restart must not lose committed rows).

    with ScratchCluster(ports=range(55432, 55440)) as pg:
        url = pg.create_database("bench")  # postgres://postgres@127.0.0.1:PORT/bench
        pg.restart(down_s=2)  # pg_ctl stop -m fast, sleep, pg_ctl start -w

The data directory is removed on ``close()`` (also from ``atexit``; callers install signal
handlers that raise SystemExit so ``finally`` blocks run).
"""

from __future__ import annotations

import atexit
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterable
from pathlib import Path

HOST = "127.0.0.1"
SUPERUSER = "postgres"


def pg_bin_dir() -> Path:
    """``$PG_BIN``, else the newest /usr/lib/postgresql/*/bin, else where initdb is on PATH."""
    if os.environ.get("PG_BIN"):
        return Path(os.environ["PG_BIN"])
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0,
    )
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    if initdb:
        return Path(initdb).parent
    raise RuntimeError("initdb not found: install PostgreSQL server binaries or set PG_BIN")


def _run_as() -> tuple[list[str], str | None]:
    """(command prefix, account) to run the server binaries unprivileged."""
    if os.geteuid() != 0:
        return [], None
    for name in (os.environ.get("PG_SCRATCH_USER"), "postgres", "nobody"):
        if not name:
            continue
        try:
            pwd.getpwnam(name)
        except KeyError:
            continue
        if shutil.which("runuser"):
            return ["runuser", "-u", name, "--"], name
        return ["su", name, "-s", "/bin/sh", "-c"], name  # joined into one string below
    raise RuntimeError("running as root and no unprivileged account to run PostgreSQL as")


def port_is_free(port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((HOST, port))
        except OSError:
            return False
    return True


class ScratchCluster:
    """One initdb'd cluster; ``start()`` on the first free port of ``ports``."""

    def __init__(
        self, *, ports: Iterable[int] = range(55432, 55440), base_dir: str | Path | None = None
    ) -> None:
        self.bin = pg_bin_dir()
        self.ports = list(ports)
        self.port: int | None = None
        self._prefix, self._account = _run_as()
        base_dir = base_dir or os.environ.get("PG_SCRATCH_DIR")  # else the system's temp dir
        parent = Path(base_dir) if base_dir else None
        if parent is not None:
            parent.mkdir(parents=True, exist_ok=True)
        self.dir = Path(tempfile.mkdtemp(prefix="pg-scratch-", dir=parent))
        self.data = self.dir / "data"
        self.log = self.dir / "server.log"
        self._closed = False
        self._lock = threading.RLock()  # close() waits for a restart in progress
        if self._account:
            pw = pwd.getpwnam(self._account)
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
            os.chmod(self.dir, 0o755)
        atexit.register(self.close)

    # --- running the binaries ----------------------------------------------------------------

    def _cmd(self, tool: str, *args: str) -> list[str]:
        cmd = [str(self.bin / tool), *args]
        if self._prefix[:1] == ["su"]:
            import shlex

            return [*self._prefix, " ".join(shlex.quote(c) for c in cmd)]
        return [*self._prefix, *cmd]

    def _run(self, tool: str, *args: str, timeout: float = 120) -> None:
        proc = subprocess.run(
            self._cmd(tool, *args),
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=self.dir,
        )
        if proc.returncode != 0:
            raise RuntimeError(
                f"{tool} {' '.join(args)} exited with {proc.returncode}: "
                f"{proc.stderr.strip() or proc.stdout.strip()}\n{self.log_tail()}"
            )

    def log_tail(self, lines: int = 20) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    # --- lifecycle ---------------------------------------------------------------------------

    def _options(self) -> str:
        return (
            f"-p {self.port} -k {self.dir} -c listen_addresses={HOST} -c fsync=on "
            "-c max_connections=200 -c shared_buffers=64MB"
        )

    def start(self) -> ScratchCluster:
        with self._lock:
            if self._closed:
                raise RuntimeError(f"scratch cluster {self.dir} was closed")
            return self._start()

    def _start(self) -> ScratchCluster:
        if not self.data.exists():
            self._run(
                "initdb",
                "-D",
                str(self.data),
                "-U",
                SUPERUSER,
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--no-instructions",
                "--no-sync",  # initdb's own files only; the server runs with fsync on
            )
        if self.port is not None:
            self._pg_ctl_start()
            return self
        free = [p for p in self.ports if port_is_free(p)]
        for port in free:  # another process may take a free port first: try the next one
            self.port = port
            try:
                self._pg_ctl_start()
                return self
            except RuntimeError as exc:
                if "in use" not in str(exc) and "could not bind" not in str(exc):
                    raise
        self.port = None
        raise RuntimeError(f"no free port in {self.ports[0]}–{self.ports[-1]}")

    def _pg_ctl_start(self) -> None:
        self._run(
            "pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-t", "60",
            "-o", self._options(), "start",
        )  # fmt: skip

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop")

    def restart(self, *, down_s: float = 0.0, mode: str = "fast") -> tuple[float, float]:
        """Stop (``mode``), stay down ``down_s`` seconds, start; returns (stopped_at, up_at)
        as ``time.monotonic()`` values: the stop begins just before the first."""
        began = time.monotonic()
        with self._lock:
            self.stop(mode)
        time.sleep(down_s)
        self.start()
        return began, time.monotonic()

    def running(self) -> bool:
        return (self.data / "postmaster.pid").exists()

    def url(self, dbname: str = "postgres") -> str:
        return f"postgres://{SUPERUSER}@{HOST}:{self.port}/{dbname}"

    def create_database(self, name: str) -> str:
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def server_version(self) -> str:
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            return str(conn.execute("SHOW server_version").fetchone()[0])

    def close(self) -> None:
        """Stop the server (immediately) and remove its directory; safe to call twice."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            try:
                if self.running():
                    self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
            except Exception:  # noqa: BLE001 - best effort; kill what is left
                try:
                    pid = int((self.data / "postmaster.pid").read_text().split()[0])
                    os.kill(pid, 9)
                except (OSError, ValueError, IndexError):
                    pass
            finally:
                shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> ScratchCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
