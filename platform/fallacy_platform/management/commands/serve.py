"""Start the web server and a Celery worker together (what `make demo` runs).

The command prints where it serves, then replaces itself (``exec``) with
``fallacy_platform/supervise.py``, a standard-library supervisor: no process with Django
loaded stays behind only to wait (such a process holds 150 MiB). The defaults are measured
(``bench/memory_idle.py``, ``bench/read_api.py``): one gunicorn worker with 4 threads
(gthread) and a Celery worker with a pool of 4 threads, one process each: less memory than
2 sync workers and 2 forked children. Threads suit both: requests and tasks wait on the
database, and a model run's supervisor waits on its runner subprocess (it never blocks
scoring and imports: the other threads take them). Idle total: see ``bench/memory_idle.py``.

gunicorn listens on a unix socket in a private temporary folder; the public port belongs to
``fallacy_platform/front.py``, which reads each request whole, under time and size limits
(``CLIENT_HEADER_TIMEOUT``, ``CLIENT_BODY_TIMEOUT``, ``UPLOAD_MAX_BYTES``,
``REQUEST_MAX_BYTES``), before gunicorn's threads see it: a client that stalls mid-upload
holds no thread. It appends the client's address to ``X-Forwarded-For``, so gunicorn's
Django trusts one more proxy than ``NUM_PROXIES`` says. The supervisor restarts any of the
three processes that dies.
"""

import json
import os
import sys
import tempfile
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand

PLATFORM_DIR = Path(settings.BASE_DIR) / "platform"
SUPERVISOR = PLATFORM_DIR / "fallacy_platform" / "supervise.py"
FRONT = PLATFORM_DIR / "fallacy_platform" / "front.py"
# Longer than the front's 20 s of keeping an idle connection: the front closes it first.
UPSTREAM_KEEPALIVE_SECONDS = 60
# gunicorn's default format, with the client's address (from the front) first.
ACCESS_LOG_FORMAT = '%({x-forwarded-for}i)s %(l)s %(u)s %(t)s "%(r)s" %(s)s %(b)s "%(f)s" "%(a)s"'


class Command(BaseCommand):
    help = "Serve the web app (gunicorn) and a Celery worker for both queues until interrupted."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--web-workers", type=int, default=1, help="gunicorn processes")
        parser.add_argument("--web-threads", type=int, default=4, help="threads per process")
        parser.add_argument(
            "--worker-pool", choices=["threads", "prefork", "solo"], default="threads"
        )
        parser.add_argument("--worker-concurrency", type=int, default=4)

    def commands(self, options: dict, socket_path: str) -> dict[str, list[str]]:
        bin_dir = Path(sys.executable).parent
        proxies = settings.REST_FRAMEWORK.get("NUM_PROXIES") or 0
        web = [
            str(bin_dir / "gunicorn"),
            "fallacy_platform.wsgi",
            "--bind",
            f"unix:{socket_path}",
            "--workers",
            str(options["web_workers"]),
            "--threads",
            str(options["web_threads"]),
            "--keep-alive",
            str(UPSTREAM_KEEPALIVE_SECONDS),
            "--env",
            f"NUM_PROXIES={proxies + 1}",
            "--access-logfile",
            "-",
            "--access-logformat",
            ACCESS_LOG_FORMAT,
        ]
        front = [
            sys.executable,
            str(FRONT),
            "--listen",
            f"{options['host']}:{options['port']}",
            "--upstream",
            socket_path,
            "--upload-max",
            str(settings.UPLOAD_MAX_BYTES),
            "--request-max",
            str(settings.DATA_UPLOAD_MAX_MEMORY_SIZE),
            "--header-timeout",
            str(settings.CLIENT_HEADER_TIMEOUT),
            "--body-timeout",
            str(settings.CLIENT_BODY_TIMEOUT),
        ]
        worker = [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "fallacy_platform",
            "worker",
            "-Q",
            "default,gpu",
            "--pool",
            options["worker_pool"],
            "--concurrency",
            str(options["worker_concurrency"]),
            "--without-gossip",
            "--without-mingle",
            "--loglevel",
            "warning",
        ]
        return {"worker": worker, "web": web, "front": front}

    def handle(self, *args, **options) -> None:
        python_path = os.pathsep.join([str(PLATFORM_DIR), str(settings.BASE_DIR)])
        os.environ["PYTHONPATH"] = python_path
        host, port = options["host"], options["port"]
        db = settings.DATABASES["default"]
        self.stdout.write(
            f"Serving on http://{host}:{port}/  (API docs: http://{host}:{port}/api/docs/, "
            f"admin: http://{host}:{port}/{settings.ADMIN_URL})\n"
            f"database: {settings.DATABASE_VENDOR} {db.get('NAME')}; "
            f"broker: {settings.CELERY_BROKER_URL}\n"
            "Press Ctrl+C to stop."
        )
        self.stdout.flush()
        sys.stderr.flush()
        os.chdir(settings.BASE_DIR)
        folder = tempfile.mkdtemp(prefix="fallacy-serve-")  # mode 0700: gunicorn's socket
        command = json.dumps(self.commands(options, os.path.join(folder, "web.sock")))
        os.execv(sys.executable, [sys.executable, str(SUPERVISOR), command, json.dumps([folder])])
