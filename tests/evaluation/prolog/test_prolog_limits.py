"""Hard limits on untrusted rule files (evaluation/prolog/oneshot.py): a rule file's check and
a rule's query run in a swipl of their own, stopped at the wall-clock, output or memory limit
and reaped; the API answers 400 naming the limit and the server keeps answering."""

from __future__ import annotations

import math
import os
import shutil
import threading
import time
from pathlib import Path

import pytest
import requests
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token

from annotations.models import Membership, Project
from annotations.services.taxonomy import install_preset
from evaluation.prolog import OracleError, check_rule_file, parse_rule_file, shipped_rule_files
from evaluation.prolog.oneshot import MAX_OUTPUT_BYTES, NICE, STARTUP_S, satisfying
from evaluation.prolog.oracle import (
    GRACE_S,
    LOAD_TIME_LIMIT_S,
    MAX_MESSAGE_BYTES,
    MEMORY_MB,
    Oracle,
)

pytestmark = pytest.mark.skipif(
    shutil.which("swipl") is None, reason="SWI-Prolog (swipl) is not installed"
)

TYPE = "false dilemma"
SOURCE = shipped_rule_files()["false_dilemma"]
FLOOD = SOURCE + ':- forall(between(1, 3000000, I), print_message(warning, format("w~w", [I]))).\n'
# Atoms of 16 MB each, kept by clauses: outside the Prolog stacks, so only the address space
# limit stops it.
HUNGRY = SOURCE + (
    ":- dynamic kept/1.\n"
    "double(0, S, S) :- !.\n"
    "double(N, S0, S) :- string_concat(S0, S0, S1), N1 is N - 1, double(N1, S1, S).\n"
    ':- double(24, "x", S), atom_string(A, S),\n'
    "   forall(between(1, 1000, I), (atom_concat(A, I, B), assertz(kept(B)))).\n"
)
LOOPING = SOURCE + ":- repeat, fail.\n"
# The first directive swallows the Prolog time limit; the second then runs unbounded there.
SWALLOWING = SOURCE + ":- catch((repeat, fail), _, true).\n:- repeat, fail.\n"
FLOOD_LIMIT = f"more than {MAX_MESSAGE_BYTES} bytes of messages"
MEMORY_LIMIT = f"more than {MEMORY_MB} MB"


def children() -> list[tuple[int, str, str]]:
    """(pid, name, state) of this process's child processes, zombies included."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        name = text[text.index("(") + 1 : text.rindex(")")]
        state, ppid = text[text.rindex(")") + 2 :].split()[:2]
        if int(ppid) == os.getpid():
            found.append((int(stat.parent.name), name, state))
    return found


def assert_no_swipl_left() -> None:
    assert not [c for c in children() if c[1] in ("swipl", "sh")], children()


def timed(function, *args, **kwargs):
    started = time.monotonic()
    return function(*args, **kwargs), time.monotonic() - started


# --- the check itself ---------------------------------------------------------------------


def test_a_message_flood_stops_at_the_message_limit_and_leaves_no_process() -> None:
    assert parse_rule_file(FLOOD).type == TYPE
    messages, elapsed = timed(check_rule_file, FLOOD)
    assert elapsed < 5
    assert len(messages) == 1 and FLOOD_LIMIT in messages[0].text
    assert_no_swipl_left()


def test_a_memory_hungry_rule_file_stops_at_the_memory_limit() -> None:
    messages, elapsed = timed(check_rule_file, HUNGRY)
    assert elapsed < LOAD_TIME_LIMIT_S  # stopped at the memory limit, not the time limit
    assert len(messages) == 1 and MEMORY_LIMIT in messages[0].text
    assert_no_swipl_left()


def test_a_stack_overflow_names_the_stack_limit() -> None:
    messages = check_rule_file(SOURCE + ":- numlist(1, 100000000, L), sum_list(L, _).\n")
    assert len(messages) == 1 and "MB of Prolog stacks" in messages[0].text


def test_a_loop_that_swallows_the_time_limit_is_killed_at_the_wall_clock() -> None:
    messages, elapsed = timed(check_rule_file, SWALLOWING, time_limit_s=1)
    assert elapsed < 1 + STARTUP_S + 2
    assert len(messages) == 1 and f"took longer than {1 + STARTUP_S:g} s" in messages[0].text
    assert_no_swipl_left()


def test_a_check_runs_niced_under_a_cpu_time_limit() -> None:
    seen: list[tuple[int, str]] = []
    checking = threading.Thread(target=check_rule_file, args=(LOOPING,), kwargs={"time_limit_s": 1})
    checking.start()
    deadline = time.monotonic() + 5
    while not seen and time.monotonic() < deadline:
        for pid, name, _ in children():
            if name == "swipl":
                stat = Path(f"/proc/{pid}/stat").read_text()
                nice = int(stat[stat.rindex(")") + 2 :].split()[16])
                limits = Path(f"/proc/{pid}/limits").read_text()
                seen.append((nice, next(x for x in limits.splitlines() if "cpu time" in x)))
        time.sleep(0.05)
    checking.join()
    assert seen, "no swipl process seen"
    nice, cpu = seen[0]
    assert nice >= os.nice(0) + NICE
    soft, hard = (int(x) for x in cpu.split()[3:5])
    assert (soft, hard) == (math.ceil(1 + STARTUP_S) + 1, math.ceil(1 + STARTUP_S) + 2)


def test_the_normal_checks_keep_their_messages_and_lines() -> None:
    assert check_rule_file(SOURCE) == []
    (message,) = check_rule_file("p(a).\nq(X, Y) :-\n    p(X).\n")
    assert (message.kind, message.line) == ("warning", 2) and "Singleton" in message.text


def test_a_query_that_floods_its_output_is_stopped_at_the_output_limit() -> None:
    flood = 'forall(between(1, 3000000, I), print_message(warning, format("w~w", [I])))'
    rule = parse_rule_file(SOURCE.replace("    Other \\== B.", f"    Other \\== B,\n    {flood}."))
    facts = ["presents_options(s, i, a, b)", "possible_option(i, c)"]
    started = time.monotonic()
    with pytest.raises(OracleError) as error:
        satisfying(rule, facts)
    assert time.monotonic() - started < 10
    assert error.value.kind == "output" and f"more than {MAX_OUTPUT_BYTES} bytes" in str(
        error.value
    )
    assert_no_swipl_left()


def test_the_shared_oracle_ends_a_call_its_watchdog_killed() -> None:
    outcome: list[BaseException] = []

    def check() -> None:
        try:
            with Oracle() as oracle:
                oracle.check(SWALLOWING, time_limit_s=1)
        except OracleError as error:
            outcome.append(error)

    caller = threading.Thread(target=check, daemon=True)
    caller.start()
    caller.join(timeout=1 + GRACE_S + 10)
    assert not caller.is_alive(), "the caller is still waiting for the killed swipl"
    assert len(outcome) == 1 and outcome[0].kind == "time"


# --- through a served app -----------------------------------------------------------------


def admin_token() -> tuple[str, int]:
    """A superuser who is also a project's admin: (API token, project id)."""
    user = User.objects.create_superuser("limits-admin", password="x")
    project = Project.objects.create(name="Limits", taxonomy=install_preset(name="smartypat"))
    Membership.objects.create(project=project, user=user, role=Membership.Role.ADMIN)
    return Token.objects.create(user=user).key, project.pk


