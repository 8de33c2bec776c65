"""The real doccano server for round-trip tests, from the virtualenv `make install-doccano`
keeps outside the repository (``DOCCANO_VENV``).

``doccano_server`` starts ``doccano webserver`` and its Celery worker (``doccano task``:
imports and exports run there, through a broker in doccano's own SQLite database) on a free
port with a data folder of its own (a copy of a template the first start leaves beside the
virtualenv: migrated, with an admin), logs in through its REST API and gives a ``Doccano``
client. Without the virtualenv the caller skips, except in CI (``CI=true``), where it fails:
`make test` makes it.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import time
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import requests

from tests.support.processes import free_port
from tests.support.tool_servers import CACHE, InstalledTool, stopping

TOOL = InstalledTool(
    name="doccano",
    version="1.8.4",
    home=Path(os.environ.get("DOCCANO_VENV") or CACHE / "doccano-1.8.4"),
    executable="doccano",
    make_target="install-doccano",
)
ADMIN = "admin"
PASSWORD = "doccano-test-password"
START_SECONDS = 120
TASK_SECONDS = 120


def _doccano(data_dir: Path, *args: str, log: Path) -> subprocess.Popen:
    """A doccano command on ``data_dir`` (database, broker, media), nothing of ours."""
    env = TOOL.environment(data_dir, DOCCANO_HOME=str(data_dir / "doccano"))
    return TOOL.launch(data_dir, list(args), env=env, log=log)


class Doccano:
    """A few calls of doccano's REST API (``/v1/``), as one of its users (token)."""

    def __init__(self, url: str, username: str = ADMIN, password: str = PASSWORD) -> None:
        self.url = url
        self.session = requests.Session()
        answer = self.session.post(
            f"{url}/v1/auth/login/", json={"username": username, "password": password}, timeout=60
        )
        if answer.status_code != 200:
            raise AssertionError(f"login {username}: {answer.status_code} {answer.text[:500]}")
        self.session.headers["Authorization"] = f"Token {answer.json()['key']}"
        self.session.cookies.clear()  # the token alone: no session, so no CSRF check

    def call(self, method: str, path: str, **kwargs: Any) -> requests.Response:
        response = self.session.request(method, f"{self.url}/v1/{path}", timeout=300, **kwargs)
        if response.status_code >= 400:
            raise AssertionError(f"{method} {path}: {response.status_code} {response.text[:2000]}")
        return response

    def me(self) -> dict[str, Any]:
        return self.call("GET", "me").json()

    def as_user(self, username: str, password: str) -> Doccano:
        return Doccano(self.url, username, password)

    def create_user(self, username: str, password: str) -> int:
        """A user (``POST /v1/users/create``, the admin's Users page); its id."""
        body = {"username": username, "email": f"{username}@example.org"}
        body |= {"password1": password, "password2": password}
        return self.call("POST", "users/create", json=body).json()["id"]

    def add_member(self, project: int, user: int, role: str = "annotator") -> None:
        roles = {r["name"]: r["id"] for r in self.call("GET", "roles").json()}
        body = {"user": user, "role": roles[role]}
        self.call("POST", f"projects/{project}/members", json=body)

    def create_project(self, name: str, *, allow_overlapping: bool) -> int:
        """A sequence-labeling project (spans), one set of labels per annotator."""
        body = {
            "name": name, "description": name, "guideline": "",
            "project_type": "SequenceLabeling", "resourcetype": "SequenceLabelingProject",
            "allow_overlapping": allow_overlapping, "collaborative_annotation": False,
        }  # fmt: skip
        return self.call("POST", "projects", json=body).json()["id"]

    def wait(self, task_id: str) -> Any:
        """A Celery task's result, once ready."""
        deadline = time.monotonic() + TASK_SECONDS
        while True:
            status = self.call("GET", f"tasks/status/{task_id}").json()
            if status.get("ready"):
                if status.get("error"):
                    raise AssertionError(f"doccano task {task_id} failed: {status['error']}")
                return status.get("result")
            if time.monotonic() > deadline:
                raise AssertionError(f"doccano task {task_id} not ready: {status}")
            time.sleep(0.3)

    def import_jsonl(self, project: int, name: str, content: str) -> None:
        """The Import dataset page: the file uploaded (filepond), then imported as JSONL with
        ``text`` and ``label`` columns; fails on any error doccano reports."""
        files = {"filepond": (name, content.encode("utf-8"), "application/octet-stream")}
        upload = self.call("POST", "fp/process/", files=files).text
        body = {
            "uploadIds": [upload], "format": "JSONL", "task": "SequenceLabeling",
            "column_data": "text", "column_label": "label", "encoding": "utf_8",
        }  # fmt: skip
        task = self.call("POST", f"projects/{project}/upload", json=body).json()["task_id"]
        result = self.wait(task)
        if result.get("error"):
            raise AssertionError(f"doccano refused {name}: {result['error']}")

    def examples(self, project: int) -> list[dict[str, Any]]:
        """Every example (text, meta, id), in doccano's order."""
        found: list[dict[str, Any]] = []
        path = f"projects/{project}/examples?limit=100&offset=0"
        while path:
            page = self.call("GET", path).json()
            found += page["results"]
            path = page["next"].split("/v1/", 1)[1] if page["next"] else ""
        return found

    def span_types(self, project: int) -> dict[int, str]:
        types = self.call("GET", f"projects/{project}/span-types").json()
        return {t["id"]: t["text"] for t in types}

    def create_span_type(self, project: int, text: str) -> int:
        body = {"text": text, "background_color": "#209cee", "text_color": "#ffffff"}
        return self.call("POST", f"projects/{project}/span-types", json=body).json()["id"]

    def spans(self, project: int, example: int) -> list[dict[str, Any]]:
        """The example's spans (``start_offset``, ``end_offset``, ``label`` id, ``user``)."""
        return self.call("GET", f"projects/{project}/examples/{example}/spans").json()

    def add_span(self, project: int, example: int, start: int, end: int, label: int) -> None:
        body = {"start_offset": start, "end_offset": end, "label": label}
        self.call("POST", f"projects/{project}/examples/{example}/spans", json=body)

    def add_comment(self, project: int, example: int, text: str) -> None:
        self.call("POST", f"projects/{project}/comments?example={example}", json={"text": text})

    def export_jsonl(self, project: int) -> dict[str, bytes]:
        """The Export dataset page's JSONL: its zip's files (one per member, ``<user>.jsonl``)."""
        body = {"format": "JSONL", "exportApproved": False}
        task = self.call("POST", f"projects/{project}/download", json=body).json()["task_id"]
        self.wait(task)
        answer = self.call("GET", f"projects/{project}/download", params={"taskId": task})
        archive = zipfile.ZipFile(io.BytesIO(answer.content))
        return {name: archive.read(name) for name in archive.namelist()}


