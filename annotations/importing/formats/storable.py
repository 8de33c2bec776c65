"""Text a database can store (pure Python): no NUL character (PostgreSQL text cannot hold
one) and no lone surrogate (not encodable as UTF-8), anywhere in parsed JSON, values and keys
alike, nested at most ``MAX_DEPTH`` levels. Used by the API's JSON parser
(``fallacy_platform.inputs``) and the dataset readers."""

from __future__ import annotations

from typing import Any

MAX_DEPTH = 64
NUL = "Null characters are not allowed."
SURROGATE = "Surrogate characters are not allowed."
TOO_DEEP = f"JSON nested deeper than {MAX_DEPTH} levels is not accepted."


def text_problem(text: str) -> str | None:
    """Why ``text`` cannot be stored, or None."""
    if "\x00" in text:
        return NUL
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return SURROGATE
    return None


def shown(text: str) -> str:
    """``text`` printable in a message: NUL and lone surrogates as backslash escapes."""
    escaped = text.replace("\x00", "\\x00")
    return escaped.encode("utf-8", "backslashreplace").decode("utf-8")


def _place(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def json_problem(data: Any) -> tuple[str, str] | None:
    """The first ``(place, message)`` that makes parsed JSON unstorable, or None.

    Iterative (no recursion), in document order; the place is ``""`` for the whole value."""
    stack: list[tuple[Any, str, int]] = [(data, "", 0)]
    while stack:
        value, path, depth = stack.pop()
        if isinstance(value, str):
            problem = text_problem(value)
            if problem:
                return path, problem
        elif isinstance(value, dict | list):
            if depth >= MAX_DEPTH:
                return path, TOO_DEEP
            items = value.items() if isinstance(value, dict) else enumerate(value)
            children = []
            for key, child in items:
                problem = text_problem(key) if isinstance(key, str) else None
                if problem:
                    return _place(path, key), f"{problem} (in the key)"
                children.append((child, _place(path, key), depth + 1))
            stack.extend(reversed(children))
    return None
