"""The Prolog oracle: SWI-Prolog in a separate process, driven through its Machine Query
Interface (``swiplserver``).

Each ``Oracle`` (a context manager) starts one ``swipl`` process (a Unix socket, no TCP
port; ``-f none``, no packs), loads ``oracle_server.pl`` and gives it limits: Prolog
stacks (``--stack-limit``), address space (RLIMIT_AS set with ``prlimit`` right after the
start, before any untrusted text arrives), and per call a time limit
(``call_with_time_limit``), an inference limit (``call_with_inference_limit``) and a
watchdog that kills the process if a call does not come back in time. Every source is
loaded with ``sandboxed(true)`` into a fresh module; every query passes
``library(sandbox)``'s ``safe_goal`` first, so no shell, file or network predicate can run.
The process is killed on exit, whatever happened.

Messages beyond ``MAX_MESSAGE_BYTES`` stop the load (``OracleError`` kind ``output``); a
Prolog stack overflow while loading is ``OracleError`` kind ``memory``.

Use an ``Oracle`` to share one process across a trusted batch; ``oneshot``'s
``check_rule_file(source)`` and ``satisfying(rule, facts)`` run one request in a ``swipl`` of
its own under hard wall-clock, output and memory limits (what the web and the worker use).
"""

from __future__ import annotations

import itertools
import resource
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from swiplserver import PrologConnectionFailedError, PrologError, PrologMQI

from evaluation.prolog.rule import RuleFile

__all__ = [
    "PrologMessage",
    "OracleError",
    "QueryResult",
    "Oracle",
]

SERVER = Path(__file__).with_name("oracle_server.pl")
STACK_LIMIT_MB = 256
STACK_LIMIT = f"{STACK_LIMIT_MB}m"
MEMORY_MB = 1024
ADDRESS_SPACE = MEMORY_MB * 1024**2
MAX_MESSAGE_BYTES = 64 * 1024
LOAD_TIME_LIMIT_S = 10.0
INFERENCE_LIMIT = 10_000_000
MAX_SOLUTIONS = 1_000
GRACE_S = 5.0


@dataclass(frozen=True)
class PrologMessage:
    """An error or warning swipl printed while loading a source (``line`` 0: unknown)."""

    kind: str
    line: int
    text: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.kind}: {self.text}"


