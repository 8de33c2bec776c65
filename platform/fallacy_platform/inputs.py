"""Input every view can rely on, checked once before any view reads it.

- JSON bodies (``StrictJSONParser``, the API's JSON parser): nested at most ``MAX_DEPTH``
  levels, and no string, value or key, holding a NUL character or a lone surrogate (neither
  can be stored in PostgreSQL text; SQLite's driver cannot encode a surrogate). A 400 names
  the place: ``{"labels[0].explanation": ["..."]}``.
- Query parameters (``QueryParameterMiddleware``): no NUL character in a name or value; a
  400 names the parameter.
- Booleans of a JSON body (``StrictBooleanField``): ``true`` or ``false``, not ``0``/``1``
  nor ``"true"``, as the schema says; form fields and query parameters are text and keep
  DRF's reading (``true``/``false``/``1``/``0``...).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse
from rest_framework import serializers
from rest_framework.exceptions import ParseError, ValidationError
from rest_framework.parsers import JSONParser
from rest_framework.utils import html

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
    """``text`` printable in an answer: NUL and lone surrogates as backslash escapes."""
    escaped = text.replace("\x00", "\\x00")
    return escaped.encode("utf-8", "backslashreplace").decode("utf-8")


def _place(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def json_problem(data: Any) -> tuple[str, str] | None:
    """The first ``(place, message)`` that makes parsed JSON unacceptable, or None.

    Iterative (no recursion), in document order; the place is ``""`` for the whole body."""
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


class StrictJSONParser(JSONParser):
    """DRF's JSON parser, then ``json_problem``: a 400 naming the place."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError(f"JSON parse error - {TOO_DEEP}") from None
        found = json_problem(data)
        if found:
            place, message = found
            raise ValidationError({shown(place) or "non_field_errors": [message]})
        return data


class StrictBooleanField(serializers.BooleanField):
    """A boolean: JSON ``true``/``false`` only; text only from a form or a query string."""

    def to_internal_value(self, data: Any) -> bool:
        if isinstance(data, bool):
            return data
        if isinstance(data, str) and html.is_html_input(getattr(self.root, "initial_data", None)):
            return super().to_internal_value(data)
        self.fail("invalid", input=data)


class QueryParameterMiddleware:
    """A NUL character in a query parameter is a 400 naming the parameter."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        for name, values in request.GET.lists():
            if "\x00" in name or any("\x00" in value for value in values):
                if request.path.startswith("/api/"):
                    return JsonResponse({shown(name): [NUL]}, status=400)
                return HttpResponseBadRequest(f"{shown(name)}: {NUL}", content_type="text/plain")
        return self.get_response(request)
