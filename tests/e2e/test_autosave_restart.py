"""The browser's autosave queue through a real web-server restart: nothing typed is lost.

The session's web server (conftest.py) stays up for the other tests; this file starts its
own gunicorn on the same database and kills it (SIGKILL to its process group, so a request
in flight loses its answer) in the middle of typing, keeps editing while it is down, and
starts it again on the same port. The queue must show that it is offline, then flush by
itself; the API must then hold exactly what was typed, once.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser import login, my_annotation
from tests.support.processes import free_port

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
SENTENCES = [
    "Critics of the plan simply hate progress.",
    "Experts from abroad insist our roads are safe.",
    "If we allow one exception, everyone will demand one.",
    "So the plan is either perfect or a disaster.",
]
SEED = """
import json, sys
from tests.e2e.seed_base import mafalda, setup_django, user
setup_django()
from annotations.models import Document, Project
from annotations.services.documents import NewDocument, add_documents, assign_documents
from annotations.services.projects import add_member, create_project
sentences = json.loads(sys.argv[1])
annotator = user("restart-annotator")
project = Project.objects.filter(name="Autosave through a restart").first()
if project is None:
    project = create_project(name="Autosave through a restart", taxonomy=mafalda())
    add_member(project=project, user=annotator, role="annotator")
    bounds, at = [], 0
    for s in sentences:
        bounds.append((at, at + len(s)))
        at += len(s) + 1
    add_documents(project=project, texts=[
        NewDocument(text=" ".join(sentences), external_id="restart-1", sentences=bounds)])
    assign_documents(project=project, annotator=annotator)
document = Document.objects.get(project=project, external_id="restart-1")
print(json.dumps({"document": document.pk, "username": annotator.username}))
"""


class RestartableServer:
    """gunicorn on a fixed port that the test stops and starts."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.env, self.log = env, log
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 60) -> None:
        gunicorn = Path(sys.executable).with_name("gunicorn")
        cmd = [str(gunicorn), "--pythonpath", "platform", "fallacy_platform.wsgi"]
        cmd += ["-b", f"127.0.0.1:{self.port}", "-w", "2", "--threads", "4"]
        with open(self.log, "a") as log:
            self.proc = subprocess.Popen(
                cmd, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True,
            )  # fmt: skip
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"gunicorn exited with {self.proc.returncode} ({self.log})")
            try:
                with urllib.request.urlopen(self.url + "/login/", timeout=2) as r:
                    if r.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            time.sleep(0.2)
        raise RuntimeError(f"gunicorn at {self.url} did not answer within {timeout:.0f}s")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)  # master and workers, mid-request
            self.proc.wait()


@pytest.fixture
def restartable(web_server) -> Iterator[tuple[RestartableServer, dict]]:
    """A second web server on the session's database (migrated and seeded by web_server)."""
    out = subprocess.run(
        [sys.executable, "-c", SEED, json.dumps(SENTENCES)],
        cwd=ROOT,
        env=web_server.env,
        check=True,
        capture_output=True,
        text=True,
    )
    seed = json.loads(out.stdout.strip().splitlines()[-1])
    server = RestartableServer(web_server.env, Path(web_server.env["FALLACY_DATA_DIR"]) / "r.log")
    server.start()
    try:
        yield server, seed
    finally:
        server.stop()


def state(page: Page) -> str:
    return page.locator(".save-status").get_attribute("data-save-state") or ""


def open_new_span(page: Page, sentence: int, label: str) -> None:
    """A span on sentence ``sentence`` labelled ``label`` by keyboard, its editor open."""
    page.locator(f"#sent-{sentence}").click()
    page.keyboard.press("Enter")
    page.keyboard.type(label)
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")
    expect(page.locator(".editor")).to_be_visible()


def stored_spans(page: Page, base: str, doc: int) -> list[dict]:
    """The annotation's spans, each holding exactly what was typed before, during and after
    the server was down."""
    spans = my_annotation(page, base, doc)["spans"]
    by_label = {tuple(sorted(s["labels"])): s for s in spans}
    assert len(spans) == 2 and set(by_label) == {("appeal to fear",), ("slippery slope",)}, spans
    fear = by_label[("appeal to fear",)]["details"]["appeal to fear"]
    assert fear["explanation"] == "Before the restart. Typed while the server was down."
    slope = by_label[("slippery slope",)]
    assert slope["details"]["slippery slope"]["explanation"] == "Made while the server was down."
    assert "one exception" in slope["details"]["slippery slope"]["slots"].values(), slope
    assert [s["revision"] for s in spans] and all(s["client_id"] for s in spans)
    return spans


def test_typing_through_a_server_restart_loses_nothing(restartable, page: Page, artifacts):
    server, seed = restartable
    base, doc = server.url, seed["document"]
    login(page, base, seed["username"])
    page.goto(f"{base}/documents/{doc}/")
    page.wait_for_selector("html[data-ready]")

    # A span on the first sentence, its explanation typed and saved.
    open_new_span(page, 0, "appeal to fear")
    first = page.locator('.editor textarea[data-explanation="appeal to fear"]')
    first.click()
    first.type("Before the restart.")
    expect(page.locator(".save-status")).to_have_attribute("data-save-state", "saved")

    # The server dies in the middle of the typing; the typing goes on.
    first.type(" Typed while", delay=40)
    server.stop()
    first.type(" the server was down.", delay=40)
    expect(page.locator(".save-status")).to_have_attribute(
        "data-save-state", re.compile("offline|retrying"), timeout=15_000
    )
    page.screenshot(path=artifacts / "autosave-server-down.png")
    page.keyboard.press("Escape")

    # More work while it is down: a second span with a filled template.
    open_new_span(page, 2, "slippery slope")
    page.keyboard.type("one exception")  # the first slot has the focus
    second = page.locator('.editor textarea[data-explanation="slippery slope"]')
    second.click()
    second.type("Made while the server was down.", delay=20)
    page.keyboard.press("Escape")
    time.sleep(1.0)  # the queue tries (and fails) again in the meantime
    assert state(page) in ("offline", "retrying"), state(page)

    # Back on the same port: the queue flushes by itself (its back-off is at most 30 s).
    server.start()
    expect(page.locator(".save-status")).to_have_attribute(
        "data-save-state", "saved", timeout=60_000
    )

    spans = stored_spans(page, base, doc)
    # A reload shows the same two spans, and nothing is left waiting in the browser.
    page.reload()
    page.wait_for_selector("html[data-ready]")
    expect(page.locator(".spans .span-item")).to_have_count(2)
    expect(page.locator(".save-status")).to_have_attribute("data-save-state", "saved")
    assert my_annotation(page, base, doc)["spans"] == spans
