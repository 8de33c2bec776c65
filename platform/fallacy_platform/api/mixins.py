"""The services' exceptions as HTTP answers, for the views of both apps.

Services raise Django's exceptions (they know nothing of HTTP); a view with
``ServiceErrorsMixin`` answers them as DRF would its own: a missing object is a 404, a
``ValidationError`` a 400 with ``{field: [messages]}`` (``non_field_errors`` when it names no
field), Django's ``PermissionDenied`` a 403 (DRF's own mapping). A view whose services report
a conflict answers 409 with ``conflict``."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ObjectDoesNotExist
from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import status
from rest_framework.exceptions import NotFound
from rest_framework.exceptions import ValidationError as DRFValidationError
from rest_framework.response import Response

from annotations.spans import NotYourAnnotation


class ServiceErrorsMixin:
    """Service exceptions -> HTTP: ``not_found_errors`` 404 (a missing object; writing
    someone else's annotation, which the user may not know exists), Django's validation
    errors 400."""

    not_found_errors: tuple[type[Exception], ...] = (ObjectDoesNotExist, NotYourAnnotation)

    def handle_exception(self, exc: Exception) -> Response:
        if isinstance(exc, self.not_found_errors):
            exc = NotFound()
        elif isinstance(exc, DjangoValidationError):
            exc = DRFValidationError(
                exc.message_dict
                if hasattr(exc, "error_dict")
                else {"non_field_errors": exc.messages}
            )
        return super().handle_exception(exc)  # type: ignore[misc]


def conflict(exc: Exception, **body: Any) -> Response:
    """409 with the service's message and what the client collided with (``current``: the
    object as it is now, serialized; ``documents``: the ids in the way)."""
    return Response({"detail": str(exc), **body}, status=status.HTTP_409_CONFLICT)
