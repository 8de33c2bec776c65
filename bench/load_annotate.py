"""Annotators under load while the web workers and the database restart: is anything lost?

Starts its own PostgreSQL server (``pg_scratch``: initdb + pg_ctl on a port in 55432–55439,
never the machine's cluster), migrates a database there, builds a project through the
services (documents, N annotators with tokens, each assigned some documents), starts gunicorn
and runs N client threads x S saves: span creates, label changes, template (slots and
explanation) changes, bound changes, deletes and deliberate conflicts (a stale revision must
be a 409 whose ``current`` is what the client last saved), some sent twice on purpose (a
replayed create must return the same span, a replayed change must be a 409, a replayed delete
a 404) and some on a connection the client drops before reading the answer.

During the run it restarts the web server once (``--web-restart kill``: SIGKILL to gunicorn's
process group, then a new gunicorn on the same port; ``term``: graceful) and the PostgreSQL
server once (``pg_ctl stop -m fast``, ``--down-s`` seconds down, ``pg_ctl start``). Clients
retry like the browser's autosave queue: on a connection error or a 5xx the same request again
(creates keep their client_id); a 409 on a retried change whose ``current`` is the change
itself, or a 404 on a retried delete, means the first attempt was applied.

Afterwards it reads every annotation back through the API (and the span table directly) and
compares with what each client believes it saved. Exit status 1 when anything was lost,
duplicated, different, a conflict was not a 409, a save gave up, or a server error (5xx, or a
refused connection on a fresh socket) fell outside the restart windows.

    .venv/bin/python bench/load_annotate.py [--annotators 20] [--saves 500] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from load_clients import ClientState, Fixture, Timeline, run_client  # bench/ is its folder
from load_verdict import print_report, summarise
from machine import machine_facts
from pg_scratch import ScratchCluster
from servers import HOST, ROOT, document_of_sentences, free_port, setup_django

GUNICORN_CONF = ROOT / "platform" / "fallacy_platform" / "gunicorn.conf.py"


# --- fixture ---------------------------------------------------------------------------------


def sentence_texts(doc: int, n: int) -> list[str]:
    return [
        f"Document {doc} sentence {i}: critics of plan {i} simply hate progress, "
        f"so the plan — «naïve» or not — must be right."
        for i in range(n)
    ]


def build_fixture(db_url: str, *, annotators: int, documents: int, per_annotator: int) -> Fixture:
    """Migrate and fill the database through the services (in this process)."""
    setup_django(db_url)
    from django.contrib.auth.models import User
    from django.db import connection
    from rest_framework.authtoken.models import Token

    from annotations.models import Document, Sentence, TaxonomyNode
    from annotations.services.documents import add_documents, assign_documents
    from annotations.services.projects import add_member, create_project
    from annotations.services.taxonomy import install_preset

    taxonomy = install_preset(name="mafalda")
    project = create_project(name="load", taxonomy=taxonomy)
    texts = [document_of_sentences(sentence_texts(d, 20), f"load-{d}") for d in range(documents)]
    docs = add_documents(project=project, texts=texts)
    tokens: list[str] = []
    assigned: list[list[int]] = []
    for i in range(annotators):
        user = User.objects.create_user(f"load-annotator-{i}", password=uuid.uuid4().hex)
        add_member(project=project, user=user, role="annotator")
        mine = [docs[(i + k) % documents] for k in range(min(per_annotator, documents))]
        assign_documents(project=project, annotator=user, documents=mine)
        tokens.append(Token.objects.create(user=user).key)
        assigned.append([d.pk for d in mine])
    sentences = {
        doc.pk: list(
            Sentence.objects.filter(document=doc).order_by("index").values_list("start", "end")
        )
        for doc in Document.objects.filter(project=project)
    }
    slots = dict(
        TaxonomyNode.objects.filter(taxonomy=taxonomy, level=2).values_list("name", "slots")
    )
    connection.close()
    return Fixture(
        tokens=tokens,
        assigned=assigned,
        sentences=sentences,
        slots={k: [str(s) for s in v or []] for k, v in slots.items()},
    )


# --- gunicorn ----------------------------------------------------------------------------------


class WebServer:
    """gunicorn on a fixed port; ``restart`` kills it and starts a new one on the same port."""

    def __init__(self, *, port: int, env: dict[str, str], args: argparse.Namespace, log: Path):
        self.port, self.env, self.args, self.log = port, env, args, log
        self.proc: Any = None
        self.starts = 0
        self.closed = False  # set by close(): no start() after it, even from another thread
        self._lock = threading.Lock()

    def command(self) -> list[str]:
        cmd = [str(Path(sys.executable).with_name("gunicorn")), "--pythonpath", "platform"]
        if GUNICORN_CONF.exists() and not self.args.no_conf:
            cmd += ["--config", str(GUNICORN_CONF)]
        cmd += ["--bind", f"{HOST}:{self.port}", "--log-level", "warning"]
        if self.args.workers:
            cmd += ["--workers", str(self.args.workers)]
        if self.args.threads:
            cmd += ["--threads", str(self.args.threads), "--worker-class", "gthread"]
        return [*cmd, "fallacy_platform.wsgi:application"]

    def start(self, timeout: float = 90) -> None:
        import http.client

        with self._lock:
            if self.closed:
                raise RuntimeError("the web server was closed")
            self.starts += 1
            with open(self.log, "a") as log:
                log.write(f"--- start {self.starts} at {time.time():.3f}\n")
                log.flush()
                self.proc = subprocess.Popen(
                    self.command(),
                    cwd=ROOT,
                    env=self.env,
                    start_new_session=True,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"gunicorn exited with {self.proc.returncode}; see {self.log}")
            try:
                conn = http.client.HTTPConnection(HOST, self.port, timeout=2)
                conn.request("GET", "/api/auth/csrf/")
                if conn.getresponse().status == 200:
                    conn.close()
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"gunicorn did not answer within {timeout:.0f} s; see {self.log}")

    def stop(self, sig: int = signal.SIGTERM) -> None:
        proc = self.proc
        if proc is None:
            return
        try:
            os.killpg(proc.pid, sig)  # the group we started: master and workers
            proc.wait(timeout=30)
        except ProcessLookupError:
            pass
        except subprocess.TimeoutExpired:  # a graceful stop that hangs: kill it
            sig = signal.SIGKILL
        if sig == signal.SIGKILL:  # workers left behind by a dead master die too
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()

    def close(self) -> None:
        """Kill it for good (also one that another thread is starting right now)."""
        with self._lock:
            self.closed = True
            self.stop(signal.SIGKILL)

    def restart(self, *, mode: str, down_s: float) -> tuple[float, float]:
        began = time.monotonic()
        self.stop(signal.SIGKILL if mode == "kill" else signal.SIGTERM)
        time.sleep(down_s)
        self.start()
        return began, time.monotonic()


# --- the run -----------------------------------------------------------------------------------


def fault_controller(
    *,
    clients: list[ClientState],
    total: int,
    timeline: Timeline,
    web: WebServer,
    pg: ScratchCluster,
    args: argparse.Namespace,
    done: threading.Event,
) -> None:
    """Restart the web server at ``web_at`` of the saves done, PostgreSQL at ``pg_at``."""
    plan = sorted([(args.web_at, "web"), (args.pg_at, "postgresql")])
    plan = [(f, what) for f, what in plan if what[:2] in args.restarts]  # "we", "po"
    for fraction, what in plan:
        while not done.is_set() and sum(c.saves_done for c in clients) < fraction * total:
            time.sleep(0.05)
        if done.is_set():
            return
        print(
            f"[{time.monotonic() - timeline.origin:6.1f} s] restarting {what} after "
            f"{sum(c.saves_done for c in clients)} of {total} saves",
            flush=True,
        )
        if what == "web":
            began, up = web.restart(mode=args.web_restart, down_s=args.down_s)
            timeline.add(f"web ({args.web_restart})", began, up)
        else:
            began, up = pg.restart(down_s=args.down_s, mode="fast")
            timeline.add("postgresql (pg_ctl stop -m fast / start)", began, up)


def inject_faults(kinds: list[str], clients: list[ClientState]) -> None:
    """Change the database behind the clients' backs, so the checker has something to find."""
    from annotations.models import Span

    saved = sorted(sid for c in clients for sid in c.alive)
    if len(saved) < 2:
        raise RuntimeError("--inject needs at least two saved spans")
    if "lose" in kinds:
        Span.objects.filter(pk=saved[0]).delete()
    if "duplicate" in kinds:
        copy = Span.objects.get(pk=saved[-1])
        copy.pk, copy.id, copy.client_id = None, None, uuid.uuid4()
        copy.save()