def jsonl(content: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in content.decode("utf-8").splitlines() if line.strip()]


@contextmanager
def _running(data_dir: Path) -> Iterator[str]:
    """doccano's web server and its worker on ``data_dir``; the server's address."""
    port = free_port()
    log = data_dir / "server.log"
    url = f"http://127.0.0.1:{port}"
    web = _doccano(data_dir, "webserver", "--port", str(port), "--workers", "2", log=log)
    worker = _doccano(data_dir, "task", "--concurrency", "1", log=data_dir / "task.log")
    with stopping(web, worker):
        TOOL.wait_started(f"{url}/v1/health/", process=web, log=log, seconds=START_SECONDS)
        yield url


def _build_template(folder: Path) -> None:
    """A migrated database with the admin."""
    log = folder / "init.log"
    for args in (("init",), ("createuser", "--username", ADMIN, "--password", PASSWORD)):
        if _doccano(folder, *args, log=log).wait(timeout=600) != 0:
            raise AssertionError(f"doccano {args[0]} failed:\n{log.read_text()[-4000:]}")
    log.unlink()


@contextmanager
def doccano_server(folder: Path) -> Iterator[tuple[Doccano, float]]:
    """A doccano server and worker on a free port with ``folder`` as its home (a copy of the
    template); yields the admin's client and the seconds the start took, then stops both."""
    TOOL.require()
    template = TOOL.made_template("doccano/db.sqlite3", _build_template)
    began = time.monotonic()
    shutil.copytree(template, folder, dirs_exist_ok=True)
    with _running(folder) as url:
        yield Doccano(url), time.monotonic() - began
