"""Django's own error pages (a URL that matches no route, an uncaught exception) as JSON
under /api/, so API clients always get ``{"detail": ...}``; HTML pages everywhere else: a
path that matches no route gets the app's shell with status 404 (the app says "page not
found" with its links), except under STATIC_URL and the admin's URL.
And DRF's exception handler, extended to numbers out of the database's range and to a
database that cannot be reached (a restart, a failover), and to a job queue (the Celery
broker) or Redis cache that cannot be reached: 503 with ``Retry-After``, which clients (the
browser's autosave queue, bench/load_annotate.py) retry; and to a bounded resource in full
use (``fallacy_platform.slots.SlotsBusy``: rule-file checks): 429 with ``Retry-After``."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import DataError, InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults
from rest_framework.exceptions import ErrorDetail, NotFound, ParseError
from rest_framework.response import Response
from rest_framework.views import exception_handler

from fallacy_platform.celery import BROKER_ERRORS
from fallacy_platform.dispatch import QueueUnavailable
from fallacy_platform.server_paths import without_server_paths
from fallacy_platform.slots import SlotsBusy


def _api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    if _api(request):
        return JsonResponse({"detail": "Bad request."}, status=400)
    return defaults.bad_request(request, exception)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    if _api(request):
        return JsonResponse({"detail": "You do not have permission to do this."}, status=403)
    return defaults.permission_denied(request, exception)


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if _api(request):
        return JsonResponse({"detail": "Not found."}, status=404)
    plain = (settings.STATIC_URL, "/" + settings.ADMIN_URL)
    if request.method in ("GET", "HEAD") and not request.path.startswith(plain):
        from fallacy_platform.frontend_views import app

        response = app(request)
        if response.status_code == 200:
            response.status_code = 404
            return response
    return defaults.page_not_found(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    if _api(request):
        return JsonResponse({"detail": "Server error."}, status=500)
    return defaults.server_error(request)


# --- DRF: numbers out of the database's range ----------------------------------------------
# PostgreSQL lookups with an out-of-range integer match nothing, but writes raise DataError;
# SQLite's driver raises OverflowError (both were 500s). An id in the path that large names
# nothing (404); any other number that large is a bad request (400).
MAX_DATABASE_INT = 2**63 - 1


DATABASE_RETRY_AFTER_S = 5
SERVICE_RETRY_AFTER_S = 10


def _service_errors() -> tuple[type[BaseException], ...]:
    """The job queue's (a publish, a refused launch) and Redis's (the cache) errors."""
    return (*BROKER_ERRORS, QueueUnavailable)


def api_exception_handler(exc: Exception, context: dict) -> Response | None:
    if isinstance(exc, (OperationalError, InterfaceError)):  # not reachable, or locked
        return Response(
            {"detail": "The database is unavailable for a moment; retry shortly."},
            status=503,
            headers={"Retry-After": str(DATABASE_RETRY_AFTER_S)},
        )
    if isinstance(exc, _service_errors()):
        return Response(
            {"detail": "The job queue or the cache is unavailable for a moment; retry shortly."},
            status=503,
            headers={"Retry-After": str(SERVICE_RETRY_AFTER_S)},
        )
    if isinstance(exc, SlotsBusy):  # a bounded resource (rule-file checks) is in full use
        return Response(
            {"detail": str(exc)}, status=429, headers={"Retry-After": str(exc.retry_after_s)}
        )
    if isinstance(exc, DataError) and "out of range" in str(exc):
        exc = OverflowError(str(exc))  # PostgreSQL: "integer out of range" on a write
    if isinstance(exc, OverflowError):
        kwargs = context.get("kwargs") or {}
        if any(isinstance(v, int) and abs(v) > MAX_DATABASE_INT for v in kwargs.values()):
            exc = NotFound()
        else:
            exc = ParseError(f"a number in the request is beyond {MAX_DATABASE_INT}")
    response = exception_handler(exc, context)
    if response is not None and 400 <= response.status_code < 500:
        response.data = _without_paths(response.data)  # a reader's message quoting a file
    return response


def _without_paths(data: Any) -> Any:
    """A 4xx's messages without the server's paths (``server_paths``), codes kept."""
    if isinstance(data, ErrorDetail):
        return ErrorDetail(without_server_paths(str(data)), code=data.code)
    if isinstance(data, str):
        return without_server_paths(data)
    if isinstance(data, dict):
        return {key: _without_paths(value) for key, value in data.items()}
    if isinstance(data, list):
        return [_without_paths(value) for value in data]
    return data
