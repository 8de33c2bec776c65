"""What a failed model job tells the people who launched it, and what only the operator sees.

A project admin reads a run's (or a generation job's) error on its page; the model server
it addressed may be another service of the operator's network, and a model's loader may
fail with the server's paths. So a job's stored error names only the class of failure:

- ``could not connect to the model server`` (refused, reset, closed without an answer, not
  HTTP, unknown host, TLS refused: one text for all, so errors map no ports);
- ``the model server did not answer within N s`` (a timeout);
- ``the model server answered HTTP <status>``;
- ``the model server's answer was not valid`` (not JSON, no choices);
- ``the model could not be loaded``;
- ``the model failed while generating`` / an internal error (anything else);

never a server's body, a traceback or a server path. ``ModelFailure`` carries both texts:
``public`` for the job's error, ``str()`` (the details) for the operator's log.
"""

from __future__ import annotations

import http.client
import socket
import urllib.error
from collections.abc import Iterator
from contextlib import contextmanager

from evaluation.backends.base import BackendError

CONNECT = "could not connect to the model server"
INVALID = "the model server's answer was not valid"
LOAD = "the model could not be loaded"
GENERATE = "the model failed while generating"
INTERNAL = "an internal error"
#: said after a generic class: where the details are
SEE_LOG = "the operator's log has the details"


def http_status(status: int) -> str:
    return f"the model server answered HTTP {status}"


def timed_out(seconds: float) -> str:
    return f"the model server did not answer within {seconds:g} s"


class ModelFailure(BackendError):
    """A backend failure with a text for the job's users (``public``) and one for the
    operator's log (``str()``, the details: the server's message, its address...)."""

    def __init__(self, public: str, details: str = "") -> None:
        super().__init__(details or public)
        self.public = public


@contextmanager
def failing_as(public: str, doing: str) -> Iterator[None]:
    """An error inside (not a ``ModelFailure`` already) becomes one: ``public`` and where the
    details are for the job's users, ``doing: <the error>`` for the operator's log."""
    try:
        yield
    except ModelFailure:
        raise
    except Exception as error:
        raise ModelFailure(f"{public} ({SEE_LOG})", f"{doing}: {error}") from error


def is_timeout(error: BaseException) -> bool:
    """A read or connect that ran out of time (``URLError`` wraps the socket's)."""
    reason = error.reason if isinstance(error, urllib.error.URLError) else error
    return isinstance(reason, TimeoutError | socket.timeout)


def transport_failure(error: BaseException, *, timeout: float) -> str:
    """The public class of a failure to get an HTTP answer at all."""
    return timed_out(timeout) if is_timeout(error) else CONNECT


def request_failure(error: BaseException, *, timeout: float) -> str:
    """The public class of any failure of one HTTP request (``urllib``): its status, no
    answer, or an answer that was not valid."""
    if isinstance(error, urllib.error.HTTPError):
        return http_status(error.code)
    if isinstance(error, OSError | http.client.HTTPException):
        return transport_failure(error, timeout=timeout)
    return INVALID


def public_message(error: BaseException, *, default: str = INTERNAL) -> str:
    """The text a job's users read for ``error``: the ``public`` text of the first
    ``ModelFailure`` in its chain of causes, else ``default`` and where the details are."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        public = getattr(current, "public", None)
        if isinstance(public, str) and public:
            return public
        current = current.__cause__ or current.__context__
    return f"{default} ({SEE_LOG})"
