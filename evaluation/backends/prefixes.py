"""Prompts that share a long token prefix, found so that a backend runs the prefix once
(plain Python, no torch)."""

from __future__ import annotations

from collections.abc import Sequence

#: a prefix is shared (and cached) when it covers at least this share of each prompt
PREFIX_SHARE = 0.5


def _common_length(first: Sequence[int], second: Sequence[int]) -> int:
    length = 0
    for a, b in zip(first, second, strict=False):
        if a != b:
            break
        length += 1
    return length


def common_prefix(prompts: Sequence[Sequence[int]]) -> list[int]:
    """The token ids every one of ``prompts`` starts with (none for fewer than two)."""
    if len(prompts) < 2:
        return []
    first = prompts[0]
    length = min(_common_length(first, other) for other in prompts[1:])
    return list(first[:length])


def prefix_groups(prompts: Sequence[list[int]]) -> list[tuple[int, list[int]]]:
    """Groups of two or more prompts that share a token prefix covering at least
    ``PREFIX_SHARE`` of each of them: ``(prefix length, indexes into prompts)``, the prefix
    always shorter than every member (something is left to run). Sorted by token ids,
    prompts with a common prefix are neighbours; a group grows while its prefix (the
    common prefix of all its members) stays long enough. Prompts in no group are left out.
    """
    order = sorted(range(len(prompts)), key=lambda index: prompts[index])
    groups: list[tuple[int, list[int]]] = []
    members: list[int] = []
    length = 0
    longest = 0

    def close() -> None:
        if len(members) > 1:
            shortest = min(len(prompts[index]) for index in members)
            groups.append((min(length, shortest - 1), list(members)))

    for index in order:
        ids = prompts[index]
        if members:
            shared = _common_length(prompts[members[0]][:length], ids)
            if shared >= PREFIX_SHARE * max(longest, len(ids)):
                members.append(index)
                length, longest = shared, max(longest, len(ids))
                continue
            close()
        members, length, longest = [index], len(ids), len(ids)
    close()
    return [(length, group) for length, group in groups if length > 0]
