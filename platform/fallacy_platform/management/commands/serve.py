"""Start the web server and a Celery worker together (what `make demo` runs)."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand

PLATFORM_DIR = Path(settings.BASE_DIR) / "platform"


class Command(BaseCommand):
    help = "Serve the web app (gunicorn) and a Celery worker for both queues until interrupted."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--web-workers", type=int, default=2)

    def handle(self, *args, host: str, port: int, web_workers: int, **options) -> None:
        python_path = os.pathsep.join([str(PLATFORM_DIR), str(settings.BASE_DIR)])
        env = {**os.environ, "PYTHONPATH": python_path}
        bin_dir = Path(sys.executable).parent
        commands = {
            "worker": [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "fallacy_platform",
                "worker",
                "-Q",
                "default,gpu",
                "--concurrency",
                "2",  # a model run's supervisor must not block scoring and imports
                "--loglevel",
                "warning",
            ],
            "web": [
                str(bin_dir / "gunicorn"),
                "fallacy_platform.wsgi",
                "--bind",
                f"{host}:{port}",
                "--workers",
                str(web_workers),
                "--access-logfile",
                "-",
            ],
        }
        processes = {
            name: subprocess.Popen(cmd, env=env, cwd=settings.BASE_DIR)
            for name, cmd in commands.items()
        }
        db = settings.DATABASES["default"]
        self.stdout.write(
            f"Serving on http://{host}:{port}/  (API docs: http://{host}:{port}/api/docs/, "
            f"admin: http://{host}:{port}/admin/)\n"
            f"database: {settings.DATABASE_VENDOR} {db.get('NAME')}; "
            f"broker: {settings.CELERY_BROKER_URL}\n"
            "Press Ctrl+C to stop."
        )
        self.stdout.flush()

        stopping = False

        def stop(signum, frame) -> None:
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        try:
            while not stopping:
                for name, process in processes.items():
                    if process.poll() is not None:
                        self.stderr.write(f"{name} exited with status {process.returncode}")
                        stopping = True
                time.sleep(0.5)
        finally:
            for process in processes.values():
                if process.poll() is None:
                    process.terminate()
            for process in processes.values():
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    process.kill()