def server_env(db_url: str, work: Path, args: argparse.Namespace) -> dict[str, str]:
    """gunicorn's environment: the scratch database, a data directory under ``work``."""
    env = {
        **os.environ,
        "DATABASE_URL": db_url,
        "ALLOWED_HOSTS": HOST,
        "FALLACY_DATA_DIR": str(work / "data"),
        "DJANGO_DEBUG": "0",
        "DJANGO_SETTINGS_MODULE": "fallacy_platform.settings",
    }
    env.setdefault("SECRET_KEY", uuid.uuid4().hex * 2)
    if args.conn_max_age is not None:  # else the settings' default (production's)
        env["DB_CONN_MAX_AGE"] = str(args.conn_max_age)
    return env


def start_clients(
    clients: list[ClientState],
    fx: Fixture,
    timeline: Timeline,
    args: argparse.Namespace,
    barrier: threading.Barrier,
    events: tuple[threading.Event, threading.Event],
) -> list[threading.Thread]:
    """A started thread per client, each saving ``args.saves`` times once ``barrier`` opens;
    ``events``: (stop, gate), the end of the run and the fault controller's last restart."""
    stop, gate = events
    threads = [
        threading.Thread(
            target=run_client,
            kwargs=dict(
                state=c,
                fx=fx,
                saves=args.saves,
                seed=args.seed * 1000 + c.index,
                barrier=barrier,
                timeline=timeline,
                stop=stop,
                gate=gate,
            ),
            daemon=True,
        )
        for c in clients
    ]
    for t in threads:
        t.start()
    return threads


