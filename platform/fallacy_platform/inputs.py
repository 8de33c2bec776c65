"""Input every view can rely on, checked once before any view reads it.

- JSON bodies (``StrictJSONParser``, the API's JSON parser): nested at most ``MAX_DEPTH``
  levels, and no string, value or key, holding a NUL character or a lone surrogate (neither
  can be stored in PostgreSQL text; SQLite's driver cannot encode a surrogate). A 400 names
  the place: ``{"labels[0].explanation": ["..."]}``
  (``annotations.importing.formats.storable``, which the dataset readers use too).
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

from annotations.importing.formats.storable import MAX_DEPTH, NUL, TOO_DEEP, json_problem, shown

__all__ = ["MAX_DEPTH", "QueryParameterMiddleware", "StrictBooleanField", "StrictJSONParser"]


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
