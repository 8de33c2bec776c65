"""Real servers for the browser tests: a migrated scratch database, demo data, gunicorn.

The database is a copy of the session's migrated template (``tests/support/jobs.py``): a SQLite file
in a temporary FALLACY_DATA_DIR, or, when DATABASE_URL points at PostgreSQL (CI), a database
on that server, dropped afterwards.
The browser is Debian's Chromium (/usr/bin/chromium, or $CHROMIUM); tests are skipped
when it is missing. Screenshots go to artifacts/e2e/.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.processes import free_port

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts" / "e2e"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PASSWORD = "fallacy-demo"


@dataclass
class LiveServer:
    url: str
    env: dict[str, str]
    seed: dict


def ensure_frontend_build() -> None:
    if (ROOT / "frontend" / "dist" / "index.html").exists():
        return
    npm = shutil.which("npm")
    if not npm:
        pytest.fail("frontend/dist is missing and npm is not installed: run `make install`")
    frontend = ROOT / "frontend"
    if not (frontend / "node_modules").exists():
        subprocess.run([npm, "ci"], cwd=frontend, check=True)
    subprocess.run([npm, "run", "build"], cwd=frontend, check=True)


def run_seed(server: LiveServer, script: str, *args: str) -> dict:
    """Run a seed script of tests/e2e (with ``args``) against the live server's database;
    its last line of output is the JSON the test needs (ids, names)."""
    out = subprocess.run(
        [sys.executable, f"tests/e2e/{script}", *args],
        cwd=ROOT,
        env=server.env,
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="session")
def database_env(tmp_path_factory, database_templates) -> Iterator[dict[str, str]]:
    """A migrated scratch database: a copy of the template on the PostgreSQL server of
    ``DATABASE_URL``, else (whatever else it names) a SQLite file."""
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    data = tmp_path_factory.mktemp("e2e-data")
    env["FALLACY_DATA_DIR"] = str(data)
    env.setdefault("PYTHONUNBUFFERED", "1")
    if os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://")):
        with database_templates.postgres_copy("migrated", prefix="fallacy_e2e") as url:
            env["DATABASE_URL"] = url
            yield env
        return
    env.pop("DATABASE_URL", None)
    database_templates.sqlite_copy("migrated", data)
    yield env


def _wait_until_up(url: str, proc: subprocess.Popen, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"web server exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url + "/login/", timeout=2) as r:
                if r.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.2)
    raise RuntimeError(f"web server at {url} did not answer within {timeout:.0f}s")


@pytest.fixture(scope="session")
def web_server(database_env) -> Iterator[LiveServer]:
    if not Path(CHROMIUM).exists():
        pytest.skip(f"Chromium not found at {CHROMIUM} (apt-get install chromium)")
    ensure_frontend_build()
    env = database_env
    py = sys.executable
    out = subprocess.run(
        [py, "tests/e2e/seed.py"], cwd=ROOT, env=env, check=True, capture_output=True, text=True
    )
    seed = json.loads(out.stdout.strip().splitlines()[-1])
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    gunicorn = Path(py).with_name("gunicorn")
    cmd = (
        [str(gunicorn), "--pythonpath", "platform", "fallacy_platform.wsgi"]
        if gunicorn.exists()
        else [py, "manage.py", "runserver", "--noreload", "--insecure"]
    )
    if gunicorn.exists():
        cmd += ["-b", f"127.0.0.1:{port}", "-w", "2", "--threads", "4", "--log-level", "warning"]
    else:
        cmd += [f"127.0.0.1:{port}"]
    log = open(env["FALLACY_DATA_DIR"] + "/web.log", "w")  # noqa: SIM115
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        _wait_until_up(url, proc)
        yield LiveServer(url=url, env=env, seed=seed)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@pytest.fixture(scope="package")
def browser(web_server):
    """Chromium, closed when the tests of this folder are done: Playwright's event loop stays
    running while it is open, and Django refuses new database connections in a thread with a
    running loop (the tests an xdist worker runs after these would fail)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def context(browser):
    ctx = browser.new_context(viewport={"width": 1440, "height": 900})
    ctx.set_default_timeout(10_000)
    yield ctx
    ctx.close()


@pytest.fixture
def page(context):
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    assert not errors, f"JavaScript errors on the page: {errors}"


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