def drive(
    clients: list[ClientState],
    fx: Fixture,
    timeline: Timeline,
    web: WebServer,
    pg: ScratchCluster,
    args: argparse.Namespace,
) -> float:
    """Every client's saves while the fault controller restarts what ``args`` says; the
    wall time of the clients' saves."""
    done = threading.Event()
    restarts_done = threading.Event()  # clients hold their last 10% of saves until set
    barrier = threading.Barrier(args.annotators + 1)
    threads = start_clients(clients, fx, timeline, args, barrier, (done, restarts_done))
    barrier.wait()
    started = time.monotonic()
    timeline.origin = started
    controller_error: list[BaseException] = []

    def control() -> None:
        try:
            fault_controller(
                clients=clients,
                total=args.annotators * args.saves,
                timeline=timeline,
                web=web,
                pg=pg,
                args=args,
                done=done,
            )
        except BaseException as exc:  # noqa: BLE001 - reported below
            controller_error.append(exc)
        finally:
            restarts_done.set()

    controller = threading.Thread(target=control, daemon=True)
    controller.start()
    for t in threads:
        t.join()
    wall = time.monotonic() - started
    done.set()
    controller.join(timeout=120)
    if controller_error:
        raise controller_error[0]
    return wall


def settings_of(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "annotators": args.annotators,
        "saves_per_annotator": args.saves,
        "documents": args.documents,
        "docs_per_annotator": args.docs_per_annotator,
        "web_restart": args.web_restart,
        "down_s": args.down_s,
        "conn_max_age": args.conn_max_age,
        "seed": args.seed,
        "restarts": args.restarts,
        "inject": args.inject,
    }


