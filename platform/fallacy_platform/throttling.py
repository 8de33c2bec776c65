"""Throttles for the login and token endpoints: failed attempts per address and per username.

Only *failed* attempts are counted (a user who logs in correctly is never slowed down, however
often); once an address or a username has ``LOGIN_THROTTLE_ADDRESS`` /
``LOGIN_THROTTLE_USERNAME`` failures within the window, every attempt from it or for it is
answered 429 with ``Retry-After`` until the oldest failure leaves the window -- a correct
password included, so guessing cannot go on.

The histories live in Django's default cache, shared by every gunicorn worker: Redis in
production (``CACHE_URL``), files under the data directory in the embedded default.
Concurrency: the check and the recording are separate cache reads and writes (as in DRF's
own throttles), so concurrent failures can exceed the limit by at most the number of requests
in flight, and a lost update can drop one record; neither lets guessing continue for long.

The address is DRF's ``get_ident``: ``REMOTE_ADDR``, or behind ``NUM_PROXIES`` trusted proxies
the matching ``X-Forwarded-For`` entry. Failed attempts are logged on ``fallacy.auth`` at
WARNING with the username and the address, never the password.
"""

from __future__ import annotations

import hashlib
import logging
import math
from typing import Any

from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

logger = logging.getLogger("fallacy.auth")


def submitted_username(request: Request) -> str:
    """The username of a login attempt, as sent (``""`` when there is none)."""
    try:
        data = request.data
    except Exception:  # noqa: BLE001 - an unparsable body is the view's 400 to give
        return ""
    value = data.get("username") if hasattr(data, "get") else None
    return value if isinstance(value, str) else ""


class FailedLoginThrottle(SimpleRateThrottle):
    """Refuses while the history of failed attempts is full; records only failures."""

    def get_rate(self) -> str | None:
        # Read at use, not at import, so settings overrides (tests) take effect.
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def ident_part(self, request: Request) -> str | None:
        raise NotImplementedError

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        part = self.ident_part(request)
        if part is None:
            return None
        ident = hashlib.sha256(part.encode()).hexdigest()[:32]
        return self.cache_format % {"scope": self.scope, "ident": ident}

    def _load(self, request: Request, view: Any) -> bool:
        if self.rate is None:
            return False
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return False
        self.now = self.timer()
        self.history = [t for t in self.cache.get(self.key, []) if t > self.now - self.duration]
        return True

    def allow_request(self, request: Request, view: Any) -> bool:
        if not self._load(request, view):
            return True
        if len(self.history) >= self.num_requests:
            logger.warning(
                "login throttled: %s %r from %s on %s",
                self.scope,
                submitted_username(request),
                self.get_ident(request),
                request.path,
            )
            return False
        return True

    def wait(self) -> float:
        """Seconds until fewer than ``num_requests`` failures remain in the window (>= 1)."""
        oldest_that_counts = self.history[min(self.num_requests, len(self.history)) - 1]
        return max(1, math.ceil(self.duration - (self.now - oldest_that_counts)))

    def record_failure(self, request: Request, view: Any) -> None:
        if self._load(request, view):
            self.history = [self.now, *self.history][: self.num_requests]
            self.cache.set(self.key, self.history, self.duration)


class LoginAddressThrottle(FailedLoginThrottle):
    scope = "login_address"

    def ident_part(self, request: Request) -> str | None:
        return self.get_ident(request) or None


class LoginUsernameThrottle(FailedLoginThrottle):
    scope = "login_username"

    def ident_part(self, request: Request) -> str | None:
        username = submitted_username(request).strip().casefold()
        return username or None


LOGIN_THROTTLES = [LoginAddressThrottle, LoginUsernameThrottle]


def record_failed_login(request: Request, view: Any) -> None:
    """Count a failed attempt against its address and username, and log it."""
    for throttle_class in LOGIN_THROTTLES:
        throttle_class().record_failure(request, view)
    logger.warning(
        "failed login: username %r from %s on %s",
        submitted_username(request),
        LoginAddressThrottle().get_ident(request),
        request.path,
    )
