"""What the launching commands (evaluate, judge, generate_fallacies) share."""

from __future__ import annotations

from collections.abc import Callable

from django.core.management.base import CommandError

from evaluation.runs.launch import LaunchError


def launch_refused(error: LaunchError, option: Callable[[str], str]) -> CommandError:
    """The refusal as the command reports it: one line per problem, named by the
    command-line option (``option`` maps a problem's field to it)."""
    return CommandError(
        "launch refused:\n" + "\n".join(f"  {option(p.field)}: {p.message}" for p in error.problems)
    )
