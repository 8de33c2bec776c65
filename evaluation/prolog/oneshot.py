"""One oracle request in a ``swipl`` process of its own, under hard limits.

``check_rule_file(source)`` and ``satisfying(rule, facts)`` (what the web and the worker
use) start ``swipl`` on ``oracle_once.pl`` in a new process group, set its address space
(``MEMORY_MB``) and CPU time (``RLIMIT_CPU``: the wall-clock deadline and a second, then
``SIGXCPU``; ``SIGKILL`` a second later) and lower its priority (``NICE``: the web's threads
come first on a busy CPU), all before any untrusted text is sent, write the request to its
standard input and read its answer. The caller never waits past the wall-clock deadline (the
Prolog time limit plus ``STARTUP_S``) and never keeps more than ``MAX_OUTPUT_BYTES`` of what the
process prints; at either limit, and in every case once the answer is in, the whole
process group is killed and the process reaped. A limit gives ``OracleError`` naming it
(kind ``time``, ``output`` or ``memory``). The same sandbox and per-call limits as
``Oracle`` apply inside (``oracle_server.pl``).
"""

from __future__ import annotations

import json
import math
import os
import secrets
import selectors
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

from evaluation.prolog.oracle import (
    INFERENCE_LIMIT,
    LOAD_TIME_LIMIT_S,
    MAX_MESSAGE_BYTES,
    MAX_SOLUTIONS,
    MEMORY_MB,
    STACK_LIMIT,
    OracleError,
    PrologMessage,
    QueryResult,
    load_messages,
    query_result,
    raise_load_errors,
    satisfying_source,
)
from evaluation.prolog.rule import RuleFile

__all__ = ["MAX_OUTPUT_BYTES", "STARTUP_S", "check_rule_file", "query", "satisfying"]

# The wall-clock deadline is the Prolog time limit plus STARTUP_S; the address space is
# oracle.MEMORY_MB; messages are cut at oracle.MAX_MESSAGE_BYTES.
ONCE = Path(__file__).with_name("oracle_once.pl")
STARTUP_S = 5.0  # over the Prolog time limit: start-up, loading the helper, the answer
MAX_OUTPUT_BYTES = 4 * MAX_MESSAGE_BYTES + 256 * 1024  # the answer (JSON) and any stray text
MAX_STDERR_KEPT = 2048
POLL_S = 0.2  # how often the process's peak address space is read
MEMORY_NEAR = 0.97
CHECK = "the rule file's check"
NICE = 10  # added to the swipl process's nice value


def _command(cpu_s: int) -> list[str]:
    """``swipl`` on ``oracle_once.pl``, its address space (set later, swipl can hang
    instead of aborting when an allocation fails) and CPU seconds limited and its nice value
    raised by ``NICE`` before it starts."""
    return [
        "/bin/sh",
        "-c",
        f"ulimit -v {MEMORY_MB * 1024} && ulimit -t {cpu_s + 1} && ulimit -S -t {cpu_s} "
        f'&& exec nice -n {NICE} "$@"',
        "sh",
        "swipl",
        f"--stack-limit={STACK_LIMIT}",
        "--no-packs",
        "-f",
        "none",
        "--no-tty",
        "-q",
        "-g",
        "main",
        "-t",
        "halt",
        str(ONCE),
    ]


