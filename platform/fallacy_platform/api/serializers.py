"""Shapes the views of both apps share: the ``{"detail": ...}`` body of an error, the error
answers their schemas document, and the help texts of text offsets."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers


class DetailSerializer(serializers.Serializer):
    detail = serializers.CharField()


def not_found(description: str = "Not visible to the user.") -> dict[int, Any]:
    """``extend_schema(responses=...)``'s 404: what the user may not see, or what is not."""
    return {404: OpenApiResponse(DetailSerializer, description=description)}


def forbidden(description: str) -> dict[int, Any]:
    """``extend_schema(responses=...)``'s 403: seen, but the user's role does not allow it."""
    return {403: OpenApiResponse(DetailSerializer, description=description)}


INVALID = {400: OpenApiResponse(OpenApiTypes.OBJECT, description="{field: [messages]}")}

# Every text offset of the API (sentences, spans, suggestions, item segments) counts Unicode
# code points of the document's text, as Python's str does: text[start:end].
CODE_POINTS = (
    "counted in Unicode code points of the document text (Python str indices, not UTF-16 "
    "units nor bytes: an emoji or U+1D400 is one)"
)
START_HELP = f"First character of the range, {CODE_POINTS}."
END_HELP = f"End of the range (exclusive), {CODE_POINTS}."
