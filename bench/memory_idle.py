"""Idle memory of ``manage.py serve`` (web + worker, every process) after a start and after
an import.

In a temporary ``FALLACY_DATA_DIR`` (the embedded default: SQLite, filesystem broker):
migrate, make a superuser and a project, start ``manage.py serve`` (with ``--serve-args``
passed through, to compare configurations), import a 2 MiB text file through the REST API
(over 1 MiB: the Celery worker imports it), read the project list, the document list and
open a document, wait until idle, then sum RSS and PSS (``/proc/<pid>/smaps_rollup``) over
the serve process and all its descendants, and list them; the same sums are taken once
before the import, idle after the start. Also lists heavy modules loaded
by no process at idle (torch, transformers, scipy, nltk, statsmodels, ...: checked through
``/proc/<pid>/maps`` for their shared libraries).

    .venv/bin/python bench/memory_idle.py [--serve-args "--web-workers 2"] [--idle 10]
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any

from machine import describe_machine  # bench/ is the script's folder
from servers import HOST, ROOT, free_port

HEAVY = ("torch", "transformers", "scipy", "nltk", "statsmodels", "sklearn", "vllm", "numpy")
WORDS = "policy taxes people government everyone always never because experts economy".split()


def children(pid: int) -> list[int]:
    """``pid`` and all its descendants."""
    parent: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parent[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    out, frontier = [pid], [pid]
    while frontier:
        frontier = [p for p, pp in parent.items() if pp in frontier]
        out += frontier
    return out


def memory(pid: int) -> dict[str, Any]:
    """RSS and PSS (KiB) of one process, its command line and the heavy libraries it maps."""
    fields = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        name, value = line.split(":", 1)
        fields[name] = int(value.split()[0])
    cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
    maps = Path(f"/proc/{pid}/maps").read_text()
    heavy = sorted(m for m in HEAVY if f"/site-packages/{m}/" in maps or f"/{m}.libs/" in maps)
    return {"pid": pid, "rss": fields["Rss"], "pss": fields["Pss"], "cmd": cmd, "heavy": heavy}


def request(url: str, method: str = "GET", token: str = "", body: Any = None, **kw: Any) -> Any:
    headers = {"Accept": "application/json", "Connection": "close"}
    if token:
        headers["Authorization"] = f"Token {token}"
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    if "multipart" in kw:
        boundary = uuid.uuid4().hex
        name, content, fields = kw["multipart"]
        parts = [
            f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
            for k, v in fields.items()
        ]
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n".encode()
            + content
            + b"\r\n"
        )
        data = b"".join(parts) + f"--{boundary}--\r\n".encode()
        headers["Content-Type"] = f"multipart/form-data; boundary={boundary}"
    req = urllib.request.Request(url, data=data, method=method, headers=headers)
    with urllib.request.urlopen(req, timeout=120) as response:
        return json.loads(response.read() or b"null")


def prepare(data_dir: str) -> tuple[dict[str, str], list[str]]:
    """The embedded default in ``data_dir``, migrated, with a superuser and a project; the
    environment and the ``manage.py`` command line."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND")
    }
    env.update(
        FALLACY_DATA_DIR=data_dir,
        PYTHONPATH=os.pathsep.join([str(ROOT / "platform"), str(ROOT)]),
        ALLOWED_HOSTS=f"{HOST},localhost",
        DJANGO_SETTINGS_MODULE="fallacy_platform.settings",
    )
    py = [sys.executable, str(ROOT / "manage.py")]
    subprocess.run([*py, "migrate", "-v", "0"], env=env, cwd=ROOT, check=True)
    setup = (
        "from django.contrib.auth.models import User;"
        "from annotations.services.taxonomy import install_preset;"
        "from annotations.services.projects import create_project;"
        "u = User.objects.create_superuser('bench', password='bench-memory');"
        "create_project(name='memory', taxonomy=install_preset(name='mafalda'), "
        "created_by=u)"
    )
    subprocess.run([*py, "shell", "-c", setup], env=env, cwd=ROOT, check=True)
    return env, py


def wait_until_serving(base: str, serve: subprocess.Popen) -> None:
    deadline = time.monotonic() + 90
    while True:
        try:
            request(base + "/api/auth/csrf/")
            return
        except OSError:
            if time.monotonic() > deadline or serve.poll() is not None:
                raise RuntimeError("serve did not answer") from None
            time.sleep(0.3)