def post_rule(url: str, token: str, project: int, source: str) -> tuple[requests.Response, float]:
    return timed(
        requests.post,
        f"{url}/api/evaluation/prolog-rules/",
        json={"type": TYPE, "source": source, "project": project},
        headers={"Authorization": f"Token {token}"},
        timeout=120,
    )


def csrf_answers_quickly(url: str) -> float:
    answer, elapsed = timed(requests.get, f"{url}/api/auth/csrf/", timeout=30)
    assert answer.status_code == 200
    return elapsed


@pytest.mark.django_db(transaction=True)
def test_four_floods_at_once_answer_400_or_429_and_the_server_keeps_answering(live_server) -> None:
    token, project = admin_token()
    answers: list[tuple[requests.Response, float]] = []
    floods = [
        threading.Thread(
            target=lambda: answers.append(post_rule(live_server.url, token, project, FLOOD))
        )
        for _ in range(4)
    ]
    for flood in floods:
        flood.start()
    while_running = []
    while any(flood.is_alive() for flood in floods):
        while_running.append(csrf_answers_quickly(live_server.url))
        time.sleep(0.05)
    for flood in floods:
        flood.join()
    assert while_running and max(while_running) < 2
    assert len(answers) == 4
    # One check at a time per user: the others are refused at once.
    assert sorted(answer.status_code for answer, _ in answers) == [400, 429, 429, 429]
    for answer, elapsed in answers:
        if answer.status_code == 429:
            assert int(answer.headers["Retry-After"]) > 0
        else:
            assert FLOOD_LIMIT in answer.json()["source"][0]
        assert elapsed < 10
    assert csrf_answers_quickly(live_server.url) < 2
    assert_no_swipl_left()


@pytest.mark.django_db(transaction=True)
def test_memory_and_time_limits_answer_400_naming_them(live_server) -> None:
    token, project = admin_token()
    hungry, elapsed = post_rule(live_server.url, token, project, HUNGRY)
    assert hungry.status_code == 400 and MEMORY_LIMIT in hungry.json()["source"][0]
    assert elapsed < LOAD_TIME_LIMIT_S
    looping, elapsed = post_rule(live_server.url, token, project, LOOPING)
    assert looping.status_code == 400
    assert f"took longer than {LOAD_TIME_LIMIT_S:g} s" in looping.json()["source"][0]
    assert elapsed < LOAD_TIME_LIMIT_S + STARTUP_S + 2
    assert csrf_answers_quickly(live_server.url) < 2
    assert_no_swipl_left()
