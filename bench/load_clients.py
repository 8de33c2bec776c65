"""The clients of ``load_annotate.py``: annotators that save, retry and remember
(``load_verdict.py`` checks them).

Each client is a thread with one keep-alive HTTP connection and token auth. It keeps its
belief of the server state (span id -> bounds, labels, details, revision; the deleted ids;
per annotation the number of writes applied) and retries like the browser's autosave queue
(``frontend/src/lib/autosave.ts``): a connection error or a 5xx -> the same request again after
a short back-off (a create keeps its client_id). Every failed attempt is kept with its times so
the report can tell errors inside the restart windows from errors outside them.
"""

from __future__ import annotations

import http.client
import json
import random
import socket
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

HOST = "127.0.0.1"
GIVE_UP_S = 180.0
IDLE_KEEPALIVE_S = 1.0  # a socket idle this long may have been closed by the server
NO_FALLACY = "no fallacy"


@dataclass
class Fixture:
    tokens: list[str]
    assigned: list[list[int]]  # per annotator: document ids
    sentences: dict[int, list[tuple[int, int]]]  # document id -> sentence bounds
    slots: dict[str, list[str]]  # label -> slot names


class Timeline:
    """Restart windows as (name, began, up), monotonic seconds; ``origin`` is the run's start."""

    def __init__(self) -> None:
        self.windows: list[tuple[str, float, float]] = []
        self.origin = 0.0
        self._lock = threading.Lock()

    def add(self, name: str, began: float, up: float) -> None:
        with self._lock:
            self.windows.append((name, began, up))

    def inside(self, t0: float, t1: float) -> bool:
        return any(t0 <= up and t1 >= began for _, began, up in self.windows)

    def last_up_before(self, t: float) -> float | None:
        ups = [up for _, _, up in self.windows if up <= t]
        return max(ups) if ups else None


@dataclass
class Attempt:
    status: int | None  # None: no answer (connection error)
    data: Any
    t0: float
    t1: float
    error: str = ""
    conn_opened: float = 0.0  # when the socket this attempt used was opened
    idle: float | None = None  # a reused keep-alive socket: seconds since its last answer


@dataclass
class Belief:
    doc: int
    client_id: str
    start: int
    end: int
    labels: list[str]
    details: dict[str, Any]
    revision: int

    def fields(self) -> dict[str, Any]:
        return {
            "start": self.start,
            "end": self.end,
            "labels": self.labels,
            "details": self.details,
        }


@dataclass
class ClientState:
    index: int
    port: int
    token: str
    docs: list[int]
    annotations: dict[int, dict[str, int]] = field(default_factory=dict)  # doc -> id, base, applied
    alive: dict[int, Belief] = field(default_factory=dict)
    deleted: set[int] = field(default_factory=set)
    saves_done: int = 0
    ops: Counter = field(default_factory=Counter)
    failed: list[tuple[str, Attempt]] = field(default_factory=list)  # (op, attempt)
    latency: dict[str, list[tuple[float, float]]] = field(default_factory=dict)  # 1st answers
    save_latency: list[float] = field(default_factory=list)  # including retries
    conflicts: Counter = field(default_factory=Counter)
    replays: Counter = field(default_factory=Counter)
    resolved: Counter = field(default_factory=Counter)
    unexpected: list[str] = field(default_factory=list)
    gave_up: int = 0


