"""Content negotiation for views whose ``?format=`` is their own parameter."""

from __future__ import annotations

from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request


class IgnoreFormatParameter(DefaultContentNegotiation):
    """``?format=`` names the view's file format (a dataset's, an export's), not a DRF
    renderer: the view's first renderer answers."""

    def select_renderer(
        self, request: Request, renderers: list[BaseRenderer], format_suffix: str | None = None
    ) -> tuple[BaseRenderer, str]:
        return renderers[0], renderers[0].media_type
