"""Prolog-checked generation's test data: the canned model answers (valid facts, a directive
that would create a file, a looping clause, a 10 MB term; one sentence per solution; judge
scores) and the rows migrations seed."""

from __future__ import annotations

import re
from pathlib import Path

from evaluation.models import PrologRule
from evaluation.prolog import parse_rule_file, shipped_rule_files
from tests.support.builtin_rows import builtin_judge_variants

TYPE = "false dilemma"


VALID = [
    "presents_options(coach, team_training, run_more, lose_games)",
    "possible_option(team_training, run_more)",
    "possible_option(team_training, lose_games)",
    "possible_option(team_training, lift_weights)",
    "presents_options(chef, dinner, soup, salad)",
    "possible_option(dinner, soup)",
    "possible_option(dinner, salad)",
    "presents_options(mayor, traffic, 'build roads', 'ban cars')",
    "possible_option(traffic, 'build roads')",
    "possible_option(traffic, 'ban cars')",
    "possible_option(traffic, 'more buses')",
    'possible_option(traffic, "bike lanes")',
]


def facts_answer(marker: Path) -> str:
    huge = "possible_option(x, '" + "a" * (10 * 1024 * 1024) + "')."
    return "\n".join(
        [
            "Here are the facts:",
            "```prolog",
            *(f"{fact}." for fact in VALID),
            f":- open('{marker}', write, S), close(S).",
            "presents_options(A, B, C, D) :- presents_options(A, B, C, D).",
            "possible_option(X, Y) :- possible_option(X, Y).",
            "```",
            huge,
        ]
    )


def answer_for(marker: Path):
    facts = facts_answer(marker)

    def answer(prompt: str) -> str:
        if prompt.startswith("We are collecting examples"):
            return facts
        if prompt.startswith("Write one or two short sentences"):
            instance = re.search(r"which makes (.*) true\.", prompt).group(1)
            return f'"Sentence for {instance}."'
        if prompt.startswith("Write ") and "one per line" in prompt:
            return "1. Either we ban cars or the city dies.\n2. You are with us or against us."
        if "Compare a rewritten text" in prompt:
            return "Score: 2" if "Judgement 3 of 3" in prompt else "Score: 3"
        return "?"

    return answer


def seed() -> None:
    """The rows migrations seed (a transactional test's flush removes them)."""
    for source in shipped_rule_files().values():
        PrologRule.objects.get_or_create(
            type=parse_rule_file(source).type,
            version=1,
            defaults={"source": source, "builtin": True},
        )
    builtin_judge_variants()
