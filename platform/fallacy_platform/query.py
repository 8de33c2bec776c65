"""Query parameters read strictly: what the schema does not allow is a 400 naming the
parameter, never silently taken as absent or as false."""

from __future__ import annotations

import re
from typing import Any

from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request

TRUE = ("1", "true")
FALSE = ("0", "false")


def query_flag(request: Request, name: str, *, default: bool = False) -> bool:
    """``?name=true|1|false|0`` (any case); absent: ``default``; anything else: 400."""
    values = request.query_params.getlist(name)
    if not values:
        return default
    if len(values) > 1:
        raise ValidationError({name: ["give it once"]})
    value = values[0].strip().lower()
    if value in TRUE or value in FALSE:
        return value in TRUE
    raise ValidationError({name: [f"must be true or false (1 or 0), not {values[0][:40]!r}"]})


MAX_ID = 2**63 - 1


def query_id(request: Request, name: str, *, required: bool = False) -> int | None:
    """``?name=ID``: any 64-bit integer (one that names nothing is the caller's 404); absent:
    None (400 when ``required``); empty, repeated or not an integer: 400."""
    values = request.query_params.getlist(name)
    if not values:
        if required:
            raise ValidationError({name: ["This parameter is required."]})
        return None
    if len(values) > 1:
        raise ValidationError({name: ["give it once"]})
    value = values[0]
    if not value:
        raise ValidationError({name: ["may not be empty"]})
    if not re.fullmatch(r"-?\d{1,19}", value) or abs(int(value)) > MAX_ID + (value[0] == "-"):
        raise ValidationError({name: [f"expected an id (a 64-bit integer), not {value[:40]!r}"]})
    return int(value)


class QuerySerializer(serializers.Serializer):
    """A serializer of query parameters. DRF reads a QueryDict like an HTML form, where an
    empty value (``?status=``) of an optional field counts as absent and a repeated one
    counts once; here both are refused (unless the field allows blanks, or is a list), like
    any other value the schema does not allow."""

    def to_internal_value(self, data: Any) -> Any:
        if hasattr(data, "getlist"):
            errors: dict[str, list[str]] = {}
            for name, field in self.fields.items():
                values = [] if field.read_only else data.getlist(name)
                if "" in values and not getattr(field, "allow_blank", False):
                    errors[name] = ["may not be empty"]
                elif len(values) > 1 and not isinstance(field, serializers.ListField):
                    errors[name] = ["give it once"]
            if errors:
                raise ValidationError(errors)
        return super().to_internal_value(data)
