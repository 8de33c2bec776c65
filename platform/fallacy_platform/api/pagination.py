"""Limit/offset pagination that refuses what it cannot read instead of guessing.

DRF's ``LimitOffsetPagination`` falls back to the default for ``?limit=abc`` and has no upper
bound unless ``max_limit`` is set, so ``?limit=13000000000000000000000`` reached the database
as an out-of-range ``LIMIT`` (a 500 on PostgreSQL). Here ``limit`` and ``offset`` must be
integers (``limit`` >= 1, ``offset`` >= 0), else 400 naming the parameter; a ``limit`` above
``max_limit`` is lowered to it (documented in the schema), an offset past the end gives an
empty page.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from rest_framework.exceptions import ValidationError
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.request import Request

# Offsets beyond this are refused: more than any list here holds, and within every
# database's integer range.
MAX_OFFSET = 2**31 - 1
MAX_INTEGER = 2**63 - 1  # what the schema allows for any integer (fallacy_platform.schema)
INTEGER = re.compile(r"[+-]?[0-9]{1,30}", re.ASCII)


def _integer(request: Request, name: str, *, minimum: int, maximum: int | None) -> int | None:
    raw = request.query_params.get(name)
    if raw is None:
        return None
    if not INTEGER.fullmatch(raw.strip()):
        raise ValidationError({name: [f"must be an integer, not {raw[:40]!r}"]})
    value = int(raw)
    if value < minimum:
        raise ValidationError({name: [f"must be at least {minimum}, not {value}"]})
    if maximum is not None and value > maximum:
        raise ValidationError({name: [f"must be at most {maximum}, not {value}"]})
    return value


class StrictLimitOffsetPagination(LimitOffsetPagination):
    max_limit = 1000

    def get_limit(self, request: Request) -> int | None:
        value = _integer(request, self.limit_query_param, minimum=1, maximum=MAX_INTEGER)
        if value is None:
            return self.default_limit
        return min(value, self.max_limit) if self.max_limit else value

    def get_offset(self, request: Request) -> int:
        value = _integer(request, self.offset_query_param, minimum=0, maximum=MAX_OFFSET)
        return value or 0

    def paginate_rows(
        self, request: Request, fetch: Callable[[int, int], tuple[list[Any], int]]
    ) -> list[Any]:
        """``paginate_queryset`` for a page read otherwise than by slicing a queryset:
        ``fetch(offset, limit)`` gives (the page's rows, the list's size)."""
        self.request = request
        self.limit = self.get_limit(request)
        self.offset = self.get_offset(request)
        rows, self.count = fetch(self.offset, self.limit)
        return rows

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.limit_query_param:
                parameter["schema"] = {"type": "integer", "minimum": 1, "maximum": MAX_INTEGER}
                parameter["description"] = (
                    f"Number of results to return per page (default {self.default_limit}; "
                    f"values above {self.max_limit} count as {self.max_limit})."
                )
            elif parameter["name"] == self.offset_query_param:
                parameter["schema"] = {"type": "integer", "minimum": 0, "maximum": MAX_OFFSET}
        return parameters
