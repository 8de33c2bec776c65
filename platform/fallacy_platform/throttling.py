"""Throttles for the login and token endpoints: failed attempts per address, per username and
address pair, and per username.

Only *failed* attempts are counted (a user who logs in correctly is never slowed down, however
often). Past ``LOGIN_THROTTLE_ADDRESS`` failures from one address, or
``LOGIN_THROTTLE_USERNAME_ADDRESS`` failures for one username from one address, every attempt
from there (for that username) is answered 429 with ``Retry-After`` until the oldest failure
leaves the window -- a correct password included, so guessing cannot go on. Past
``LOGIN_THROTTLE_USERNAME`` failures for one username from everywhere (a distributed guess),
only the addresses that failed for that username within the pair window are refused: every
other address keeps its attempts, so nobody can lock a user out from everywhere, and each
new address of an attacker gets one guess.

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


def _username_key(request: Request) -> str:
    return submitted_username(request).strip().casefold()


class LoginPairThrottle(FailedLoginThrottle):
    """Failures for one username from one address."""

    scope = "login_username_address"

    def ident_part(self, request: Request) -> str | None:
        username, address = _username_key(request), self.get_ident(request)
        return f"{username}\n{address}" if username and address else None

    def clear_wait(self) -> float:
        """Seconds until none of this pair's failures is left in the window (>= 1)."""
        return max(1, math.ceil(self.duration - (self.now - self.history[0])))


class LoginUsernameThrottle(FailedLoginThrottle):
    """Failures for one username from everywhere: past the bound, only the addresses that
    failed for it (within the pair window) are refused, never a new address."""

    scope = "login_username"

    def ident_part(self, request: Request) -> str | None:
        return _username_key(request) or None

    def allow_request(self, request: Request, view: Any) -> bool:
        if not self._load(request, view) or len(self.history) < self.num_requests:
            return True
        self.pair = LoginPairThrottle()
        if not self.pair._load(request, view) or not self.pair.history:
            return True
        if len(self.pair.history) >= self.pair.num_requests:
            return True  # the pair's own throttle refuses (and logs) this attempt
        return super().allow_request(request, view)

    def wait(self) -> float:
        return min(super().wait(), self.pair.clear_wait())


LOGIN_THROTTLES = [LoginAddressThrottle, LoginPairThrottle, LoginUsernameThrottle]


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