class OracleError(RuntimeError):
    """The oracle could not answer; ``kind``: load, syntax, sandbox, time, inferences,
    memory, output, process."""

    def __init__(
        self, message: str, *, kind: str, messages: tuple[PrologMessage, ...] = ()
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.messages = messages


@dataclass(frozen=True)
class QueryResult:
    """Distinct bindings (variable name -> ``writeq`` text) and whether more existed."""

    bindings: list[dict[str, str]]
    truncated: bool


def prolog_string(text: str) -> str:
    """``text`` as a Prolog double-quoted string literal."""
    out = ['"']
    for ch in text:
        if ch in '\\"':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ord(ch) < 32 or ord(ch) == 127:
            out.append(f"\\x{ord(ch):x}\\")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


class Oracle:
    """One swipl process for a batch of loads and queries (``with Oracle() as o: ...``)."""

    _modules = itertools.count(1)

    def __init__(
        self, *, stack_limit: str = STACK_LIMIT, address_space: int = ADDRESS_SPACE
    ) -> None:
        self._stack_limit = stack_limit
        self._address_space = address_space
        self._mqi: PrologMQI | None = None
        self._thread = None

    def __enter__(self) -> Oracle:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        args = [f"--stack-limit={self._stack_limit}", "--no-packs", "-f", "none", "--no-tty"]
        self._mqi = PrologMQI(unix_domain_socket="", prolog_path_args=args)
        try:
            self._mqi.start()
            pid = self._mqi.process_id()
            resource.prlimit(pid, resource.RLIMIT_AS, (self._address_space, self._address_space))
            self._thread = self._mqi.create_thread()
            self._thread.start()
            self._call(f"consult({prolog_string(str(SERVER))})", timeout_s=30)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Kill the process (no state worth an orderly shutdown)."""
        mqi, self._mqi, self._thread = self._mqi, None, None
        if mqi is not None:
            mqi.stop(kill=True)

    def _kill(self, fired: threading.Event) -> None:
        fired.set()
        mqi, thread = self._mqi, self._thread
        if mqi is not None and mqi.process_id() is not None:
            mqi._process.kill()  # swiplserver has no public kill of a busy process
        if thread is not None and thread._socket is not None:
            # swiplserver's receive loop spins on a closed connection; a closed socket
            # makes its next recv raise instead.
            thread._socket.close()

    def _call(self, goal: str, *, timeout_s: float):
        if self._thread is None:
            raise OracleError("the oracle is not running", kind="process")
        fired = threading.Event()
        watchdog = threading.Timer(timeout_s + GRACE_S, self._kill, args=(fired,))
        watchdog.daemon = True
        watchdog.start()
        try:
            return self._thread.query(goal)
        except (PrologError, OSError, ValueError, EOFError) as exc:
            if fired.is_set():
                raise OracleError(
                    f"killed after {timeout_s + GRACE_S:g} s without an answer", kind="time"
                ) from exc
            if isinstance(exc, PrologError) and not isinstance(exc, PrologConnectionFailedError):
                raise OracleError(f"Prolog raised: {exc}", kind="process") from exc
            self.close()
            raise OracleError(
                f"the Prolog process stopped answering ({exc})", kind="process"
            ) from exc
        finally:
            watchdog.cancel()
            if fired.is_set():
                self.close()

    def new_module(self) -> str:
        return f"rules_{next(self._modules)}"

    def load(
        self, module: str, source: str, *, time_limit_s: float = LOAD_TIME_LIMIT_S
    ) -> list[PrologMessage]:
        """Load ``source`` sandboxed into ``module``; every error and warning with its line."""
        text, limit = prolog_string(source), float(time_limit_s)
        goal = f"fallacy_oracle:oracle_load({module}, {text}, {limit}, {MAX_MESSAGE_BYTES}, M)"
        answer = self._call(goal, timeout_s=time_limit_s)
        if answer is False or not answer:
            raise OracleError("loading failed without a message", kind="load")
        return load_messages(answer[0]["M"], time_limit_s=time_limit_s)

    def query(
        self,
        module: str,
        query_text: str,
        *,
        time_limit_s: float,
        inference_limit: int,
        max_solutions: int,
    ) -> QueryResult:
        """Distinct solutions of ``query_text`` in ``module`` within the limits."""
        goal = (
            f"fallacy_oracle:oracle_query({module}, {prolog_string(query_text)}, "
            f"{int(max_solutions)}, {float(time_limit_s)}, {int(inference_limit)}, N, R)"
        )
        answer = self._call(goal, timeout_s=time_limit_s)
        if not answer:
            raise OracleError("the query helper failed", kind="process")
        names, result = answer[0]["N"], answer[0]["R"]
        functor, args = result["functor"], result["args"]
        if functor == "error":
            kind, text = args
            raise OracleError(f"query {query_text}: {text}", kind=str(kind))
        rows, truncated = args
        return query_result(names, rows, truncated == "true")

    def check(self, source: str, *, time_limit_s: float = LOAD_TIME_LIMIT_S) -> list[PrologMessage]:
        return self.load(self.new_module(), source, time_limit_s=time_limit_s)

    def satisfying(
        self,
        rule: RuleFile,
        facts: list[str],
        *,
        time_limit_s: float = 5.0,
        inference_limit: int = INFERENCE_LIMIT,
        max_solutions: int = MAX_SOLUTIONS,
    ) -> QueryResult:
        """Load ``rule``'s clauses (not its examples) and ``facts`` into a fresh module and
        return the query's distinct solutions. Facts must come from ``facts.parse_facts``."""
        module = self.new_module()
        messages = self.load(module, satisfying_source(rule, facts), time_limit_s=time_limit_s)
        raise_load_errors(rule, messages)
        return self.query(
            module,
            rule.query,
            time_limit_s=time_limit_s,
            inference_limit=inference_limit,
            max_solutions=max_solutions,
        )


def load_messages(rows: Sequence[Sequence[object]], *, time_limit_s: float) -> list[PrologMessage]:
    """``oracle_load``'s ``[Kind, Line, Text]`` rows as messages; ``OracleError`` naming the
    limit when their text passed ``MAX_MESSAGE_BYTES`` (kind ``output``), the load took
    longer than ``time_limit_s`` (kind ``time``) or a Prolog stack overflowed (``memory``)."""
    messages = [PrologMessage(str(k), int(line), str(text).rstrip()) for k, line, text in rows]
    if any(m.kind == "limit" for m in messages):
        raise OracleError(
            f"the rule file's check printed more than {MAX_MESSAGE_BYTES} bytes of messages",
            kind="output",
        )
    if any(m.kind == "time" for m in messages):
        raise OracleError(
            f"the rule file's check took longer than {time_limit_s:g} s (time limit)", kind="time"
        )
    memory = tuple(m for m in messages if m.kind == "memory")
    if memory:
        raise OracleError(
            f"the rule file's check used more than its memory ({STACK_LIMIT_MB} MB of Prolog "
            f"stacks) at line {memory[0].line}",
            kind="memory",
            messages=memory,
        )
    return messages


def satisfying_source(rule: RuleFile, facts: list[str]) -> str:
    """What ``satisfying`` loads: ``rule``'s clauses (not its examples), then ``facts``."""
    return (
        rule.dynamic_directive()
        + rule.rule_clauses
        + "".join(f"{fact}.\n" for fact in sorted(facts, key=_functor))
    )


def raise_load_errors(rule: RuleFile, messages: list[PrologMessage]) -> None:
    errors = tuple(m for m in messages if m.kind == "error")
    if errors:
        raise OracleError(
            f"rule file {rule.type!r} does not load: {errors[0]}", kind="load", messages=errors
        )


def query_result(names: list[str], rows: list[list[str]], truncated: bool) -> QueryResult:
    return QueryResult([dict(zip(names, row, strict=True)) for row in rows], truncated)


def _functor(fact: str) -> str:
    """Group facts by predicate (discontiguous clauses would only warn, but stay tidy)."""
    return fact.split("(", 1)[0]
