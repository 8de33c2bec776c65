"""Request bodies are refused by size before they are read.

- ``BodySizeMiddleware``: a ``Content-Length`` over the limit is a 413 naming the limit,
  answered before the body is read (the client may still be sending it). A multipart body
  may hold one upload of ``UPLOAD_MAX_BYTES`` plus ``DATA_UPLOAD_MAX_MEMORY_SIZE`` of other
  fields; any other body (JSON, forms) only ``DATA_UPLOAD_MAX_MEMORY_SIZE``. A body without
  a ``Content-Length`` (``Transfer-Encoding: chunked``) is a 411: Django reads no more of a
  body than its ``Content-Length`` says, so it would otherwise arrive empty.
- ``LimitedUploadHandler`` (first of ``FILE_UPLOAD_HANDLERS``): counts the file bytes as
  Django's multipart parser streams them (the other handlers spool them to memory up to
  ``FILE_UPLOAD_MAX_MEMORY_SIZE``, to a temporary file beyond) and stops reading with a 413
  past ``UPLOAD_MAX_BYTES``, whatever the headers said.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.files.uploadhandler import FileUploadHandler
from django.http import HttpRequest, HttpResponse, JsonResponse
from rest_framework import status
from rest_framework.exceptions import APIException

BODY_METHODS = ("POST", "PUT", "PATCH", "DELETE")


def _size(limit: int) -> str:
    for unit, factor in (("MiB", 1024 * 1024), ("KiB", 1024)):
        if limit % factor == 0:
            return f"{limit // factor} {unit}"
    return f"{limit} bytes"


def body_limit(content_type: str) -> tuple[int, str]:
    """The largest body of this media type, and what makes it (the settings named)."""
    fields = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    named = f"{_size(fields)} (REQUEST_MAX_BYTES)"
    if content_type.split(";")[0].strip().lower() == "multipart/form-data":
        upload = settings.UPLOAD_MAX_BYTES
        return upload + fields, f"a file of {_size(upload)} (UPLOAD_MAX_BYTES) and {named} more"
    return fields, named


def too_large(detail: str) -> JsonResponse:
    return JsonResponse({"detail": detail}, status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)


class BodySizeMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        declared = request.META.get("CONTENT_LENGTH") or ""
        if declared.isdigit():
            limit, names = body_limit(request.META.get("CONTENT_TYPE", ""))
            if int(declared) > limit:
                return too_large(
                    f"the request body ({declared} bytes) is larger than the limit: "
                    f"{names}; nothing was read"
                )
        elif (
            request.method in BODY_METHODS
            and "chunked" in request.META.get("HTTP_TRANSFER_ENCODING", "").lower()
        ):
            return JsonResponse(
                {"detail": "send the body with a Content-Length: chunked bodies are not read"},
                status=status.HTTP_411_LENGTH_REQUIRED,
            )
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        """The handler's refusal outside DRF's views (whose handler answers it itself)."""
        if isinstance(exception, UploadTooLarge):
            return JsonResponse(exception.detail, status=exception.status_code, safe=False)
        return None


class UploadTooLarge(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "upload_too_large"


class LimitedUploadHandler(FileUploadHandler):
    """Passes file chunks on to the next handler until ``UPLOAD_MAX_BYTES`` is exceeded."""

    def __init__(self, request: HttpRequest | None = None) -> None:
        super().__init__(request)
        self.received = 0

    def handle_raw_input(self, *args: Any, **kwargs: Any) -> None:
        self.received = 0

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes:
        self.received += len(raw_data)
        if self.received > settings.UPLOAD_MAX_BYTES:
            raise UploadTooLarge(
                {
                    "file": [
                        f"{self.file_name} is larger than the limit of "
                        f"{_size(settings.UPLOAD_MAX_BYTES)} (UPLOAD_MAX_BYTES)"
                    ]
                }
            )
        return raw_data

    def file_complete(self, file_size: int) -> None:
        return None
