"""The prompts of Prolog-checked generation and the reading of the model's answers: the
facts prompt (the rule's predicates, clauses and examples), one sentence prompt per solution,
the direct method's prompt, and the clean-up of an answer into sentences."""

from __future__ import annotations

import re

from evaluation.prolog import RuleFile


def _predicates(rule: RuleFile) -> str:
    return "\n".join(f"- {p.name}({', '.join(p.args)}): {p.meaning}" for p in rule.facts)


def facts_prompt(rule: RuleFile, n: int) -> str:
    return (
        f'We are collecting examples of the logical fallacy "{rule.type}": {rule.description}\n\n'
        f"It is formalised in Prolog with these fact predicates:\n{_predicates(rule)}\n\n"
        f"The rule (the query is {rule.query}):\n{rule.rule_clauses.strip()}\n\n"
        f"Example facts:\n{rule.example_facts.strip()}\n\n"
        f"Write {n} new ground facts about new everyday situations, using only these "
        "predicates, one fact per line, each ending with a full stop; some should make the "
        "query true and some not. Write only the facts."
    )


def sentence_prompt(rule: RuleFile, instance: str, facts: list[str]) -> str:
    return (
        f"Write one or two short sentences, as a person might say them, that commit the "
        f'fallacy "{rule.type}" ({rule.description}). They must express exactly this '
        f"situation, given as Prolog facts:\n" + "\n".join(f"{f}." for f in facts) + "\n"
        f"which makes {instance} true. Write only the sentences."
    )


def direct_prompt(rule: RuleFile, n: int) -> str:
    return (
        f"Write {n} different short texts, one per line, as people might say them, each "
        f'committing the logical fallacy "{rule.type}": {rule.description}\n\n'
        f"Examples of such situations (as Prolog facts):\n{rule.example_facts.strip()}\n\n"
        "Write only the texts, one per line."
    )


def query_instance(rule: RuleFile, bindings: dict[str, str]) -> str:
    name = rule.query.split("(", 1)[0]
    return f"{name}({', '.join(bindings.get(v, v) for v in rule.query_vars)})"


_ATOM = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|[A-Za-z0-9_.\-]+")


def supporting_facts(facts: list[str], bindings: dict[str, str]) -> list[str]:
    """The facts that mention one of the solution's values."""
    values = set(bindings.values())
    return [f for f in facts if values & set(_ATOM.findall(f.split("(", 1)[-1]))]


_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s*")


def clean_sentence(raw: str) -> str:
    text = re.sub(r"<think>.*?(?:</think>|$)", "", raw, flags=re.DOTALL).strip()
    return text.strip().strip('"').strip()[:2000]


def sentence_lines(raw: str, n: int) -> list[str]:
    out = []
    for line in clean_sentence(raw).splitlines():
        line = _BULLET.sub("", line).strip().strip('"').strip()
        if line and line not in out:
            out.append(line)
    return out[:n]
