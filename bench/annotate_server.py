"""The gunicorn that ``annotate_api.py`` measures: a configuration (worker class, workers,
threads, PostgreSQL session switches), its start on a free port and its stop.
"""

from __future__ import annotations

import http.client
import os
import signal
import subprocess
import time
from dataclasses import dataclass
from typing import Any

from servers import HOST, ROOT  # bench/ is the script's folder

VENV_BIN = ROOT / ".venv" / "bin"
GUNICORN_CONF = ROOT / "platform" / "fallacy_platform" / "gunicorn.conf.py"


@dataclass(frozen=True)
class ServerConfig:
    """A gunicorn configuration; ``None`` fields keep gunicorn.conf.py's value."""

    worker_class: str | None = None
    workers: int | None = None
    threads: int | None = None
    synchronous_commit: bool = True
    health_checks: bool = True
    prepared: bool = True

    @classmethod
    def parse(cls, text: str) -> ServerConfig:
        if text == "default":
            return cls()
        parts = text.split(":")
        flags = set(parts[3:])
        unknown = flags - {"nosync", "nohc", "noprep"}
        if len(parts) < 3 or unknown:
            raise ValueError(f"{text!r}: expected CLASS:WORKERS:THREADS[:nosync][:nohc][:noprep]")
        switches = tuple(f not in flags for f in ("nosync", "nohc", "noprep"))
        if parts[0] == "default":
            return cls(None, None, None, *switches)
        return cls(parts[0], int(parts[1]), int(parts[2]), *switches)

    def label(self) -> str:
        if self.worker_class is None:
            base = "default"
        else:
            base = f"{self.worker_class}:{self.workers}:{self.threads}"
        return (
            base
            + ("" if self.synchronous_commit else ":nosync")
            + ("" if self.health_checks else ":nohc")
            + ("" if self.prepared else ":noprep")
        )


def effective_settings(config: ServerConfig) -> dict[str, Any]:
    """What gunicorn.conf.py gives, with the configuration's overrides."""
    values: dict[str, Any] = {"__file__": str(GUNICORN_CONF)}
    exec(compile(GUNICORN_CONF.read_text(), str(GUNICORN_CONF), "exec"), values)  # noqa: S102
    out = {k: values[k] for k in ("worker_class", "workers", "threads", "keepalive")}
    for key in ("worker_class", "workers", "threads"):
        if getattr(config, key) is not None:
            out[key] = getattr(config, key)
    return out


def start_server(db_url: str, port: int, config: ServerConfig) -> subprocess.Popen:
    if not config.synchronous_commit:
        db_url += "?options=-c%20synchronous_commit%3Doff"
    env = {
        **os.environ,
        "DATABASE_URL": db_url,
        "DB_CONN_HEALTH_CHECKS": "1" if config.health_checks else "0",
        # empty: Django's client-side binding, no prepared statements (settings.py)
        "DB_PREPARE_THRESHOLD": os.environ.get("DB_PREPARE_THRESHOLD", "5")
        if config.prepared
        else "",
        "ALLOWED_HOSTS": HOST,
        "LOG_LEVEL": "ERROR",
    }
    env["DB_CONN_MAX_AGE"] = os.environ.get("DB_CONN_MAX_AGE", "60")
    cmd = [
        str(VENV_BIN / "gunicorn"),
        "--config",
        str(GUNICORN_CONF),
        "--bind",
        f"{HOST}:{port}",
        "--log-level",
        "warning",
    ]
    if config.worker_class is not None:
        cmd += ["--worker-class", config.worker_class, "--workers", str(config.workers)]
        cmd += ["--threads", str(config.threads)]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"gunicorn exited with {proc.returncode}")
        try:
            conn = http.client.HTTPConnection(HOST, port, timeout=2)
            conn.request("GET", "/api/auth/csrf/")
            if conn.getresponse().status == 200:
                return proc
        except OSError:
            time.sleep(0.2)
    stop_server(proc)
    raise RuntimeError("gunicorn did not answer within 60 s")


def stop_server(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)  # the group we started (master + workers)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