class Http:
    def __init__(self, port: int, token: str) -> None:
        self.port = port
        self.headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}
        self.conn: http.client.HTTPConnection | None = None
        self.opened = 0.0
        self.last_answer: float | None = None  # None: no request on this socket yet

    def _connection(self) -> http.client.HTTPConnection:
        if self.conn is None:
            self.conn = http.client.HTTPConnection(HOST, self.port, timeout=60)
            self.opened = time.monotonic()
            self.last_answer = None
        return self.conn

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
        self.conn = None

    def send(self, method: str, path: str, body: Any = None, *, drop: bool = False) -> Attempt:
        """One attempt. ``drop``: send the request and close the socket unread (a lost answer)."""
        payload = None if body is None else json.dumps(body)
        t0 = time.monotonic()
        conn = self._connection()
        opened = self.opened
        idle = None if self.last_answer is None else t0 - self.last_answer
        try:
            if drop:
                conn.request(method, path, body=payload, headers=self.headers)
                conn.sock.shutdown(socket.SHUT_RDWR)
                self.close()
                return Attempt(None, None, t0, time.monotonic(), "dropped by the client", opened)
            conn.request(method, path, body=payload, headers=self.headers)
            response = conn.getresponse()
            raw = response.read()
        except (OSError, http.client.HTTPException) as exc:
            self.close()
            return Attempt(None, None, t0, time.monotonic(), type(exc).__name__, opened, idle)
        self.last_answer = time.monotonic()
        try:
            data = json.loads(raw) if raw else None
        except ValueError:
            data = raw[:200].decode(errors="replace")
        return Attempt(response.status, data, t0, time.monotonic(), "", opened)


def _canon_details(details: dict[str, Any] | None) -> dict[str, Any]:
    return {
        k: {"slots": dict(v.get("slots") or {}), "explanation": v.get("explanation", "")}
        for k, v in (details or {}).items()
    }


def same_fields(belief: Belief, span: dict[str, Any]) -> bool:
    return (
        span.get("start") == belief.start
        and span.get("end") == belief.end
        and sorted(span.get("labels") or []) == belief.labels
        and _canon_details(span.get("details")) == _canon_details(belief.details)
    )


