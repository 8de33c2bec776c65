"""Bombs uploaded on the Import tab of a real gunicorn: a Hugging Face dataset .zip holding a
few KB of Parquet that decodes to 200 MB, and an 800 KB .zip with a 780 MiB member of zeros.
Each is refused naming the limit and its setting, nothing is imported, the web worker's peak
memory grows by under 50 MiB (the file is read in a bounded child process) and the temporary
folder holds nothing afterwards."""

from __future__ import annotations

import json
import urllib.request
import uuid
from collections.abc import Iterator

import pytest

from tests.support import hostile
from tests.support.jobs import DatabaseTemplates
from tests.support.processes import embedded_env, manage, one_worker_gunicorn, peak_rss

MIB = 1024 * 1024
SETUP = """
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token
from annotations.services.projects import create_project
from annotations.services.taxonomy import install_preset
user = User.objects.create_user("attacker")
project = create_project(name="Bombs", taxonomy=install_preset(name="mafalda"), created_by=user)
print(project.pk, Token.objects.create(user=user).key)
"""
COUNT = "from annotations.models import Document; print(Document.objects.count())"


@pytest.fixture(scope="module")
def server(
    tmp_path_factory: pytest.TempPathFactory, database_templates: DatabaseTemplates
) -> Iterator[dict]:
    """gunicorn (one gthread worker) of the embedded default: port, worker pid, project id,
    token, environment and its temporary folder."""
    data = tmp_path_factory.mktemp("bombs")
    temporary = data / "tmp"
    temporary.mkdir()
    env = embedded_env(data, TMPDIR=str(temporary))
    database_templates.sqlite_copy("migrated", data)
    made = manage("shell", "-c", SETUP, env=env)
    assert made.returncode == 0, made.stderr[-2000:]
    project, token = made.stdout.split()[-2:]
    with one_worker_gunicorn(env, timeout=90) as (port, worker):
        yield {
            "port": port,
            "worker": worker,
            "project": project,
            "token": token,
            "env": env,
            "tmp": temporary,
        }


def upload(server: dict, name: str, content: bytes) -> tuple[int, dict]:
    boundary = uuid.uuid4().hex
    body = b"".join(
        [
            f'--{boundary}\r\nContent-Disposition: form-data; name="format"\r\n\r\nhf\r\n'.encode(),
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
            "Content-Type: application/zip\r\n\r\n".encode(),
            content,
            f"\r\n--{boundary}--\r\n".encode(),
        ]
    )
    request = urllib.request.Request(
        f"http://127.0.0.1:{server['port']}/api/projects/{server['project']}/imports/",
        data=body,
        headers={
            "Content-Type": f"multipart/form-data; boundary={boundary}",
            "Authorization": f"Token {server['token']}",
        },
    )
    with urllib.request.urlopen(request, timeout=300) as response:
        return response.status, json.loads(response.read())


@pytest.mark.parametrize(
    ("name", "build", "setting"),
    [
        ("parquet-bomb.zip", hostile.parquet_bomb_zip, "IMPORT_MAX_ROW_GROUP_BYTES"),
        ("zip-bomb.zip", hostile.zip_bomb, "IMPORT_MAX_UNPACKED_BYTES"),
    ],
)
def test_a_bomb_on_the_import_tab_is_refused_with_the_web_worker_s_memory_flat(
    server: dict, name: str, build, setting: str
) -> None:
    content = build()
    assert len(content) < 1 * MIB  # imported inside the request, by the web worker
    before = peak_rss(server["worker"])

    status, job = upload(server, name, content)

    grown = peak_rss(server["worker"]) - before
    assert grown < 50 * MIB, f"the web worker grew by {grown / MIB:.0f} MiB"
    assert status == 201 and job["status"] == "failed", job["status"]
    text = " ".join(error["text"] for error in job["errors"])
    assert setting in text, text[:500]
    assert list(server["tmp"].iterdir()) == []  # the child's folder is gone
    counted = manage("shell", "-c", COUNT, env=server["env"])
    assert counted.stdout.split()[-1] == "0"  # nothing imported
