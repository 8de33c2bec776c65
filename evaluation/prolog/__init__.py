"""The Prolog oracle for SmartyPat-style generation (pure Python: no Django).

One rule file per fallacy type (``rules/*.pl``) formalises the type's logical shape: a
``%!`` header declares the type, the fact predicates (name/arity, one-line meaning) and the
query; then come the rule clauses and a few example facts (some satisfy the query, some do
not). The first declared fact predicate is the speaker's claim: one fact of it per example.

- ``rulefile``: ``parse_rule_file(source)`` -> ``RuleFile`` (``rule``: type, ``facts``
  (``FactPredicate`` name, arity, args, meaning), ``query``, ``query_vars``,
  ``rule_clauses``, ``example_facts``); ``RuleFileError`` names the line. A clause whose
  head is a declared fact predicate is an example fact, every other one is the rule.
- ``facts``: ``parse_facts(answer, rule=)`` -> ``ParsedFacts`` (canonical ground facts of
  the declared predicates, deduplicated; ``Rejection(line, code, reason, text)`` for
  directives, rules, variables, undeclared predicates, wrong arities, deep or oversized
  terms and garbage). Pure Python: a model's answer is never consulted.
- ``oracle``: SWI-Prolog in its own process through the Machine Query Interface
  (``swiplserver``), sandboxed (``library(sandbox)``), with time, inference, stack,
  message-size and address-space limits; ``OracleError(kind=...)`` when a limit is hit.
  ``Oracle`` (a context manager) shares one process across a batch.
- ``oneshot``: one request in a ``swipl`` of its own (``oracle_once.pl``, no MQI) under hard
  wall-clock, output and memory limits (process group killed and reaped at a limit):
  ``check_rule_file(source)`` -> every ``PrologMessage(kind, line, text)`` swipl gives while
  loading (a limit passed: one error naming it); ``satisfying(rule, facts)`` -> the query's
  distinct bindings (``{var: writeq text}``). What the web and the worker call.
- ``shipped_rule_files()``: ``{file stem: source}`` of ``rules/*.pl``.
- ``terms``: the small lexer and ground-term reader both parsers use.
"""

from pathlib import Path

from evaluation.prolog.facts import ParsedFacts, Rejection, parse_facts
from evaluation.prolog.oneshot import check_rule_file, satisfying
from evaluation.prolog.oracle import Oracle, OracleError, PrologMessage, QueryResult
from evaluation.prolog.rule import FactPredicate, RuleFile, RuleFileError
from evaluation.prolog.rulefile import parse_rule_file

RULES_DIR = Path(__file__).with_name("rules")


def shipped_rule_files() -> dict[str, str]:
    """``{file stem: source}`` of the rule files shipped in ``rules/``, sorted by name."""
    return {path.stem: path.read_text(encoding="utf-8") for path in sorted(RULES_DIR.glob("*.pl"))}


__all__ = [
    "RULES_DIR",
    "FactPredicate",
    "Oracle",
    "OracleError",
    "ParsedFacts",
    "PrologMessage",
    "QueryResult",
    "Rejection",
    "RuleFile",
    "RuleFileError",
    "check_rule_file",
    "parse_facts",
    "parse_rule_file",
    "satisfying",
    "shipped_rule_files",
]
