"""The OpenAPI schema documents every status code a view can answer, not only its successes.

``AutoSchema`` adds DRF's generic error answers to each operation unless the view already
documents that code with ``extend_schema(responses=...)``:

- 400 where the request can be malformed: a body (parse and validation errors) or query
  parameters (filters, pagination);
- 403 everywhere: not logged in (session authentication comes first, so DRF answers 403,
  not 401), a missing role, a missing CSRF token;
- 404 where the request names an object (a path ``{id}``, an id in the query or the body):
  unknown or not visible to the user;
- 415 where there is a body: a content type the view does not parse;
- 429 with ``Retry-After`` on throttled views (the login and token endpoints).

Request bodies are documented as JSON where a view parses JSON (``map_parsers``), and as
strictly as DRF validates them: integers within 64 bits, ``allow_empty=False`` lists with
``minItems: 1``, non-null ``JSONField``s without null, non-blank strings with a non-space
character.

Bodies: ``{"detail": "..."}`` (``ErrorDetail``), and for 400 DRF's validation errors
(``ValidationErrors``: field -> messages, nested for nested fields, or a list of messages).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema
from drf_spectacular.plumbing import ResolvedComponent
from rest_framework import serializers
from rest_framework.permissions import AllowAny

ERROR_DETAIL = {
    "type": "object",
    "properties": {"detail": {"type": "string"}},
    "required": ["detail"],
}
VALIDATION_ERRORS = {
    "description": "Field -> messages (nested for nested fields; `non_field_errors` for the "
    "whole body), or a list of messages.",
    "oneOf": [{"type": "object", "additionalProperties": True}, {"type": "array", "items": {}}],
}
DESCRIPTIONS = {
    "400": "Malformed or invalid request (the body names the field)",
    "403": "Not logged in, no permission for this, or a missing CSRF token",
    "404": "No such object, or not visible to you",
    "415": "Unsupported content type",
    "429": "Too many attempts; retry after `Retry-After` seconds",
}
BODY_METHODS = {"POST", "PUT", "PATCH"}
NOT_NULL_TYPES = ("object", "array", "string", "number", "boolean")


# Integers the databases hold (64-bit): larger ones are refused (errors.api_exception_handler).
MAX_INTEGER = 2**63 - 1


def _bound_integer(schema: dict[str, Any]) -> None:
    if schema.get("type") == "integer":
        schema.setdefault("maximum", MAX_INTEGER)
        schema.setdefault("minimum", -MAX_INTEGER - 1)


class AutoSchema(SpectacularAutoSchema):
    def map_parsers(self) -> list[Any]:
        """JSON where a view takes it: DRF's default form parsers accept flat fields only, so
        documenting them for nested bodies would promise what they cannot carry. Views that
        take files (multipart only) keep their own types."""
        types = super().map_parsers()
        return ["application/json"] if "application/json" in types else types

    def _get_parameters(self) -> list[dict[str, Any]]:
        parameters = super()._get_parameters()
        for parameter in parameters:
            if isinstance(parameter, dict) and isinstance(parameter.get("schema"), dict):
                _bound_integer(parameter["schema"])
        return parameters

    def _map_serializer_field(
        self, field: Any, direction: str, bypass_extensions: bool = False
    ) -> dict[str, Any]:
        schema = super()._map_serializer_field(field, direction, bypass_extensions)
        _bound_integer(schema)
        # DRF refuses [] for allow_empty=False lists; say so (drf-spectacular does not).
        if (
            isinstance(field, serializers.ListField | serializers.ListSerializer)
            and not getattr(field, "allow_empty", True)
            and schema.get("type") == "array"
        ):
            schema.setdefault("minItems", 1)
        # DRF strips whitespace, then refuses blanks: say that a non-space character is needed.
        if (
            direction == "request"
            and isinstance(field, serializers.CharField)
            and not field.allow_blank
            and schema.get("type") == "string"
            and "pattern" not in schema
            and "enum" not in schema
        ):
            schema.setdefault("minLength", 1)
            if field.trim_whitespace:
                schema["pattern"] = r"\S"
        # A JSONField without allow_null refuses null; an empty schema would allow it.
        if (
            direction == "request"
            and isinstance(field, serializers.JSONField)
            and not field.allow_null
            and not {"type", "anyOf", "oneOf", "allOf", "$ref"} & set(schema)
        ):
            schema["anyOf"] = [{"type": t} for t in NOT_NULL_TYPES]
        return schema

    def _component(self, name: str, schema: dict[str, Any]) -> dict[str, str]:
        component = ResolvedComponent(
            name=name, type=ResolvedComponent.SCHEMA, object=name, schema=schema
        )
        self.registry.register_on_missing(component)
        return component.ref

    def _error(self, code: str, schema: dict[str, Any]) -> dict[str, Any]:
        response: dict[str, Any] = {
            "description": DESCRIPTIONS[code],
            "content": {"application/json": {"schema": schema}},
        }
        if code == "429":
            response["headers"] = {
                "Retry-After": {
                    "schema": {"type": "integer"},
                    "description": "Seconds to wait before the next attempt",
                }
            }
        return response

    def _error_codes(self) -> list[str]:
        codes = []
        has_body = self.method in BODY_METHODS and self.get_request_serializer() is not None
        has_query = any(
            p.get("in") == "query" for p in self._get_parameters() if isinstance(p, dict)
        )
        if has_body or has_query or self.method in BODY_METHODS:
            codes.append("400")
        permissions = getattr(self.view, "permission_classes", [])
        if list(permissions) != [AllowAny] or self.method in BODY_METHODS:
            codes.append("403")  # AllowAny writes still check the CSRF token of a session
        if "{" in self.path or has_query or has_body:
            codes.append("404")  # an id in the path, the query or the body names nothing
        if self.method in BODY_METHODS:
            codes.append("415")
        if getattr(self.view, "throttle_classes", None):
            codes.append("429")
        return codes

    def _get_response_bodies(self, direction: str = "response") -> dict[str, Any]:
        responses = super()._get_response_bodies(direction)
        if direction != "response":
            return responses
        detail = self._component("ErrorDetail", ERROR_DETAIL)
        validation = self._component("ValidationErrors", VALIDATION_ERRORS)
        for code in self._error_codes():
            schema = validation if code == "400" else detail
            existing = responses.get(code)
            if existing is None:
                responses[code] = self._error(code, schema)
            elif "content" not in existing:
                # Documented without a body (``OpenApiResponse(description=...)``): add DRF's.
                existing["content"] = {"application/json": {"schema": schema}}
                if code == "429":
                    existing.setdefault("headers", self._error(code, schema)["headers"])
        return responses
