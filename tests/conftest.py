"""Shared fixtures. Tests run against PostgreSQL when DATABASE_URL points there (CI does)."""

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings

from tests.support.jobs import DatabaseTemplates

# Test accounts are throwaway: a fast hasher here and in the servers and workers tests start
# (they inherit the environment). Django's default takes about a second a hash on 2 cores.
FAST_HASHER = "django.contrib.auth.hashers.MD5PasswordHasher"
os.environ.setdefault("PASSWORD_HASHERS", FAST_HASHER)
settings.PASSWORD_HASHERS = os.environ["PASSWORD_HASHERS"].split(",")
# Tests address model servers they start on 127.0.0.1, with PostgreSQL (production's
# database) too: this machine's servers are allowed as in the embedded default, here and in
# the workers tests start. test_run_errors checks production's default (refused).
os.environ.setdefault("MODEL_SERVER_ALLOW_LOOPBACK", "1")
settings.MODEL_SERVER_ALLOW_LOOPBACK = os.environ["MODEL_SERVER_ALLOW_LOOPBACK"] == "1"

ROOT = Path(__file__).resolve().parents[1]
REDIS_URL_VARIABLES = ("CELERY_BROKER_URL", "CELERY_RESULT_BACKEND", "CACHE_URL")
SHARED_DATASETS = ROOT.parent / "shared" / "datasets"
MAFALDA_DIR = SHARED_DATASETS / "mafalda"
MAFALDA_GOLD = MAFALDA_DIR / "datasets" / "gold_standard_dataset.jsonl"


def worker_environment(index: int, worker_id: str) -> dict[str, str]:
    """What an xdist worker changes in its environment, so that its tests and the processes
    they start share no state with the other workers: its own data directory (SQLite files,
    broker folders, throttle cache) and its own Redis databases (number minus the worker's
    index, or plus where that would go below 0: CI's 15 gives 15 and 14)."""
    from urllib.parse import urlsplit, urlunsplit

    base = Path(os.environ.get("FALLACY_DATA_DIR") or settings.DATA_DIR)
    env = {"FALLACY_DATA_DIR": str(base / worker_id)}
    for name in REDIS_URL_VARIABLES:
        parts = urlsplit(os.environ.get(name, ""))
        if parts.scheme in ("redis", "rediss"):
            number = int(parts.path.strip("/") or 0)
            number = number - index if number >= index else number + index
            env[name] = urlunsplit(parts._replace(path=f"/{number}"))
    return env


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_setupnodes(config: pytest.Config, specs: list) -> None:
    """Each xdist worker starts with its own ``worker_environment`` (the variables reach it
    before Django reads its settings)."""
    for index, spec in enumerate(specs):
        spec.env.update(worker_environment(index, spec.id or f"gw{index}"))


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The files with a test marked ``slow`` first, then the others, each group as collected.
    An xdist worker is handed the next file as it finishes one (``scripts/test.sh`` keeps this
    order: ``--no-loadscope-reorder``), so the long files are spread over both workers instead
    of one long file starting last while the other worker idles."""
    slow = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow)


@pytest.fixture(scope="session")
def mafalda_dir() -> Path:
    if not MAFALDA_GOLD.exists():
        pytest.skip(f"shared MAFALDA data not found at {MAFALDA_DIR} (../shared/datasets)")
    return MAFALDA_DIR


@pytest.fixture(scope="session")
def mafalda_gold_path(mafalda_dir: Path) -> Path:
    return MAFALDA_GOLD


@pytest.fixture(scope="session")
def test_database_url(django_db_setup, django_db_blocker) -> str:
    """A URL of the test database, for worker processes started by a test."""
    from django.db import connection

    settings = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{settings['NAME']}"
    user = settings.get("USER") or ""
    password = f":{settings['PASSWORD']}" if settings.get("PASSWORD") else ""
    host = settings.get("HOST") or "127.0.0.1"
    port = settings.get("PORT") or 5432
    return f"postgres://{user}{password}@{host}:{port}/{settings['NAME']}"


@pytest.fixture(scope="session")
def database_templates(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DatabaseTemplates]:
    """Migrated databases for tests that start processes, built once a session and copied
    per test (``tests/support/jobs.py``)."""
    templates = DatabaseTemplates(tmp_path_factory.mktemp("database-templates"))
    try:
        yield templates
    finally:
        templates.drop()


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random Llama checkpoint with a chat template (``tests/support/tiny_model.py``), built
    once per session; nothing is downloaded."""
    import os

    from tests.support.tiny_model import build_tiny_llama

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    return build_tiny_llama(tmp_path_factory.mktemp("tiny-llama"))


@pytest.fixture(autouse=True, scope="session")
def fresh_login_throttles() -> None:
    """Failed-login counts live in the cache (files under FALLACY_DATA_DIR unless CACHE_URL):
    each test run starts without the counts of earlier runs."""
    from django.core.cache import cache

    cache.clear()


# Apps whose data migrations seed rows (built-in prompt variants, rules): a transactional
# test's flush empties their tables, and the tests that run after it expect them.
SEEDED_APPS = ("evaluation",)
MIGRATED_ROWS = pytest.StashKey[str]()
DB_BLOCKER = pytest.StashKey[object]()


def _flushes_database(item: pytest.Item) -> bool:
    marker = item.get_closest_marker("django_db")
    fixtures = getattr(item, "fixturenames", ())
    transactional = bool(marker and marker.kwargs.get("transaction"))
    return transactional or "transactional_db" in fixtures or "live_server" in fixtures


@pytest.fixture(scope="session")
def migrated_rows(django_db_setup, django_db_blocker) -> str:
    """The rows of ``SEEDED_APPS`` as the migrations left them, as JSON (taken before the
    first transactional test of the session empties the tables)."""
    from django.apps import apps
    from django.core import serializers

    with django_db_blocker.unblock():
        rows = [
            row
            for app in SEEDED_APPS
            for model in apps.get_app_config(app).get_models()
            for row in model._default_manager.order_by("pk")
        ]
        return serializers.serialize("json", rows)


@pytest.fixture(autouse=True)
def _keep_migrated_rows(request: pytest.FixtureRequest) -> None:
    """A test that flushes the database gets the seeded rows back afterwards
    (``pytest_runtest_teardown``). pytest-django runs transactional tests last in one process;
    an xdist worker runs them file by file, between the others."""
    if request.node.get_closest_marker("django_db") is None and not _flushes_database(request.node):
        return
    rows = request.getfixturevalue("migrated_rows")
    if _flushes_database(request.node):
        request.node.stash[MIGRATED_ROWS] = rows
        request.node.stash[DB_BLOCKER] = request.getfixturevalue("django_db_blocker")


def _restore_rows(rows: str, blocker) -> None:
    from django.core import serializers
    from django.core.management.color import no_style
    from django.db import connection, transaction

    with blocker.unblock(), transaction.atomic():
        models = set()
        for row in serializers.deserialize("json", rows):
            row.save()
            models.add(type(row.object))
        with connection.cursor() as cursor:
            for sql in connection.ops.sequence_reset_sql(no_style(), list(models)):
                cursor.execute(sql)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None):
    result = yield
    rows = item.stash.get(MIGRATED_ROWS, None)
    # After the session's last test its database is gone with the session's fixtures, and
    # no test needs the rows.
    if rows is not None and nextitem is not None:
        _restore_rows(rows, item.stash[DB_BLOCKER])
    return result