def import_and_read(base: str) -> tuple[dict[str, Any], int, int]:
    """A 2 MiB text file imported through the API (by the worker), then the project list,
    the document list and a document read 20 times each; the import job, the number of
    texts and the file's size."""
    token = request(
        base + "/api/auth/token/",
        "POST",
        body={"username": "bench", "password": "bench-memory"},
    )["token"]
    project = request(base + "/api/projects/", token=token)["results"][0]["id"]
    lines = []
    size = 0
    i = 0
    while size < 2 * 1024 * 1024:  # over the 1 MiB inline limit: the worker imports
        text = " ".join(WORDS[(i + k) % len(WORDS)] for k in range(60)) + f" {i}."
        line = json.dumps({"text": text, "id": f"t{i}"}) + "\n"
        lines.append(line)
        size += len(line)
        i += 1
    job = request(
        base + f"/api/projects/{project}/imports/",
        "POST",
        token,
        multipart=("texts.jsonl", "".join(lines).encode(), {"format": "text"}),
    )
    deadline = time.monotonic() + 600
    while job["status"] not in ("succeeded", "failed"):
        if time.monotonic() > deadline:
            raise RuntimeError(f"import job stuck: {job}")
        time.sleep(1)
        job = request(base + f"/api/imports/{job['id']}/", token=token)
    docs = request(base + f"/api/projects/{project}/documents/", token=token)
    for _ in range(20):  # every web worker/thread serves a few reads
        request(base + "/api/projects/", token=token)
        request(base + f"/api/projects/{project}/documents/", token=token)
        request(base + f"/api/documents/{docs['results'][0]['id']}/", token=token)
    return job, i, size


def totals(rows: list[dict]) -> tuple[float, float]:
    """RSS and PSS (MiB) summed over ``rows``."""
    return sum(r["rss"] for r in rows) / 1024, sum(r["pss"] for r in rows) / 1024


def print_memory(
    args: argparse.Namespace,
    job: dict[str, Any],
    texts: int,
    size: int,
    rows: list[dict],
    started: list[dict],
) -> None:
    print(f"machine:  {describe_machine()}")
    print(f"serve:    manage.py serve {args.serve_args}".rstrip())
    print(f"import:   {job['status']}, {texts} texts ({size / 2**20:.1f} MiB, through the worker)")
    print(f"  {'pid':>7} {'RSS MiB':>8} {'PSS MiB':>8}  command (heavy libraries mapped)")
    for row in rows:
        heavy = f"  [{', '.join(row['heavy'])}]" if row["heavy"] else ""
        print(
            f"  {row['pid']:>7} {row['rss'] / 1024:>8.1f} {row['pss'] / 1024:>8.1f}  "
            f"{row['cmd'][:90]}{heavy}"
        )
    rss_start, pss_start = totals(started)
    print(f"started:  {len(started)} processes, RSS {rss_start:.0f} MiB, PSS {pss_start:.0f} MiB")
    rss, pss = totals(rows)
    print(
        f"used:     {len(rows)} processes, RSS {rss:.0f} MiB, PSS {pss:.0f} MiB "
        f"(target <= 400 MiB RSS: {'met' if rss <= 400 else 'NOT met'})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--serve-args", default="", help="extra arguments of manage.py serve")
    parser.add_argument("--idle", type=float, default=10, help="seconds idle before measuring")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="fallacy-bench-memory-") as data_dir:
        env, py = prepare(data_dir)
        port = free_port()
        serve = subprocess.Popen(
            [*py, "serve", "--host", HOST, "--port", str(port), *shlex.split(args.serve_args)],
            env=env,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            start_new_session=True,
        )
        base = f"http://{HOST}:{port}"
        try:
            wait_until_serving(base, serve)
            time.sleep(args.idle)
            started = [memory(pid) for pid in children(serve.pid)]
            job, texts, size = import_and_read(base)
            time.sleep(args.idle)
            rows = [memory(pid) for pid in children(serve.pid)]
        finally:
            os.killpg(serve.pid, signal.SIGTERM)
            try:
                serve.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(serve.pid, signal.SIGKILL)
    print_memory(args, job, texts, size, rows, started)


if __name__ == "__main__":
    main()
