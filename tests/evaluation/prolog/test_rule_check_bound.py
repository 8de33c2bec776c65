"""Rule-file checks have a server-wide bound (evaluation/synthesis/checks.py,
fallacy_platform/slots.py): against ``manage.py serve`` (one gunicorn worker, 4 threads),
8 hostile saves in flight leave plain requests answering; the saves past the bound answer
429 with ``Retry-After`` at once; a normal save works afterwards."""

from __future__ import annotations

import math
import shutil
import threading
import time
from pathlib import Path

import pytest
import requests

from evaluation.prolog import shipped_rule_files
from tests.support.jobs import DatabaseTemplates
from tests.support.processes import embedded_env, free_port, manage
from tests.support.slow_clients import serve

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("swipl") is None, reason="SWI-Prolog is not installed"),
]

TYPE = "false dilemma"
SOURCE = shipped_rule_files()["false_dilemma"]
LOOPING = SOURCE + ":- repeat, fail.\n"
ADMINS = 4
SAVES_EACH = 2
GETS = 20

SETUP = f"""
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token
from annotations.models import Membership, Project
from annotations.services.taxonomy import install_preset
reader = User.objects.create_user("reader", password="x")
print("token", "reader", Token.objects.create(user=reader).key)
for n in range({ADMINS}):
    user = User.objects.create_user(f"admin{{n}}", password="x")
    project = Project.objects.create(name=f"Rules {{n}}", taxonomy=install_preset(name="smartypat"))
    Membership.objects.create(project=project, user=user, role=Membership.Role.ADMIN)
    Membership.objects.create(project=project, user=reader, role=Membership.Role.ANNOTATOR)
    print("token", project.pk, Token.objects.create(user=user).key)
"""


def post_rule(url: str, token: str, project: int, source: str) -> requests.Response:
    return requests.post(
        f"{url}/api/evaluation/prolog-rules/",
        json={"type": TYPE, "source": source, "project": project},
        headers={"Authorization": f"Token {token}"},
        timeout=120,
    )


def timed_get(url: str, token: str) -> float:
    started = time.monotonic()
    answer = requests.get(
        f"{url}/api/projects/", headers={"Authorization": f"Token {token}"}, timeout=60
    )
    assert answer.status_code == 200, answer.text
    return time.monotonic() - started


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[math.ceil(0.95 * len(ordered)) - 1]


def test_hostile_rule_saves_leave_the_server_answering(
    tmp_path: Path, database_templates: DatabaseTemplates
) -> None:
    env = embedded_env(tmp_path)
    database_templates.sqlite_copy("migrated", tmp_path)
    made = manage("shell", "-c", SETUP, env=env)
    assert made.returncode == 0, made.stderr[-3000:]
    tokens = [line.split()[1:] for line in made.stdout.splitlines() if line.startswith("token")]
    reader = next(key for who, key in tokens if who == "reader")
    admins = [(int(project), key) for project, key in tokens if project != "reader"]
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with serve(env, port, tmp_path / "serve.log"):
        timed_get(url, reader)
        answers: list[tuple[requests.Response, float]] = []

        def save(project: int, token: str) -> None:
            started = time.monotonic()
            answer = post_rule(url, token, project, LOOPING)
            answers.append((answer, time.monotonic() - started))

        saves = [
            threading.Thread(target=save, args=admin) for admin in admins for _ in range(SAVES_EACH)
        ]
        for thread in saves:
            thread.start()
        time.sleep(0.5)  # every save has reached the server
        # A GET every 0.4 s, each in a thread of its own: a slow answer delays no other probe.
        gets: list[float] = []
        probes = []
        for _ in range(GETS):
            probe = threading.Thread(target=lambda: gets.append(timed_get(url, reader)))
            probe.start()
            probes.append(probe)
            time.sleep(0.4)
        in_flight = sum(thread.is_alive() for thread in saves)
        for thread in (*probes, *saves):
            thread.join(timeout=120)
        assert len(gets) == GETS
        print(f"GET p95 {p95(gets):.3f} s, max {max(gets):.3f} s; {in_flight} saves in flight")
        assert in_flight >= 1  # the GETs were measured while checks ran
        assert p95(gets) < 1.0, sorted(gets)
        busy = [(a, s) for a, s in answers if a.status_code == 429]
        checked = [a for a, _ in answers if a.status_code == 400]
        assert len(busy) + len(checked) == ADMINS * SAVES_EACH, [a.text for a, _ in answers]
        assert len(checked) == 2  # RULE_CHECKS_MAX_CONCURRENT's default
        for answer, elapsed in busy:
            assert int(answer.headers["Retry-After"]) > 0
            assert "retry" in answer.json()["detail"]
            assert elapsed < 2
        for answer in checked:
            assert "took longer than" in answer.json()["source"][0]
        project, token = admins[0]
        normal = post_rule(url, token, project, SOURCE)
        assert normal.status_code == 201, normal.text
        assert normal.json()["project"] == project