class Client:
    """One annotator's session; every public method is one save (one of the S)."""

    def __init__(self, state: ClientState, fx: Fixture, rng: random.Random) -> None:
        self.s, self.fx, self.rng = state, fx, rng
        self.http = Http(state.port, state.token)
        self.labels = sorted(fx.slots)

    # --- sending with browser-like retries --------------------------------------------------

    def call(
        self, op: str, method: str, path: str, body: Any = None, *, drop: bool = False
    ) -> tuple[Attempt, bool]:
        """Send until an answer that is not a 5xx; returns (answer, ambiguous): ambiguous when
        an earlier attempt may have been applied (no answer, or a 5xx)."""
        started = time.monotonic()
        ambiguous = False
        delay = 0.05
        first = True
        while True:
            a = self.http.send(method, path, body, drop=drop and first)
            if a.status is not None and a.status < 500:
                if first:
                    self.s.latency.setdefault(op, []).append((a.t0, a.t1))
                self.s.save_latency.append(a.t1 - started)
                return a, ambiguous
            if a.error != "dropped by the client":
                self.s.failed.append((op, a))
            ambiguous, first = True, False
            if time.monotonic() - started > GIVE_UP_S:
                self.s.gave_up += 1
                return a, ambiguous
            time.sleep(delay)
            delay = min(1.0, delay * 2)

    def note(self, message: str) -> None:
        self.s.unexpected.append(f"client {self.s.index}: {message}")

    # --- building changes --------------------------------------------------------------------

    def details_for(self, labels: list[str], tag: str) -> dict[str, Any]:
        out = {}
        for label in labels:
            if label == NO_FALLACY:
                continue
            text = f"{tag} — «{label}» ✓"
            if self.rng.random() < 0.05:
                text += " " + "long explanation " * 80
            out[label] = {
                "slots": {slot: f"{slot}={tag}" for slot in self.fx.slots.get(label, [])},
                "explanation": text,
            }
        return out

    def random_bounds(self, doc: int) -> tuple[int, int]:
        sentences = self.fx.sentences[doc]
        first = self.rng.randrange(len(sentences))
        last = min(len(sentences) - 1, first + self.rng.randrange(3))
        return sentences[first][0], sentences[last][1]

    def random_labels(self) -> list[str]:
        labels = self.rng.sample(self.labels, self.rng.choice([1, 1, 2, 3]))
        if self.rng.random() < 0.2:
            labels.append(NO_FALLACY)
        return sorted(labels)

    def applied(self, doc: int) -> None:
        self.s.annotations[doc]["applied"] += 1

    # --- the saves ---------------------------------------------------------------------------

    def open_documents(self) -> None:
        for doc in self.s.docs:
            a, _ = self.call("start", "POST", f"/api/documents/{doc}/my-annotation/")
            if a.status not in (200, 201):
                raise RuntimeError(f"my-annotation {doc}: {a.status} {a.data}")
            self.s.annotations[doc] = {"id": a.data["id"], "base": a.data["revision"], "applied": 0}

    def create(self, doc: int, *, drop: bool, replay: bool) -> None:
        start, end = self.random_bounds(doc)
        labels = self.random_labels()
        tag = f"c{self.s.index}-{self.s.saves_done}"
        body = {
            "start": start,
            "end": end,
            "labels": labels,
            "details": self.details_for(labels, tag),
            "client_id": str(uuid.uuid4()),
        }
        path = f"/api/annotations/{self.s.annotations[doc]['id']}/spans/"
        a, ambiguous = self.call("create", "POST", path, body, drop=drop)
        belief = Belief(doc, body["client_id"], start, end, labels, body["details"], 1)
        if a.status == 200 and ambiguous:
            self.s.resolved["create (200: created by the lost attempt)"] += 1
        elif a.status != 201:
            return self.note(f"create -> {a.status} {str(a.data)[:200]}")
        if not same_fields(belief, a.data) or a.data.get("revision") != 1:
            self.note(f"create echo differs: sent {belief.fields()}, got {a.data}")
        self.s.alive[a.data["id"]] = belief
        self.applied(doc)
        if replay:  # the same create again: the same span, nothing new
            r, _ = self.call("create", "POST", path, body)
            ok = r.status == 200 and r.data.get("id") == a.data["id"]
            self.s.replays["create->200 same span" if ok else "create WRONG"] += 1
            if not ok:
                self.note(f"replayed create -> {r.status} {str(r.data)[:200]}")

    def update(self, span_id: int, kind: str, *, drop: bool, replay: bool) -> None:
        b = self.s.alive[span_id]
        tag = f"u{self.s.index}-{self.s.saves_done}"
        body: dict[str, Any] = {"revision": b.revision}
        new = Belief(**{**b.__dict__})
        if kind == "labels":
            labels = self.random_labels()
            details = self.details_for(labels, tag)
            for label in labels:  # keep what was written for labels that stay
                if label in b.details:
                    details[label] = b.details[label]
            body.update(labels=labels, details=details)
            new.labels, new.details = labels, details
        elif kind == "template":
            details = {**b.details}
            fallacies = [x for x in b.labels if x != NO_FALLACY]
            label = self.rng.choice(fallacies)
            details[label] = self.details_for([label], tag)[label]
            body["details"] = details
            new.details = details
        else:
            new.start, new.end = self.random_bounds(b.doc)
            body.update(start=new.start, end=new.end)
        a, ambiguous = self.call(kind, "PATCH", f"/api/spans/{span_id}/", body, drop=drop)
        new.revision = b.revision + 1
        if a.status == 200 and a.data.get("revision") == new.revision:
            if not same_fields(new, a.data):
                self.note(f"update echo differs: sent {new.fields()}, got {a.data}")
        elif a.status == 409 and ambiguous and self._is(a, new):
            self.s.resolved["change (409: applied by the lost attempt)"] += 1
        else:
            return self.note(f"update {span_id} -> {a.status} {str(a.data)[:300]}")
        self.s.alive[span_id] = new
        self.applied(b.doc)
        if replay:  # the same change again: its revision is stale now
            r, _ = self.call("conflict", "PATCH", f"/api/spans/{span_id}/", body)
            self._expect_conflict(r, new, "replayed change")

    def delete(self, span_id: int, *, drop: bool, replay: bool) -> None:
        b = self.s.alive[span_id]
        path = f"/api/spans/{span_id}/?revision={b.revision}"
        a, ambiguous = self.call("delete", "DELETE", path, drop=drop)
        if a.status == 404 and ambiguous:
            self.s.resolved["delete (404: deleted by the lost attempt)"] += 1
        elif a.status != 204:
            return self.note(f"delete {span_id} -> {a.status} {str(a.data)[:200]}")
        del self.s.alive[span_id]
        self.s.deleted.add(span_id)
        self.applied(b.doc)
        if replay:
            r, _ = self.call("delete", "DELETE", path)
            self.s.replays["delete->404" if r.status == 404 else "delete WRONG"] += 1
            if r.status != 404:
                self.note(f"replayed delete {span_id} -> {r.status}")

    def stale(self, span_id: int, *, drop: bool) -> None:
        """A write with a revision the span has moved past: must be a 409 and change nothing."""
        b = self.s.alive[span_id]
        if b.revision < 2:
            return self.update(span_id, "template", drop=False, replay=True)  # replay = stale
        old = self.rng.randrange(1, b.revision)
        if self.rng.random() < 0.3:
            a, _ = self.call(
                "conflict", "DELETE", f"/api/spans/{span_id}/?revision={old}", drop=drop
            )
        else:
            body = {"revision": old, "labels": self.random_labels()}
            a, _ = self.call("conflict", "PATCH", f"/api/spans/{span_id}/", body, drop=drop)
        self._expect_conflict(a, b, "stale revision")

    def _is(self, a: Attempt, belief: Belief) -> bool:
        current = (a.data or {}).get("current") or {}
        return current.get("revision") == belief.revision and same_fields(belief, current)

    def _expect_conflict(self, a: Attempt, belief: Belief, what: str) -> None:
        self.s.conflicts["deliberate"] += 1
        if a.status == 409 and self._is(a, belief):
            self.s.conflicts["got_409"] += 1
        else:
            self.s.conflicts["wrong"] += 1
            self.note(f"{what} on span -> {a.status} {str(a.data)[:300]} (believed {belief})")

    def one_save(self) -> None:
        doc = self.rng.choice(self.s.docs)
        mine = [sid for sid, b in self.s.alive.items() if b.doc == doc]
        drop = self.rng.random() < 0.03
        replay = self.rng.random() < 0.05
        r = self.rng.random()
        if not mine or (r < 0.30 and len(mine) < 25):
            op = "create"
            self.create(doc, drop=drop, replay=replay)
        else:
            span_id = self.rng.choice(mine)
            if len(mine) >= 25 or r < 0.42:
                op = "delete"
                self.delete(span_id, drop=drop, replay=replay)
            elif r < 0.50:
                op = "conflict"
                self.stale(span_id, drop=drop)
            else:
                op = self.rng.choices(["labels", "template", "bounds"], [4, 5, 2])[0]
                self.update(span_id, op, drop=drop, replay=replay)
        self.s.ops[op + (" (dropped)" if drop else "")] += 1


def run_client(
    *,
    state: ClientState,
    fx: Fixture,
    saves: int,
    seed: int,
    barrier: threading.Barrier,
    timeline: Timeline,
    stop: threading.Event,
    gate: threading.Event | None = None,
    gate_at: float = 0.9,
) -> None:
    """``gate``: before its last saves (``gate_at``) the client waits until the restarts are
    done, so a short run cannot end before its faults."""
    client = Client(state, fx, random.Random(seed))
    try:
        client.open_documents()
    finally:
        barrier.wait()
    for i in range(saves):
        if stop.is_set():
            break
        if gate is not None and i == int(gate_at * saves):
            gate.wait(timeout=900)
        try:
            client.one_save()
        except Exception as exc:  # noqa: BLE001 - a bug in the client: report, keep going
            client.note(f"client error {type(exc).__name__}: {exc}")
        state.saves_done += 1
    client.http.close()


# --- read-back and report -------------------------------------------------------------------
