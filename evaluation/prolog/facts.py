"""Read a model's free-text answer as ground facts of a rule file's declared predicates.

Pure Python: the answer is never consulted. It is read line by line (code fences, list
bullets and inline backticks are dropped; a clause must fit on one line, a line may hold
several); each clause is either accepted as a fact, written back in a canonical spelling
(``presents_options(politician,tax_plan,'raise taxes',"x")``), or rejected with a code and
a reason:

- ``directive`` (``:- ...`` or ``?- ...``), ``rule`` (``:-`` or ``-->`` after a head),
- ``variable`` (``X``, ``_``), ``undeclared`` (not a declared predicate), ``arity``,
- ``too_deep`` (compound arguments nested beyond ``max_depth``), ``too_long`` (a clause
  over ``max_fact_chars``; the rest of its line is skipped), ``answer_too_long`` (what
  follows the first ``max_answer_chars`` characters is not read),
- ``syntax`` (anything else that looks like an attempt at a clause).

Lines without a parenthesis or ``:-`` are prose and only counted (``ignored_lines``).
Repeated facts are kept once (``duplicates`` counts the others).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from evaluation.prolog.rule import RuleFile
from evaluation.prolog.terms import TermError, Token, read_ground_term, tokenize

__all__ = ["Rejection", "ParsedFacts", "parse_facts"]

MAX_FACT_CHARS = 1_000
MAX_ANSWER_CHARS = 1_000_000
MAX_DEPTH = 3  # the fact itself, its arguments, and one level of compound arguments
MAX_FACTS = 1_000

_FENCE = re.compile(r"^\s*(```|~~~)")
_BULLET = re.compile(r"^\s*(?:[-*+]\s+|\d+[.)]\s+)")


@dataclass(frozen=True)
class Rejection:
    """One rejected clause: 1-based ``line`` of the answer, ``code``, ``reason``, ``text``."""

    line: int
    code: str
    reason: str
    text: str


@dataclass
class ParsedFacts:
    """Accepted facts (canonical text, in order of first appearance) and the rest."""

    facts: list[str] = field(default_factory=list)
    rejections: list[Rejection] = field(default_factory=list)
    duplicates: int = 0
    ignored_lines: int = 0

    def counts(self) -> dict[str, int]:
        """Rejections per code."""
        out: dict[str, int] = {}
        for r in self.rejections:
            out[r.code] = out.get(r.code, 0) + 1
        return out


def _clip(text: str) -> str:
    text = text.strip()
    return text if len(text) <= 200 else text[:200] + f"... ({len(text):,} characters)"


def parse_facts(
    answer: str,
    *,
    rule: RuleFile | None,
    signatures: Iterable[tuple[str, int]] | None = None,
    max_fact_chars: int = MAX_FACT_CHARS,
    max_answer_chars: int = MAX_ANSWER_CHARS,
    max_depth: int = MAX_DEPTH,
    max_facts: int = MAX_FACTS,
) -> ParsedFacts:
    """Read ``answer``; the declared predicates come from ``rule`` or ``signatures``."""
    if rule is None and signatures is None:
        raise ValueError("parse_facts: pass rule= or signatures=")
    declared = set(rule.signatures if rule is not None else signatures)
    result = ParsedFacts()
    seen: set[str] = set()
    if len(answer) > max_answer_chars:
        line = answer.count("\n", 0, max_answer_chars) + 1
        cut = answer.rfind("\n", 0, max_answer_chars)
        if cut < 0:  # one long line: read its start, the cut clause is rejected
            cut = max_answer_chars
        rest = len(answer) - cut
        answer = answer[:cut]
        result.rejections.append(
            Rejection(
                line,
                "answer_too_long",
                f"answer over {max_answer_chars:,} characters: the last {rest:,} were not read",
                "",
            )
        )
    for number, raw in enumerate(answer.split("\n"), start=1):
        if _FENCE.match(raw):
            continue
        line = _BULLET.sub("", raw, count=1).strip().strip("`").strip()
        if not line:
            continue
        if "(" not in line and ":-" not in line and "?-" not in line:
            result.ignored_lines += 1
            continue
        for kind, payload in _clauses(line, number, max_fact_chars):
            if kind == "reject":
                result.rejections.append(payload)
                continue
            tokens, text = payload
            outcome = _check(tokens, declared, max_depth)
            if isinstance(outcome, tuple):
                code, reason = outcome
                result.rejections.append(Rejection(number, code, reason, _clip(text)))
            elif outcome in seen:
                result.duplicates += 1
            elif len(result.facts) >= max_facts:
                result.rejections.append(
                    Rejection(number, "too_many", f"more than {max_facts:,} facts", _clip(text))
                )
            else:
                seen.add(outcome)
                result.facts.append(outcome)
    return result


def _clauses(line: str, number: int, max_chars: int):
    """Yield ("clause", (tokens, text)) or ("reject", Rejection) for one line."""
    pos = 0
    while pos < len(line):
        end = _clause_end(line, pos)
        piece = line[pos:end].strip()
        pos = end
        if not piece:
            continue
        if len(piece) > max_chars:
            yield (
                "reject",
                Rejection(
                    number, "too_long", f"clause over {max_chars:,} characters", _clip(piece)
                ),
            )
            return
        try:
            tokens = tokenize(piece, first_line=number)
        except TermError as exc:
            yield "reject", Rejection(number, "syntax", str(exc), _clip(line[pos - len(piece) :]))
            return
        if tokens and tokens[-1].kind == "end":
            tokens = tokens[:-1]
        if any(t.kind == "end" for t in tokens):  # the scan below split it wrongly
            yield "reject", Rejection(number, "syntax", "unexpected full stop", _clip(piece))
            return
        if tokens:
            yield "clause", (tokens, piece)


def _clause_end(line: str, pos: int) -> int:
    """Index just after the end token that closes the clause starting at ``pos``.

    Skips quoted items; stops early (returning a long span) past the size limit's need:
    the caller measures the span and rejects it when it is too long.
    """
    i, n = pos, len(line)
    while i < n:
        ch = line[i]
        if ch in "'\"`":
            if ch == "'" and i > 0 and line[i - 1] == "0" and (i < 2 or not line[i - 2].isalnum()):
                i += 2  # 0'c character code
                continue
            j = i + 1
            while j < n and line[j] != ch:
                j += 2 if line[j] == "\\" else 1
            i = j + 1
            continue
        if ch == "%":
            return n  # the rest of the line is a comment
        if ch == "." and (i + 1 >= n or line[i + 1].isspace() or line[i + 1] == "%"):
            prev = line[i - 1] if i > pos else " "
            if prev not in "+-*/\\^<>=~:.?@#&$":
                return i + 1
        i += 1
    return n


def _check(
    tokens: list[Token], declared: set[tuple[str, int]], max_depth: int
) -> str | tuple[str, str]:
    """The canonical fact, or ``(code, reason)``."""
    first = tokens[0]
    if first.kind == "symbol" and first.value in (":-", "?-"):
        return "directive", "a directive is never run"
    depth = 0
    for tok in tokens:
        if tok.kind == "punct" and tok.value in "([{":
            depth += 1
        elif tok.kind == "punct" and tok.value in ")]}":
            depth -= 1
        elif tok.kind == "symbol" and depth == 0 and tok.value in (":-", "-->"):
            return "rule", "a rule (':-' after the head) is not a fact"
    variables = sorted({t.text for t in tokens if t.kind == "var"})
    if variables:
        return "variable", f"variables are not allowed: {', '.join(variables)}"
    if first.kind not in ("name", "qatom") or not first.functional:
        return "syntax", "not a fact of the form name(arg, ...)"
    try:
        text = read_ground_term(tokens, max_depth=max_depth)
    except TermError as exc:
        reason = str(exc)
        return ("too_deep" if "nested" in reason else "syntax"), reason
    name = str(first.value)
    arity = _arity(tokens)
    if (name, arity) not in declared:
        same = sorted(a for n, a in declared if n == name)
        if same:
            return (
                "arity",
                f"{name} has {arity} arguments; declared: {name}/{', '.join(map(str, same))}",
            )
        return "undeclared", f"{name}/{arity} is not a declared fact predicate"
    return text


def _arity(tokens: list[Token]) -> int:
    depth, arity = 0, 1
    for tok in tokens[1:]:
        if tok.kind == "punct" and tok.value in "([{":
            depth += 1
        elif tok.kind == "punct" and tok.value in ")]}":
            depth -= 1
        elif tok.kind == "punct" and tok.value == "," and depth == 1:
            arity += 1
    return arity
