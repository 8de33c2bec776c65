"""Rule files: one fallacy type's formalisation in Prolog, with a machine-readable header.

A rule file starts with ``%!`` header lines::

    %! type: false dilemma
    %! fact: presents_options(Speaker, Claim, A, B) -- Speaker offers A and B as the choices
    %! query: false_dilemma(Speaker, Claim, A, B)

(one ``type``, one or more ``fact`` lines, one ``query``; a header line may be continued by
a ``%!`` line that holds no ``key:``). Then come the rule clauses (and any directives),
and example facts. A clause whose head is a declared fact predicate is an example fact;
every other clause belongs to the rule. Example facts must be ground facts that
``facts.parse_facts`` accepts, so that they show a model exactly what to write.
"""

from __future__ import annotations

import re

from evaluation.prolog.facts import parse_facts
from evaluation.prolog.rule import FactPredicate, RuleFile, RuleFileError
from evaluation.prolog.terms import Clause, TermError, Token, split_clauses

__all__ = ["parse_rule_file"]

_HEADER = re.compile(r"^%!\s*(?:(type|fact|query|description)\s*:)?\s*(.*?)\s*$")
_SIGNATURE = re.compile(r"^([a-z][A-Za-z0-9_]*)\s*(?:\((.*)\))?$")
_ARG = re.compile(r"^[A-Z][A-Za-z0-9_]*$")


def _signature(text: str, *, line: int, what: str) -> tuple[str, tuple[str, ...]]:
    m = _SIGNATURE.match(text)
    if not m:
        raise RuleFileError(f"{what} {text!r} is not name(Arg, ...)", line=line)
    args = tuple(a.strip() for a in m.group(2).split(",")) if m.group(2) is not None else ()
    for arg in args:
        if not _ARG.match(arg):
            raise RuleFileError(f"{what} argument {arg!r} is not a variable name", line=line)
    return m.group(1), args


def _read_header(source: str) -> list[tuple[str, str, int]]:
    """``[(key, value, line)]`` of the ``%!`` lines before the first clause."""
    entries: list[tuple[str, str, int]] = []
    for number, raw in enumerate(source.splitlines(), start=1):
        stripped = raw.strip()
        if not stripped.startswith("%!"):
            if stripped and not stripped.startswith("%") and entries:
                break
            continue
        m = _HEADER.match(stripped)
        key, value = m.group(1), m.group(2)
        if key:
            entries.append((key, value, number))
        elif value and entries:
            k, v, at = entries[-1]
            entries[-1] = (k, f"{v} {value}", at)
        elif value:
            raise RuleFileError(f"header line without a key: {stripped!r}", line=number)
    return entries


def _head(clause: Clause) -> tuple[str, int] | None:
    """``(name, arity)`` of a clause's head; None for a directive."""
    toks: tuple[Token, ...] = clause.tokens
    first = toks[0]
    if first.kind == "symbol" and first.value in (":-", "?-"):
        return None
    if first.kind not in ("name", "qatom"):
        raise RuleFileError(
            f"clause does not start with a predicate name: {first.text!r}", line=first.line
        )
    if not first.functional:
        return str(first.value), 0
    depth, arity = 0, 1
    for tok in toks[1:]:
        if tok.kind == "punct" and tok.value in "([{":
            depth += 1
        elif tok.kind == "punct" and tok.value in ")]}":
            depth -= 1
            if depth == 0:
                return str(first.value), arity
        elif tok.kind == "punct" and tok.value == "," and depth == 1:
            arity += 1
    raise RuleFileError(f"unbalanced brackets in the head of {first.text}", line=first.line)


def _header_by_key(source: str) -> dict[str, list[tuple[str, int]]]:
    """The header's ``[(value, line)]`` per key, with exactly one type and one query and at
    least one fact."""
    by_key: dict[str, list[tuple[str, int]]] = {}
    for key, value, line in _read_header(source):
        by_key.setdefault(key, []).append((value, line))
    for key in ("type", "query"):
        found = by_key.get(key, [])
        if len(found) != 1:
            at = found[1][1] if len(found) > 1 else 0
            raise RuleFileError(
                f"the header needs exactly one '%! {key}:' line, found {len(found)}", line=at
            )
    if not by_key.get("fact"):
        raise RuleFileError("the header declares no '%! fact:' predicate")
    return by_key


def _fact_predicates(declared: list[tuple[str, int]]) -> list[FactPredicate]:
    """The ``%! fact:`` lines as predicates: ``name(Arg, ...) -- meaning``, each once."""
    facts: list[FactPredicate] = []
    for value, line in declared:
        signature, _, meaning = value.partition("--")
        name, args = _signature(signature.strip(), line=line, what="fact")
        if not args:
            raise RuleFileError(f"fact predicate {name} needs at least one argument", line=line)
        if any(p.name == name and p.arity == len(args) for p in facts):
            raise RuleFileError(f"fact predicate {name}/{len(args)} declared twice", line=line)
        if not meaning.strip():
            raise RuleFileError(f"fact predicate {name}/{len(args)} has no '-- meaning'", line=line)
        facts.append(FactPredicate(name, len(args), args, meaning.strip()))
    return facts


def _split_body(
    source: str, signatures: set[tuple[str, int]]
) -> tuple[list[str], list[str], set[tuple[str, int]]]:
    """The clauses' texts parted into the rule's and the example facts' (which must be
    ground facts), and the ``(name, arity)`` of every predicate the rule defines."""
    try:
        clauses, rest = split_clauses(source)
    except TermError as exc:
        raise RuleFileError(str(exc), line=exc.line) from exc
    if rest:
        raise RuleFileError("the last clause has no final full stop", line=rest[0].line)
    rule_parts: list[str] = []
    example_parts: list[str] = []
    defined: set[tuple[str, int]] = set()
    for clause in clauses:
        head = _head(clause)
        if head in signatures:
            parsed = parse_facts(clause.text, rule=None, signatures=signatures)
            if parsed.rejections:
                reason = parsed.rejections[0].reason
                raise RuleFileError(
                    f"example fact is not a ground fact ({reason})", line=clause.line
                )
            example_parts.append(clause.text)
        else:
            if head is not None:
                defined.add(head)
            rule_parts.append(clause.text)
    return rule_parts, example_parts, defined


def parse_rule_file(source: str) -> RuleFile:
    """Parse a rule file's text; ``RuleFileError`` names the line of the first problem."""
    by_key = _header_by_key(source)
    type_name, type_line = by_key["type"][0]
    if not type_name:
        raise RuleFileError("empty type", line=type_line)
    facts = _fact_predicates(by_key["fact"])
    signatures = {(p.name, p.arity) for p in facts}

    query_text, query_line = by_key["query"][0]
    query_name, query_vars = _signature(query_text, line=query_line, what="query")
    if (query_name, len(query_vars)) in signatures:
        raise RuleFileError("the query must be a rule, not a fact predicate", line=query_line)

    rule_parts, example_parts, defined = _split_body(source, signatures)
    if (query_name, len(query_vars)) not in defined:
        raise RuleFileError(
            f"no clause defines the query {query_name}/{len(query_vars)}", line=query_line
        )
    if not example_parts:
        raise RuleFileError("the file has no example facts")
    description = " ".join(v for v, _ in by_key.get("description", []))
    return RuleFile(
        type=type_name,
        facts=tuple(facts),
        query=query_text,
        query_vars=query_vars,
        rule_clauses="\n".join(rule_parts) + "\n",
        example_facts="\n".join(example_parts) + "\n",
        description=description,
        source=source,
    )
