"""A parsed rule file: its fallacy type, declared fact predicates, query and clauses.

``rulefile.parse_rule_file`` reads one from its text; ``facts``, ``oracle`` and ``oneshot``
use it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["FactPredicate", "RuleFile", "RuleFileError"]


class RuleFileError(ValueError):
    """A rule file that cannot be used; ``line`` is 1-based (0: the file as a whole)."""

    def __init__(self, message: str, *, line: int = 0) -> None:
        super().__init__(f"line {line}: {message}" if line else message)
        self.line = line
        self.reason = message


@dataclass(frozen=True)
class FactPredicate:
    """A declared fact predicate: ``name/arity``, its argument names and one-line meaning."""

    name: str
    arity: int
    args: tuple[str, ...]
    meaning: str

    @property
    def indicator(self) -> str:
        return f"{self.name}/{self.arity}"


@dataclass(frozen=True)
class RuleFile:
    """A parsed rule file (``parse_rule_file``); ``source`` is the whole text."""

    type: str
    facts: tuple[FactPredicate, ...]
    query: str
    query_vars: tuple[str, ...]
    rule_clauses: str
    example_facts: str
    description: str = ""
    source: str = field(default="", repr=False)

    @property
    def signatures(self) -> frozenset[tuple[str, int]]:
        """``{(name, arity)}`` of the declared fact predicates."""
        return frozenset((p.name, p.arity) for p in self.facts)

    def dynamic_directive(self) -> str:
        """``:- dynamic p/2, q/1.``: the fact predicates exist even with no facts."""
        return ":- dynamic " + ", ".join(p.indicator for p in self.facts) + ".\n"
