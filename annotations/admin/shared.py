"""What the annotation admin pages share: text previews and view-only inlines."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

PREVIEW = 80


def preview_text(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= PREVIEW else text[: PREVIEW - 1] + "…"


class ReadOnlyInlineMixin:
    """An inline that lists rows but never adds, changes or deletes them."""

    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
