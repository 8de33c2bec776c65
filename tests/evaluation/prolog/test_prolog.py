"""The Prolog oracle package (evaluation.prolog): rule files, fact parsing, the sandboxed
swipl process. Plain pytest, no database; skipped where swipl is not installed."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import pytest

from evaluation.prolog import (
    Oracle,
    OracleError,
    RuleFileError,
    check_rule_file,
    parse_facts,
    parse_rule_file,
    satisfying,
    shipped_rule_files,
)

pytestmark = pytest.mark.skipif(
    shutil.which("swipl") is None, reason="SWI-Prolog (swipl) is not installed"
)

SHIPPED = shipped_rule_files()
SMARTYPAT_TYPES = {
    "false dilemma",
    "equivocation",
    "false analogy",
    "false cause",
    "wrong direction",
    "hasty generalization",
    "fallacy of composition",
    "begging the question",
    "inverse error",
    "slippery slope",
    "appeal to authority",
}

LOOPING = """%! type: looping
%! fact: seed(X) -- X is a seed
%! query: forever(X)

forever(X) :- seed(X), spin(X).
spin(X) :- spin(X).

seed(a).
"""


@pytest.fixture(scope="module")
def oracle():
    with Oracle() as shared:
        yield shared


def swipl_direct(rule, facts: list[str], tmp_path: Path) -> set[tuple[str, ...]]:
    """The query's distinct solutions, from `swipl` run directly on a file of rule + facts."""
    path = tmp_path / "direct.pl"
    path.write_text(
        rule.dynamic_directive() + rule.rule_clauses + "".join(f"{f}.\n" for f in sorted(facts))
    )
    row = "~q" + "\\t~q" * (len(rule.query_vars) - 1) + "~n"
    names = ", ".join(rule.query_vars)
    goal = f'forall(distinct([{names}], {rule.query}), format("{row}", [{names}]))'
    out = subprocess.run(
        ["swipl", "-q", "-g", goal, "-t", "halt", str(path)],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return {tuple(line.split("\t")) for line in out.stdout.splitlines()}


def as_rows(rule, bindings: list[dict[str, str]]) -> set[tuple[str, ...]]:
    return {tuple(b[v] for v in rule.query_vars) for b in bindings}


# -- shipped rule files --------------------------------------------------------------------


def test_the_eleven_smartypat_types_are_shipped():
    assert {parse_rule_file(src).type for src in SHIPPED.values()} == SMARTYPAT_TYPES


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_shipped_file_loads_cleanly_and_its_examples_solve(name, oracle, tmp_path):
    rule = parse_rule_file(SHIPPED[name])
    assert oracle.check(SHIPPED[name]) == []
    examples = parse_facts(rule.example_facts, rule=rule)
    assert examples.rejections == [] and examples.facts
    result = oracle.satisfying(rule, examples.facts)
    assert result.bindings and not result.truncated
    # At least one example (a fact of the first, "claim" predicate) does not satisfy it.
    claims = [f for f in examples.facts if f.startswith(rule.facts[0].name + "(")]
    assert len(result.bindings) < len(claims)
    assert as_rows(rule, result.bindings) == swipl_direct(rule, examples.facts, tmp_path)


def test_check_rule_file_in_a_fresh_process_accepts_a_shipped_file():
    assert check_rule_file(SHIPPED["false_dilemma"]) == []


# -- refusing rule files -------------------------------------------------------------------


def test_syntax_error_is_reported_with_its_line():
    source = "p(a).\np(b).\n\nq(X) :- p(X), .\n"
    messages = check_rule_file(source)
    assert [(m.kind, m.line) for m in messages] == [("error", 4)]
    assert "Syntax error" in messages[0].text


def test_singleton_warning_is_reported():
    messages = check_rule_file("p(a).\nq(X, Y) :-\n    p(X).\n")
    assert [(m.kind, m.line) for m in messages] == [("warning", 2)]
    assert "Singleton" in messages[0].text and "Y" in messages[0].text


def test_discontiguous_warning_is_reported():
    messages = check_rule_file("p(a).\nq(a).\np(b).\n")
    assert [(m.kind, m.line) for m in messages] == [("warning", 3)]


def test_shell_and_file_directives_are_refused_not_run(tmp_path):
    touched, opened = tmp_path / "touched", tmp_path / "opened"
    source = (
        "p(a).\n"
        f":- shell('touch {touched}').\n"
        f":- open('{opened}', write, S), close(S).\n"
        f":- initialization(shell('touch {touched}')).\n"
    )
    messages = check_rule_file(source)
    errors = [(m.kind, m.line) for m in messages if "permission" in m.text.lower()]
    assert ("error", 2) in errors and ("error", 3) in errors
    assert not touched.exists() and not opened.exists()


def test_a_directive_that_loops_is_stopped():
    started = time.monotonic()
    messages = check_rule_file(":- repeat, fail.\n", time_limit_s=1)
    assert time.monotonic() - started < 10
    assert messages and messages[0].kind == "error" and "time limit" in messages[0].text.lower()


@pytest.mark.parametrize(
    ("source", "line", "fragment"),
    [
        ("%! fact: p(X) -- x\n%! query: q(X)\nq(X) :- p(X).\np(a).\n", 0, "type"),
        (
            "%! type: t\n%! fact: p(X) -- x\n%! query: r(X)\nq(X) :- p(X).\np(a).\n",
            3,
            "no clause defines",
        ),
        ("%! type: t\n%! fact: p(X) -- x\n%! query: q(X)\nq(X) :- p(X).\np(_Y).\n", 5, "ground"),
        ("%! type: t\n%! fact: p(X)\n%! query: q(X)\nq(X) :- p(X).\np(a).\n", 2, "meaning"),
        ("%! type: t\n%! fact: p(X) -- x\n%! query: q(X)\nq(X) :- p(X).\np(a)\n", 5, "full stop"),
    ],
)
def test_rule_file_header_errors_name_the_line(source, line, fragment):
    with pytest.raises(RuleFileError) as err:
        parse_rule_file(source)
    assert err.value.line == line and fragment in str(err.value)


# -- facts ---------------------------------------------------------------------------------

DILEMMA = parse_rule_file(SHIPPED["false_dilemma"])


def test_well_formed_facts_are_accepted_normalised_and_deduplicated():
    answer = """Here are the facts:
```prolog
presents_options(politician, tax_plan, raise_taxes, cut_services).
presents_options('Dr. Who', "budget", 'cut', 3).
- possible_option(tax_plan, borrow). possible_option(tax_plan, -2.5)
presents_options(politician,tax_plan,raise_taxes,cut_services).
```
"""
    parsed = parse_facts(answer, rule=DILEMMA)
    assert parsed.facts == [
        "presents_options(politician,tax_plan,raise_taxes,cut_services)",
        "presents_options('Dr. Who',\"budget\",cut,3)",
        "possible_option(tax_plan,borrow)",
        "possible_option(tax_plan,-2.5)",
    ]
    assert parsed.rejections == [] and parsed.duplicates == 1 and parsed.ignored_lines == 1


@pytest.mark.parametrize(
    ("line", "code"),
    [
        (":- open('/tmp/evil', write, S), close(S).", "directive"),
        ("?- shell('touch /tmp/evil').", "directive"),
        ("possible_option(tax_plan, X) :- shell('touch /tmp/evil').", "rule"),
        ("possible_option(tax_plan, X).", "variable"),
        ("possible_option(_, borrow).", "variable"),
        ("shell('touch /tmp/evil').", "undeclared"),
        ("possible_option(tax_plan).", "arity"),
        ("possible_option(tax_plan, f(g(h(i)))).", "too_deep"),
        ("possible_option(tax_plan, a + b).", "syntax"),
        ("possible_option(tax_plan, 'unterminated).", "syntax"),
        ("possible_option(tax_plan, borrow", "syntax"),
    ],
)
def test_bad_clauses_are_rejected_with_a_reason(line, code):
    parsed = parse_facts(line, rule=DILEMMA)
    assert parsed.facts == []
    assert [r.code for r in parsed.rejections] == [code]
    assert parsed.rejections[0].reason and parsed.rejections[0].line == 1


def test_a_ten_megabyte_term_is_rejected_fast():
    answer = (
        "possible_option(tax_plan, '"
        + "x" * 10_000_000
        + "').\npossible_option(tax_plan, borrow).\n"
    )
    started = time.monotonic()
    parsed = parse_facts(answer, rule=DILEMMA)
    assert time.monotonic() - started < 2
    assert parsed.facts == []
    assert {r.code for r in parsed.rejections} <= {"too_long", "answer_too_long"}
    assert parsed.rejections and all(len(r.text) < 300 for r in parsed.rejections)


def test_an_oversized_clause_on_a_short_answer_is_too_long():
    parsed = parse_facts("possible_option(tax_plan, '" + "y" * 5_000 + "').", rule=DILEMMA)
    assert [r.code for r in parsed.rejections] == ["too_long"]


# -- the oracle ----------------------------------------------------------------------------


def test_satisfying_equals_swipl_called_directly(tmp_path):
    answer = """
presents_options(mayor, budget, taxes, libraries).
presents_options(mayor, budget, taxes, taxes).
presents_options('Ms O''Neil', 'school run', walk, drive).
presents_options(coach, match, attack, defend).
possible_option(budget, taxes).
possible_option(budget, libraries).
possible_option(budget, bonds).
possible_option('school run', walk).
possible_option('school run', drive).
possible_option('school run', "bus").
possible_option(match, attack).
"""
    parsed = parse_facts(answer, rule=DILEMMA)
    assert parsed.rejections == []
    bindings = satisfying(DILEMMA, parsed.facts)
    expected = swipl_direct(DILEMMA, parsed.facts, tmp_path)
    assert as_rows(DILEMMA, bindings) == expected
    assert len(bindings) == len(expected) == 2


def test_no_facts_gives_no_solutions_not_an_error(oracle):
    assert oracle.satisfying(DILEMMA, []).bindings == []


def test_max_solutions_truncates(oracle):
    facts = [f"presents_options(s{i},issue,a,b)" for i in range(5)] + ["possible_option(issue,c)"]
    result = oracle.satisfying(DILEMMA, facts, max_solutions=3)
    assert len(result.bindings) == 3 and result.truncated


def test_a_looping_rule_is_stopped_by_the_inference_limit(oracle):
    rule = parse_rule_file(LOOPING)
    started = time.monotonic()
    with pytest.raises(OracleError) as err:
        oracle.satisfying(rule, ["seed(a)"], inference_limit=1_000_000)
    assert err.value.kind == "inferences"
    assert time.monotonic() - started < 5


def test_a_looping_rule_is_stopped_by_the_time_limit():
    rule = parse_rule_file(LOOPING)
    started = time.monotonic()
    with pytest.raises(OracleError) as err:
        satisfying(rule, ["seed(a)"], time_limit_s=1, inference_limit=10**15)
    assert err.value.kind == "time"
    assert time.monotonic() - started < 6


def test_runaway_memory_is_stopped(oracle):
    rule = parse_rule_file(
        LOOPING.replace("spin(X) :- spin(X).", "spin(X) :- spin(f(X, X)), true.")
    )
    with pytest.raises(OracleError) as err:
        oracle.satisfying(rule, ["seed(a)"], time_limit_s=20, inference_limit=10**15)
    assert err.value.kind in ("memory", "time")
    # The process is still usable afterwards.
    assert oracle.satisfying(
        DILEMMA, ["presents_options(s,i,a,b)", "possible_option(i,c)"]
    ).bindings


def test_a_rule_that_calls_the_shell_is_refused(tmp_path):
    touched = tmp_path / "touched"
    rule = parse_rule_file(
        LOOPING.replace("spin(X) :- spin(X).", f"spin(_) :- shell('touch {touched}').")
    )
    with pytest.raises(OracleError) as err:
        satisfying(rule, ["seed(a)"])
    assert err.value.kind == "sandbox"
    assert not touched.exists()


def test_a_rule_file_that_does_not_load_is_an_oracle_error():
    rule = parse_rule_file(
        LOOPING.replace("spin(X) :- spin(X).", ":- open('/tmp/evil-prolog', write, _).\nspin(_).")
    )
    with pytest.raises(OracleError) as err:
        satisfying(rule, ["seed(a)"])
    assert err.value.kind == "load" and err.value.messages
    assert not Path("/tmp/evil-prolog").exists()
