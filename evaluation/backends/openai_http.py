"""One HTTP attempt of the ``openai`` backend (standard library only): the request posted
without following redirects, its JSON answer, or an ``AttemptFailure`` that says whether to
retry and how long the server asked to wait (``Retry-After``), with the server's message.
"""

from __future__ import annotations

import email.utils
import http.client
import json
import ssl
import time
import urllib.error
import urllib.request
from typing import Any

from evaluation.backends import failures

#: longest wait between two attempts, whatever the backoff or the server's Retry-After
MAX_WAIT = 60.0
#: the most characters of a server's message quoted in an error
MESSAGE_CHARS = 500


class AttemptFailure(Exception):
    """One failed attempt: ``status`` is the HTTP status, or a word for a connection error;
    ``public`` its class of failure as the run's users read it (``failures``)."""

    def __init__(
        self,
        status: str,
        message: str,
        *,
        public: str,
        retry: bool,
        delay: float | None = None,
    ) -> None:
        super().__init__(f"{status}: {message}")
        self.status = status
        self.message = message
        self.public = public
        self.retry = retry
        self.delay = delay  # what the server asked for (Retry-After), else None


class NoRedirect(urllib.request.HTTPRedirectHandler):
    """Redirects are errors: the key is never carried to another address."""

    def redirect_request(
        self,
        req: urllib.request.Request,
        fp: Any,
        code: int,
        msg: str,
        headers: Any,
        newurl: str,
    ) -> None:
        return None


def retry_after(headers: Any) -> float | None:
    """Seconds asked by ``Retry-After`` (seconds or an HTTP date) or ``retry-after-ms``."""
    if headers is None:
        return None
    milliseconds = headers.get("retry-after-ms")
    if milliseconds:
        try:
            return min(MAX_WAIT, max(0.0, float(milliseconds) / 1000))
        except ValueError:
            pass
    value = headers.get("Retry-After")
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        seconds = when.timestamp() - time.time()
    return min(MAX_WAIT, max(0.0, seconds))


def server_message(body: bytes) -> str:
    """The message of an error answer: ``error.message`` (OpenAI), ``message``, ``detail``,
    or the start of the body."""
    text = body.decode("utf-8", "replace").strip()
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict):
        error = data.get("error")
        if isinstance(error, dict) and error.get("message"):
            text = str(error["message"])
        elif isinstance(error, str) and error:
            text = error
        elif data.get("message"):
            text = str(data["message"])
        elif data.get("detail"):
            text = str(data["detail"])
    return text[:MESSAGE_CHARS] or "(empty answer)"


def _http_failure(error: urllib.error.HTTPError) -> AttemptFailure:
    """An error status: a 429 or a 5xx is retried (after ``Retry-After`` when given)."""
    status = error.code
    try:
        message = server_message(error.read())
    except (OSError, http.client.HTTPException):
        message = str(error.reason or "(no answer)")
    finally:
        error.close()
    retry = status == 429 or status >= 500
    return AttemptFailure(
        f"HTTP {status}",
        message,
        public=failures.http_status(status),
        retry=retry,
        delay=retry_after(error.headers) if retry else None,
    )


def post_json(
    opener: urllib.request.OpenerDirector,
    url: str,
    data: bytes,
    *,
    headers: dict[str, str],
    timeout: float,
) -> Any:
    """The decoded JSON answer of one attempt, or ``AttemptFailure``."""
    http_request = urllib.request.Request(url, data=data, headers=headers)
    try:
        with opener.open(http_request, timeout=timeout) as response:
            body = response.read()
    except urllib.error.HTTPError as error:
        raise _http_failure(error) from None
    except urllib.error.URLError as error:  # refused, unknown host, TLS...
        reason = error.reason
        raise AttemptFailure(
            "connection error",
            str(reason),
            public=failures.transport_failure(error, timeout=timeout),
            retry=not isinstance(reason, ssl.SSLCertVerificationError),
        ) from None
    except (OSError, http.client.HTTPException) as error:  # reset, timed out, cut short
        raise AttemptFailure(
            "connection error",
            f"{type(error).__name__}: {error}",
            public=failures.transport_failure(error, timeout=timeout),
            retry=True,
        ) from None
    try:
        return json.loads(body)
    except ValueError:
        raise AttemptFailure(
            "bad answer",
            f"not JSON: {body[:200].decode('utf-8', 'replace')!r}",
            public=failures.INVALID,
            retry=False,
        ) from None
