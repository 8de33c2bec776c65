"""Schemathesis against the live API: every check, the stateful phase included, bounded.

A real gunicorn serves a scratch database (PostgreSQL next to DATABASE_URL, else SQLite)
holding the demo project (taxonomy, documents, an annotation with spans) and a superuser
whose token schemathesis sends (``tests/schemathesis.toml``: the token is configured for the
``tokenAuth`` scheme, so the auth checks can take it away). Celery is the embedded
filesystem broker with no worker: fuzzed launches and imports queue and never run.

What must hold: no server error, every response matching its documented schema, status
code and content type, schema-valid requests accepted (except the rejections listed with
their reasons in the toml), schema-invalid ones refused, auth enforced.

``FUZZ_MAX_EXAMPLES`` (default 25 per operation) bounds the run; ``FUZZ_WORKERS`` (1:
with 2 worker threads, Hypothesis's concurrent ``ast.parse`` of lambda sources crashed
schemathesis once in CI with CPython's "AST constructor recursion depth mismatch").
The generation is deterministic, so a failure reproduces; the output names each failure
with a curl line.

Files are where generation finds little: ``test_upload_endpoints_refuse_tiny_files`` sends
every multipart operation of the schema empty and one-byte files (a lone ``|``, a quote, a
byte that is not UTF-8, a NUL...) under CSV, JSON Lines and YAML names, with each value of
its enum fields: never a server error, an empty file a 400 naming ``file``.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from tests.support.jobs import DatabaseTemplates
from tests.support.processes import PYTHON, ROOT, free_port, manage, stop, wait_for_http

pytestmark = pytest.mark.slow

CONFIG = ROOT / "tests" / "schemathesis.toml"
SCHEMATHESIS = Path(PYTHON).with_name("schemathesis")
FUZZ_USER = "fuzz-admin"
MAKE_TOKEN = (
    "from django.contrib.auth import get_user_model; "
    "from rest_framework.authtoken.models import Token; "
    f"u, _ = get_user_model().objects.get_or_create(username={FUZZ_USER!r}); "
    "u.is_staff = u.is_superuser = True; u.set_password('fuzz-admin-password'); u.save(); "
    # A project admin too, so the project admin's operations (imports...) are reached.
    "from annotations.models import Project; "
    "from annotations.services.projects import add_member; "
    "[add_member(project=p, user=u, role='admin') for p in Project.objects.all()]; "
    "print(Token.objects.get_or_create(user=u)[0].key)"
)


@pytest.fixture(scope="module")
def fuzz_env(
    tmp_path_factory: pytest.TempPathFactory, database_templates: DatabaseTemplates
) -> Iterator[dict[str, str]]:
    """A migrated scratch database: a copy of the template on the PostgreSQL server of
    ``DATABASE_URL``, else a SQLite file."""
    data = tmp_path_factory.mktemp("fuzz-data")
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DJANGO_SETTINGS_MODULE", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND")
    }
    env.update(
        FALLACY_DATA_DIR=str(data),
        FALLACY_SHARED_DATASETS=str(data / "none"),  # the demo project only
        PYTHONPATH=os.pathsep.join([str(ROOT / "platform"), str(ROOT)]),
        PYTHONUNBUFFERED="1",
    )
    if os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://")):
        with database_templates.postgres_copy("migrated", prefix="fallacy_fuzz") as url:
            env["DATABASE_URL"] = url
            yield env
        return
    env.pop("DATABASE_URL", None)
    database_templates.sqlite_copy("migrated", data)
    yield env


@pytest.fixture(scope="module")
def fuzz_server(fuzz_env: dict[str, str]) -> Iterator[tuple[str, str]]:
    result = manage("load_demo", env=fuzz_env, timeout=300)
    assert result.returncode == 0, result.stderr
    result = manage("shell", "-c", MAKE_TOKEN, env=fuzz_env)
    assert result.returncode == 0, result.stderr
    token = result.stdout.strip().splitlines()[-1]
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = open(Path(fuzz_env["FALLACY_DATA_DIR"]) / "web.log", "w")  # noqa: SIM115
    process = subprocess.Popen(
        [str(Path(PYTHON).with_name("gunicorn")), "fallacy_platform.wsgi"]
        + ["-b", f"127.0.0.1:{port}", "-w", "2", "--timeout", "120", "--log-level", "warning"]
        # No 414 from gunicorn itself for request lines over 4 KiB (a server limit outside the
        # API's schema): the fuzzer's long query strings reach Django.
        + ["--limit-request-line", "0"],
        cwd=ROOT,
        env=fuzz_env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        wait_for_http(f"{url}/api/auth/csrf/", timeout=60, process=process)
        yield url, token
    finally:
        stop(process)
        log.close()


def test_schemathesis_finds_nothing(fuzz_server: tuple[str, str], tmp_path: Path) -> None:
    if not SCHEMATHESIS.exists():
        pytest.fail("schemathesis is not installed: `make install` (dev extra)")
    url, token = fuzz_server
    env = {**os.environ, "FUZZ_TOKEN": f"Token {token}"}
    command = [
        str(SCHEMATHESIS),
        "--config-file",
        str(CONFIG),
        "--no-color",
        "run",
        f"{url}/api/schema/",
        "--checks",
        "all",
        "--max-examples",
        os.environ.get("FUZZ_MAX_EXAMPLES", "25"),
        "--workers",
        os.environ.get("FUZZ_WORKERS", "1"),
        "--generation-deterministic",
        "--request-timeout",
        "60",
        "--report-dir",
        str(tmp_path),
    ]
    result = subprocess.run(
        command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900
    )
    output = result.stdout + result.stderr
    summary = output[output.find("=== FAILURES") :] if "=== FAILURES" in output else output
    assert result.returncode == 0, summary[-20000:]
    assert "Tested: " in output and "Stateful" in output, output[-3000:]


TINY_FILES = [b"", b"|", b",", b"\t", b"\n", b'"', b"{", b"[", b"x", b"\xff", b"\x00"]
TINY_NAMES = ["tiny.csv", "tiny.jsonl", "tiny.yaml"]


def _resolve(schema: dict, node: dict) -> dict:
    while "$ref" in node:
        node = schema["components"]["schemas"][node["$ref"].rsplit("/", 1)[1]]
    return node


def _enum(schema: dict, node: dict) -> list | None:
    node = _resolve(schema, node)
    for part in node.get("allOf", []) + node.get("oneOf", []):
        values = _enum(schema, part)
        if values:
            return values
    return node.get("enum")


def _multipart_operations(schema: dict) -> list[tuple[str, str, dict]]:
    """``(method, path, form schema)`` of every operation taking a file."""
    found = []
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            content = (operation.get("requestBody") or {}).get("content", {})
            if "multipart/form-data" in content:
                form = _resolve(schema, content["multipart/form-data"]["schema"])
                if "file" in form.get("properties", {}):
                    found.append((method, path, form))
    return found


def _forms(schema: dict, form: dict, project: int) -> list[dict[str, str]]:
    """One set of form fields per value of the form's first enum field (other required
    fields: the demo project's id for integers, a word for text)."""
    fields: dict[str, str] = {}
    choices: tuple[str, list] | None = None
    for name, node in form["properties"].items():
        if name == "file":
            continue
        values = _enum(schema, node)
        if values and choices is None:
            choices = (name, values)
        elif name in form.get("required", []):
            kind = _resolve(schema, node).get("type")
            fields[name] = (
                str(values[0]) if values else str(project) if kind == "integer" else "text"
            )
    if choices is None:
        return [fields]
    return [{**fields, choices[0]: str(value)} for value in choices[1]]


def test_upload_endpoints_refuse_tiny_files(fuzz_server: tuple[str, str]) -> None:
    url, token = fuzz_server
    session = requests.Session()
    session.headers["Authorization"] = f"Token {token}"
    schema = session.get(f"{url}/api/schema/", params={"format": "json"}, timeout=60).json()
    project = session.get(f"{url}/api/projects/", timeout=60).json()["results"][0]["id"]
    operations = _multipart_operations(schema)
    assert len(operations) >= 4, [op[:2] for op in operations]
    failures = []
    for method, path, form in operations:
        target = url + path.replace("{id}", str(project))
        for fields in _forms(schema, form, project):
            for content in TINY_FILES:
                for name in TINY_NAMES:
                    response = session.request(
                        method, target, data=fields, files={"file": (name, content)}, timeout=60
                    )
                    case = f"{method.upper()} {path} {fields} {name} {content!r}"
                    if response.status_code >= 500:
                        failures.append(f"{case}: {response.status_code}")
                    elif not content and (
                        response.status_code != 400 or "file" not in response.json()
                    ):
                        failures.append(f"{case}: {response.status_code} {response.text[:200]}")
    assert not failures, "\n".join(failures)