def _exchange(
    process: subprocess.Popen, payload: bytes, deadline: float
) -> tuple[bytes, bytes, str | None]:
    """Write ``payload``, read stdout and stderr until both close and the process exits;
    ``(stdout, stderr tail, None)``, or the limit passed (``"time"``, ``"output"``,
    ``"memory"``: its address space reached ``MEMORY_NEAR`` of the limit, where swipl may
    hang on a failed allocation instead of aborting)."""
    stdin, stdout, stderr = (s.fileno() for s in (process.stdin, process.stdout, process.stderr))
    streams = {stdout: bytearray(), stderr: bytearray()}

    def done(passed: str | None) -> tuple[bytes, bytes, str | None]:
        return bytes(streams[stdout]), bytes(streams[stderr]), passed

    with selectors.DefaultSelector() as selector:
        for fd in (*streams, stdin):
            os.set_blocking(fd, False)
        selector.register(stdin, selectors.EVENT_WRITE)
        for fd in streams:
            selector.register(fd, selectors.EVENT_READ)
        sent, total = 0, 0
        while len(selector.get_map()) > 0:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return done("time")
            if _peak_mb(process.pid) >= MEMORY_NEAR * MEMORY_MB:
                return done("memory")
            for key, _ in selector.select(min(remaining, POLL_S)):
                fd = key.fd
                if fd == stdin:
                    try:
                        sent += os.write(fd, payload[sent : sent + 65536])
                    except BlockingIOError:
                        continue
                    except BrokenPipeError:  # it exited: its answer (or none) says why
                        sent = len(payload)
                    if sent >= len(payload):
                        selector.unregister(fd)
                        process.stdin.close()
                    continue
                chunk = os.read(fd, 65536)
                if not chunk:
                    selector.unregister(fd)
                    continue
                total += len(chunk)
                if total > MAX_OUTPUT_BYTES:
                    return done("output")
                streams[fd] += chunk
                if fd == stderr:
                    del streams[fd][:-MAX_STDERR_KEPT]
    try:
        process.wait(timeout=max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        return done("time")
    return done(None)


def _peak_mb(pid: int) -> float:
    """The process's peak address space (MB; 0 when unknown)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0.0
    for line in status.splitlines():
        if line.startswith("VmPeak:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _stop(process: subprocess.Popen) -> None:
    """Kill the process group (the leader, even exited, keeps its id until reaped), reap."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    process.wait()
    for stream in (process.stdin, process.stdout, process.stderr):
        if stream is not None and not stream.closed:
            stream.close()


def _run(request: dict[str, Any], *, time_limit_s: float, what: str) -> dict[str, Any]:
    """Send ``request`` to a fresh ``swipl`` under the limits; its JSON answer. ``what``
    names the work in the limits' messages."""
    nonce = secrets.token_hex(16)
    payload = json.dumps({**request, "nonce": nonce, "max_bytes": MAX_MESSAGE_BYTES}).encode()
    wall_s = time_limit_s + STARTUP_S
    cpu_s = math.ceil(wall_s) + 1  # a backstop: the wall-clock deadline comes first
    environment = {"PATH": os.environ.get("PATH", os.defpath), "LANG": "C.UTF-8"}
    process = subprocess.Popen(
        _command(cpu_s),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd="/",
        env=environment,
        start_new_session=True,
        close_fds=True,
    )
    try:
        out, err, passed = _exchange(process, payload, time.monotonic() + wall_s)
    finally:
        _stop(process)
    if passed == "memory":
        raise OracleError(f"{what} used more than {MEMORY_MB} MB", kind="memory")
    if passed == "time":
        raise OracleError(f"{what} took longer than {wall_s:g} s", kind="time")
    if passed == "output":
        raise OracleError(f"{what} printed more than {MAX_OUTPUT_BYTES} bytes", kind="output")
    marker = f"\n{nonce}\n".encode()
    if process.returncode == 0 and marker in out:
        return json.loads(out.rsplit(marker, 1)[1])
    stderr = err.decode("utf-8", "replace").strip()
    if process.returncode == -signal.SIGXCPU:
        raise OracleError(f"{what} used more than {cpu_s} s of CPU", kind="time")
    if process.returncode == -signal.SIGABRT or "allocate memory" in stderr:
        raise OracleError(f"{what} used more than {MEMORY_MB} MB", kind="memory")
    raise OracleError(
        f"swipl stopped without an answer (exit status {process.returncode}): {stderr[-500:]}",
        kind="process",
    )


def check_rule_file(source: str, *, time_limit_s: float = LOAD_TIME_LIMIT_S) -> list[PrologMessage]:
    """Load ``source`` in a fresh, sandboxed swipl process; every error and warning.

    A limit passed (time, memory, messages) is reported as an error message (line 0) that
    names it.
    """
    request = {"op": "check", "source": source, "time_limit": float(time_limit_s)}
    try:
        answer = _run(request, time_limit_s=time_limit_s, what=CHECK)
        return load_messages(answer["messages"], time_limit_s=time_limit_s)
    except OracleError as exc:
        return [PrologMessage("error", 0, str(exc))]


def query(
    rule: RuleFile,
    facts: list[str],
    *,
    time_limit_s: float = 5.0,
    inference_limit: int = INFERENCE_LIMIT,
    max_solutions: int = MAX_SOLUTIONS,
) -> QueryResult:
    """``Oracle.satisfying`` in a process of its own, under the hard limits."""
    request = {
        "op": "query",
        "source": satisfying_source(rule, facts),
        "query": rule.query,
        "max_solutions": int(max_solutions),
        "time_limit": float(time_limit_s),
        "inference_limit": int(inference_limit),
    }
    # Loading and querying each have the Prolog time limit.
    answer = _run(request, time_limit_s=2 * time_limit_s, what="the rule's query")
    raise_load_errors(rule, load_messages(answer["messages"], time_limit_s=time_limit_s))
    result = answer["result"]
    if "error" in result:
        raise OracleError(f"query {rule.query}: {result['text']}", kind=str(result["error"]))
    return query_result(answer["names"], result["rows"], bool(result["truncated"]))


def satisfying(
    rule: RuleFile,
    facts: list[str],
    *,
    time_limit_s: float = 5.0,
    inference_limit: int = INFERENCE_LIMIT,
    max_solutions: int = MAX_SOLUTIONS,
) -> list[dict[str, str]]:
    """Distinct bindings of ``rule``'s query over ``facts`` (the first ``max_solutions``).

    Raises ``OracleError`` (``kind`` time, inferences, memory, output, sandbox, load) when
    the rule cannot be answered within the limits.
    """
    return query(
        rule,
        facts,
        time_limit_s=time_limit_s,
        inference_limit=inference_limit,
        max_solutions=max_solutions,
    ).bindings
