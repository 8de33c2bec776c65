"""The real Label Studio server for round-trip tests, from the virtualenv `make
install-label-studio` keeps outside the repository (``LABEL_STUDIO_HOME``).

``label_studio_server`` starts ``label-studio start`` on a free port with a data folder of its
own (a copy of a migrated template the first start leaves beside the virtualenv: migrating
takes minutes, a copy a second), an admin with a known API token (``LABEL_STUDIO_USERNAME``,
``LABEL_STUDIO_PASSWORD``, ``LABEL_STUDIO_USER_TOKEN``; legacy tokens enabled, which 1.23
turns off by default), waits until it answers and gives a ``LabelStudio`` client of its REST
API. Without the virtualenv the caller skips, except in CI (``CI=true``), where it fails:
`make test` makes it.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import requests

from tests.support.processes import free_port
from tests.support.tool_servers import CACHE, InstalledTool, stopping

TOOL = InstalledTool(
    name="Label Studio",
    version="1.23.2",
    home=Path(os.environ.get("LABEL_STUDIO_HOME") or CACHE / "label-studio-1.23.2"),
    executable="label-studio",
    make_target="install-label-studio",
)
ADMIN = "admin@example.org"
PASSWORD = "label-studio-test"
TOKEN = "fallacy-platform-test-token"
START_SECONDS = 600  # a first start migrates an empty database: minutes on a busy machine


def server_env(data_dir: Path) -> dict[str, str]:
    """Label Studio's environment: its data folder, the admin and its token, no calls out."""
    return TOOL.environment(
        data_dir,
        LABEL_STUDIO_BASE_DATA_DIR=str(data_dir / "data"),
        LABEL_STUDIO_USERNAME=ADMIN,
        LABEL_STUDIO_PASSWORD=PASSWORD,
        LABEL_STUDIO_USER_TOKEN=TOKEN,
        LABEL_STUDIO_ENABLE_LEGACY_API_TOKEN="true",
        LATEST_VERSION_CHECK="false",
        COLLECT_ANALYTICS="false",
        SENTRY_DSN="",
        FRONTEND_SENTRY_DSN="",
        LOG_LEVEL="WARNING",
    )


class LabelStudio:
    """A few calls of Label Studio's REST API, as its admin (legacy token)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"Token {TOKEN}"

    def call(self, method: str, path: str, **kwargs: Any) -> requests.Response:
        response = self.session.request(method, f"{self.url}{path}", timeout=300, **kwargs)
        if response.status_code >= 400:
            raise AssertionError(f"{method} {path}: {response.status_code} {response.text[:2000]}")
        return response

    def whoami(self) -> dict[str, Any]:
        return self.call("GET", "/api/current-user/whoami").json()

    def create_user(self, email: str, first_name: str = "") -> dict[str, Any]:
        """A user of the admin's organization (``POST /api/users/``)."""
        body = {"email": email, "username": email.split("@")[0], "first_name": first_name}
        return self.call("POST", "/api/users/", json=body).json()

    def create_project(self, title: str, label_config: str) -> int:
        body = {"title": title, "label_config": label_config}
        return self.call("POST", "/api/projects/", json=body).json()["id"]

    def import_tasks(self, project: int, tasks: list[dict[str, Any]]) -> dict[str, Any]:
        """``POST /api/projects/N/import`` with the tasks as the JSON body (what Label
        Studio does with an uploaded JSON file): its answer (task, annotation and prediction
        counts)."""
        return self.call("POST", f"/api/projects/{project}/import", json=tasks).json()

    def export_json(self, project: int) -> bytes:
        """The Export button's file: ``GET /api/projects/N/export?exportType=JSON``."""
        path = f"/api/projects/{project}/export?exportType=JSON&download_all_tasks=true"
        return self.call("GET", path).content

    def export_snapshot(self, project: int, timeout: float = 300) -> bytes:
        """A snapshot (``POST /api/projects/N/exports/``) with whole bodies (predictions,
        drafts, ``completed_by`` with the e-mail), once completed, downloaded as JSON."""
        whole = {"only_id": False}
        options = {"drafts": whole, "predictions": whole, "annotations__completed_by": whole}
        body = {"serialization_options": options}
        made = self.call("POST", f"/api/projects/{project}/exports/", json=body).json()
        deadline = time.monotonic() + timeout
        while made.get("status") != "completed":
            if made.get("status") == "failed" or time.monotonic() > deadline:
                raise AssertionError(f"snapshot export did not complete: {made}")
            time.sleep(0.5)
            made = self.call("GET", f"/api/projects/{project}/exports/{made['id']}").json()
        path = f"/api/projects/{project}/exports/{made['id']}/download?exportType=JSON"
        return self.call("GET", path).content

    def predictions(self, project: int) -> list[dict[str, Any]]:
        """Every prediction of the project, whole (``GET /api/predictions/?project=N``)."""
        found = self.call("GET", f"/api/predictions/?project={project}").json()
        return found["results"] if isinstance(found, dict) else found

    def tasks(self, project: int) -> list[dict[str, Any]]:
        """Every task with its annotations and predictions, as the Export button writes."""
        return json.loads(self.export_json(project))


@contextmanager
def _running(data_dir: Path, log: Path) -> Iterator[str]:
    port = free_port()
    args = ["start", "--no-browser", "--internal-host", "127.0.0.1", "--port", str(port)]
    args.append("--enable-legacy-api-token")
    process = TOOL.launch(data_dir, args, env=server_env(data_dir), log=log)
    url = f"http://127.0.0.1:{port}"
    with stopping(process):
        TOOL.wait_started(f"{url}/health", process=process, log=log, seconds=START_SECONDS)
        yield url


def _build_template(folder: Path) -> None:
    """A first start migrates the database and makes the admin and its token."""
    with _running(folder, folder / "server.log"):
        pass
    (folder / "server.log").unlink()


@contextmanager
def label_studio_server(folder: Path) -> Iterator[tuple[LabelStudio, float]]:
    """A Label Studio server on a free port with ``folder`` as its home (a copy of the
    template); yields its client and the seconds the start took, then stops it."""
    TOOL.require()
    template = TOOL.made_template("data/label_studio.sqlite3", _build_template)
    began = time.monotonic()
    shutil.copytree(template, folder, dirs_exist_ok=True)
    with _running(folder, folder / "server.log") as url:
        client = LabelStudio(url)
        client.whoami()
        yield client, time.monotonic() - began
