#!/usr/bin/env bash
# Runs every test. Uses PostgreSQL and Redis when reachable (CI sets DATABASE_URL), else the
# embedded default (SQLite + filesystem broker), and says which it used.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python

reachable() { "$PY" - "$1" "$2" <<'PYEOF'
import socket, sys
try:
    socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=1).close()
except OSError:
    sys.exit(1)
PYEOF
}

if [ -z "${DATABASE_URL:-}" ] && reachable 127.0.0.1 5432; then
  export DATABASE_URL="postgres://postgres@127.0.0.1:5432/postgres"
fi
if [ -z "${CELERY_BROKER_URL:-}" ] && reachable 127.0.0.1 6379; then
  export CELERY_BROKER_URL="redis://127.0.0.1:6379/15"
fi
echo "make test: database = ${DATABASE_URL:-embedded SQLite}; broker = ${CELERY_BROKER_URL:-embedded filesystem}"
# Test runs keep their files (SQLite test DB, broker folders) apart from a developer's var/.
export FALLACY_DATA_DIR="${FALLACY_DATA_DIR:-$PWD/var/test}"

echo "== ruff"
.venv/bin/ruff check .
echo "== frontend unit tests (vitest)"
(cd frontend && npm test --silent)
echo "== python tests (pytest)"
# Two xdist workers (PYTEST_WORKERS), each with its own data directory and Redis databases
# (tests/conftest.py); a test file stays on one worker, the slow files handed out first.
own_threads="${OMP_NUM_THREADS:-$(nproc)}"  # what a test running alone gets
if "$PY" -c "import xdist" 2>/dev/null; then
  # the models the tests run (torch) get the cores divided among the workers, not each all of them
  workers="${PYTEST_WORKERS:-2}"
  export OMP_NUM_THREADS="${OMP_NUM_THREADS:-$(( $(nproc) / workers > 0 ? $(nproc) / workers : 1 ))}"
  .venv/bin/pytest -n "$workers" --dist loadfile --no-loadscope-reorder --durations=30 \
    -m "not timing" "$@"
else
  echo "pytest-xdist is not installed: the tests run in one process"
  .venv/bin/pytest -m "not timing" "$@"
fi
echo "== python tests that assert a time bound (marker timing), alone on the machine"
# exit status 5: the arguments selected none of them
OMP_NUM_THREADS="$own_threads" .venv/bin/pytest -m timing "$@" || [ $? -eq 5 ]
