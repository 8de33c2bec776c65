"""What ``manage.py serve``'s front server (``fallacy_platform/front.py``) costs a plain GET.

Starts ``manage.py serve`` on a free port with an empty data directory (``GET
/api/auth/csrf/`` needs no table) and sends the same GET through the front (TCP, as browsers
do) and straight to gunicorn's unix socket behind it, in alternating rounds: one client on a
kept-alive connection (latency), one client with a new connection per request, and
``--clients`` clients at once on kept-alive connections (requests/s). Prints each figure
and the ratio front / direct, and the CPU each kept-alive GET costs the front process and
the gunicorn worker (from ``/proc``: unlike wall-clock figures, not skewed by other load).

    python bench/front_overhead.py [--requests 2000] [--clients 8] [--rounds 3]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from machine import describe_machine

ROOT = Path(__file__).resolve().parents[1]
PATH = "/api/auth/csrf/"


class UnixConnection(http.client.HTTPConnection):
    def __init__(self, path: str) -> None:
        super().__init__("localhost", timeout=10)
        self.path = path

    def connect(self) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(10)
        self.sock.connect(self.path)


def connection(where: str) -> http.client.HTTPConnection:
    if where.startswith("/"):
        return UnixConnection(where)
    return http.client.HTTPConnection("127.0.0.1", int(where), timeout=10)


def get(conn: http.client.HTTPConnection) -> None:
    conn.request("GET", PATH, headers={"Host": "localhost"})
    response = conn.getresponse()
    response.read()
    assert response.status == 200, response.status


def latencies(where: str, requests: int, keep_alive: bool) -> list[float]:
    out, conn = [], connection(where)
    for _ in range(requests):
        began = time.perf_counter()
        get(conn)
        out.append(time.perf_counter() - began)
        if not keep_alive:
            conn.close()
            conn = connection(where)
    conn.close()
    return out


def throughput(where: str, requests: int, clients: int) -> float:
    def client() -> None:
        conn = connection(where)
        for _ in range(requests // clients):
            get(conn)
        conn.close()

    threads = [threading.Thread(target=client) for _ in range(clients)]
    began = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return requests // clients * clients / (time.perf_counter() - began)


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def descendants(pid: int) -> dict[int, str]:
    """Process id -> command line of every process under ``pid``."""
    found, frontier = {}, [pid]
    while frontier:
        parent = frontier.pop()
        for entry in Path("/proc").iterdir():
            try:
                if (
                    entry.name.isdigit()
                    and int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == parent
                ):
                    found[int(entry.name)] = (entry / "cmdline").read_bytes().decode()
                    frontier.append(int(entry.name))
            except OSError:
                continue
    return found


def cpu_per_request(process: subprocess.Popen, where: str, requests: int) -> dict[str, float]:
    """CPU milliseconds per kept-alive GET of the front and of the gunicorn worker."""
    roles = {}
    for pid, command in descendants(process.pid).items():
        if "front.py" in command:
            roles["front"] = pid
        elif "gunicorn: worker" in command:
            roles["gunicorn worker"] = pid
    before = {role: cpu_seconds(pid) for role, pid in roles.items()}
    latencies(where, requests, keep_alive=True)
    return {
        role: (cpu_seconds(pid) - before[role]) * 1000 / requests for role, pid in roles.items()
    }


def start_serve(data_dir: str) -> tuple[subprocess.Popen, int, str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL")}
    env.update(FALLACY_DATA_DIR=data_dir, PYTHONPATH=f"{ROOT / 'platform'}:{ROOT}")
    process = subprocess.Popen(
        [sys.executable, "manage.py", "serve", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while True:
        try:
            get(connection(str(port)))
            break
        except (OSError, AssertionError, http.client.HTTPException):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)
    argv = Path(f"/proc/{process.pid}/cmdline").read_bytes().split(b"\0")
    commands = json.loads(argv[2])
    upstream = commands["front"][commands["front"].index("--upstream") + 1]
    return process, port, upstream


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(describe_machine())
    with tempfile.TemporaryDirectory(prefix="front-bench-") as data_dir:
        process, port, upstream = start_serve(data_dir)
        try:
            figures: dict[str, dict[str, list[float]]] = {"front": {}, "direct": {}}
            for _ in range(args.rounds):
                for name, where in (("front", str(port)), ("direct", upstream)):
                    got = figures[name]
                    kept = latencies(where, args.requests, keep_alive=True)
                    fresh = latencies(where, args.requests // 4, keep_alive=False)
                    got.setdefault("kept p50 ms", []).append(statistics.median(kept) * 1000)
                    got.setdefault("kept p95 ms", []).append(
                        statistics.quantiles(kept, n=20)[-1] * 1000
                    )
                    got.setdefault("new-connection p50 ms", []).append(
                        statistics.median(fresh) * 1000
                    )
                    got.setdefault(f"{args.clients} clients req/s", []).append(
                        throughput(where, args.requests, args.clients)
                    )
            cpu = cpu_per_request(process, str(port), args.requests)
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=60)
    for role, milliseconds in cpu.items():
        print(f"CPU per GET through the front: {role} {milliseconds:.2f} ms")
    for figure in figures["front"]:
        front = statistics.median(figures["front"][figure])
        direct = statistics.median(figures["direct"][figure])
        print(f"{figure:26} front {front:8.2f}  direct {direct:8.2f}  ratio {front / direct:.2f}")


if __name__ == "__main__":
    main()