def run(args: argparse.Namespace) -> int:
    work = Path(tempfile.mkdtemp(prefix="load-annotate-", dir=args.work_dir))
    pg = ScratchCluster(ports=range(args.ports[0], args.ports[1] + 1), base_dir=args.pg_dir)
    web: WebServer | None = None
    try:
        pg.start()
        db_url = pg.create_database("load")
        print(f"scratch PostgreSQL {pg.server_version()} on port {pg.port} ({pg.dir})", flush=True)
        fx = build_fixture(
            db_url,
            annotators=args.annotators,
            documents=args.documents,
            per_annotator=args.docs_per_annotator,
        )
        env = server_env(db_url, work, args)
        web = WebServer(port=free_port(), env=env, args=args, log=work / "gunicorn.log")
        web.start()
        timeline = Timeline()
        clients = [
            ClientState(index=i, port=web.port, token=fx.tokens[i], docs=fx.assigned[i])
            for i in range(args.annotators)
        ]
        wall = drive(clients, fx, timeline, web, pg, args)
        if args.inject:
            inject_faults(args.inject.split(","), clients)
        report = summarise(
            clients=clients,
            fx=fx,
            timeline=timeline,
            db_url=db_url,
            port=web.port,
            wall=wall,
            windows_expected=len(args.restarts),
        )
        report["machine"] = {**machine_facts(), "postgresql": pg.server_version()}
        report["server"] = " ".join(web.command()[1:-1])
        report["settings"] = settings_of(args)
        print_report(report)
        if args.json:
            args.json.write_text(json.dumps(report, indent=2, default=str))
        if not report["ok"]:
            print(f"gunicorn log: {web.log}", file=sys.stderr)
            args.keep = args.keep or bool(os.environ.get("LOAD_KEEP_ON_FAILURE"))
        return 0 if report["ok"] else 1
    finally:
        print("stopping gunicorn and the scratch PostgreSQL server", file=sys.stderr, flush=True)
        try:
            if web is not None:
                web.close()
        finally:
            pg.close()
        if not args.keep:
            import shutil

            shutil.rmtree(work, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--annotators", type=int, default=20)
    parser.add_argument("--saves", type=int, default=500, help="saves per annotator")
    parser.add_argument("--documents", type=int, default=8)
    parser.add_argument("--docs-per-annotator", type=int, default=2)
    parser.add_argument("--workers", type=int, default=0, help="gunicorn workers (0: config)")
    parser.add_argument("--threads", type=int, default=0, help="gunicorn threads (0: config)")
    parser.add_argument("--no-conf", action="store_true", help="ignore gunicorn.conf.py")
    parser.add_argument("--web-restart", choices=("kill", "term"), default="kill")
    parser.add_argument(
        "--restarts", default="web,pg", help="which to restart: web,pg (default), web, pg, none"
    )
    parser.add_argument(
        "--inject",
        default="",
        help="self-test of the checker: lose,duplicate = delete a saved span / copy one in the "
        "database behind the clients' backs before the read-back (the run must then fail)",
    )
    parser.add_argument("--web-at", type=float, default=0.3, help="fraction of saves done")
    parser.add_argument("--pg-at", type=float, default=0.65, help="fraction of saves done")
    parser.add_argument("--down-s", type=float, default=2.0, help="seconds each stays down")
    parser.add_argument(
        "--conn-max-age", type=int, help="DB_CONN_MAX_AGE for gunicorn (default: the settings')"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--ports",
        type=lambda s: [int(x) for x in s.split("-")],
        default=[55432, 55439],
        help="port range for PostgreSQL",
    )
    parser.add_argument("--pg-dir", help="parent of the cluster's directory (default: $TMPDIR)")
    parser.add_argument("--work-dir", help="parent of the gunicorn log folder")
    parser.add_argument("--keep", action="store_true", help="keep the gunicorn log folder")
    parser.add_argument("--json", type=Path, help="also write the report here")
    args = parser.parse_args()
    if not (0 <= args.web_at < 0.9 and 0 <= args.pg_at < 0.9):
        parser.error("--web-at and --pg-at must be fractions below 0.9")
    names = {"web": "we", "pg": "po", "postgresql": "po"}
    wanted = [x.strip() for x in args.restarts.split(",") if x.strip() not in ("", "none")]
    if any(x not in names for x in wanted):
        parser.error(f"--restarts: {args.restarts!r}: use web, pg, both (web,pg) or none")
    args.restarts = sorted({names[x] for x in wanted})
    if not (GUNICORN_CONF.exists() and not args.no_conf):  # else the production settings
        args.workers = args.workers or 2 * (os.cpu_count() or 1) + 1
        args.threads = args.threads or 2

    def on_signal(signum: int, _frame: Any) -> None:
        raise SystemExit(128 + signum)  # runs the finally blocks: gunicorn, cluster, folders

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
