"""gunicorn settings of the production web server (docker-compose.yml's ``web``, the Dockerfile,
bench/annotate_api.py):

    gunicorn -c platform/fallacy_platform/gunicorn.conf.py

Command-line flags win over this file (``manage.py serve`` passes its own, smaller defaults for
the embedded mode). The environment overrides each value: ``WEB_BIND``, ``WEB_WORKERS``,
``WEB_THREADS``, ``WEB_WORKER_CLASS``, ``WEB_KEEPALIVE``, ``WEB_TIMEOUT``, ``WEB_ACCESS_LOG``.

Chosen by measurement (``bench/annotate_api.py --configs …``, side by side in one run):
gthread workers, because requests wait on PostgreSQL (a thread releases the GIL there) and
because only gthread keeps client connections alive (a sync worker closes each one after its
answer: browsers autosaving spans would reconnect every time); about one process per core
so that the CPU, not the GIL, is the limit; a few threads each to cover database waits.
"""

import os

_cores = os.cpu_count() or 1

wsgi_app = "fallacy_platform.wsgi:application"
pythonpath = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")  # platform/
bind = os.environ.get("WEB_BIND", "0.0.0.0:8000")
worker_class = os.environ.get("WEB_WORKER_CLASS", "gthread")
workers = int(os.environ.get("WEB_WORKERS", str(_cores + 1)))
threads = int(os.environ.get("WEB_THREADS", "4"))
# Idle keep-alive connections (gthread): autosaves come every few seconds per annotator.
keepalive = int(os.environ.get("WEB_KEEPALIVE", "30"))
timeout = int(os.environ.get("WEB_TIMEOUT", "60"))
graceful_timeout = 30
accesslog = os.environ.get("WEB_ACCESS_LOG") or None  # "-": stdout
