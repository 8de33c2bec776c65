"""The server an ``openai`` run addresses and the key it sends there: the address from the
run's settings, the operator's credential or the ``OPENAI_*`` variables, and the launch-time
checks of both against the operator's credentials and allowed servers (``credentials``).
"""

from __future__ import annotations

import os
import urllib.parse
from collections.abc import Mapping
from typing import Any

from evaluation.backends import credentials as operator
from evaluation.backends.base import SettingProblem, env_or_setting

DEFAULT_KEY_ENV = "OPENAI_API_KEY"
BASE_URL_ENV = "OPENAI_BASE_URL"
NO_KEY = "no API key for this server: choose an operator's credential (settings.credential)"


def is_local(url: str) -> bool:
    """Whether ``url`` is a server on this machine (127.0.0.1, localhost, ::1)."""
    return operator.is_local(url)


def public_url(url: str) -> str:
    """``url`` without credentials, query or fragment, and without a trailing slash."""
    parts = urllib.parse.urlsplit(url.strip())
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        port = None
    netloc = f"{host}:{port}" if port else host
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))


def api_root(url: str) -> str:
    """The ``.../v1`` root of the API from a base URL given with or without it."""
    root = url.strip().rstrip("/")
    return root if root.endswith("/v1") else f"{root}/v1"


def credential_of(settings: Mapping[str, Any]) -> operator.Credential | None:
    """The operator's credential named by ``settings.credential`` (None: none or unknown)."""
    name = settings.get("credential")
    return operator.credentials().get(name) if isinstance(name, str) else None


def base_url_of(settings: Mapping[str, Any]) -> str | None:
    """``settings.base_url``, else the chosen credential's first server, else the variable."""
    credential = credential_of(settings)
    if not settings.get("base_url") and credential is not None:
        return credential.base_urls[0]
    return env_or_setting(settings, "base_url", BASE_URL_ENV)


def read_key(settings: Mapping[str, Any], url: str) -> str | None:
    """The key for ``url``: a script's own, the credential's (only for its servers), or
    ``OPENAI_API_KEY`` (only for ``OPENAI_BASE_URL``)."""
    if settings.get("api_key"):
        return str(settings["api_key"])
    if settings.get("credential"):
        credential = credential_of(settings)
        return credential.read_key() if credential and credential.allows(url) else None
    default_url = os.environ.get(BASE_URL_ENV)
    if default_url and operator.url_matches(url, default_url):
        return os.environ.get(DEFAULT_KEY_ENV) or None
    return None


def server_problems(settings: Mapping[str, Any]) -> list[SettingProblem]:
    """The server address, the credential and the key, checked against the operator's
    credentials and allowed servers (the first problem found)."""
    name = settings.get("credential")
    credential = credential_of(settings)
    if name is not None and credential is None:
        known = ", ".join(sorted(operator.credentials())) or "none configured"
        return [
            SettingProblem(
                "settings.credential", f"no operator credential {name!r} (known: {known})"
            )
        ]
    url = base_url_of(settings)
    if not url:
        return [
            SettingProblem(
                "settings.base_url",
                f"no server address: set settings.base_url or {BASE_URL_ENV}",
            )
        ]
    problem = _address_problem(url) or _access_problem(settings, url, credential)
    return [problem] if problem is not None else []


def _address_problem(url: str) -> SettingProblem | None:
    """``url`` not a plain http(s) URL (none with credentials), or not one of the operator's
    model servers."""
    parts = urllib.parse.urlsplit(url.strip())
    try:
        parts.port  # noqa: B018 - raises on a bad port
        valid = parts.scheme in ("http", "https") and bool(parts.hostname)
    except ValueError:
        valid = False
    shown = public_url(url)
    if not valid or parts.query or parts.fragment:
        return SettingProblem("settings.base_url", f"not an http(s) URL: {shown!r}")
    if parts.username or parts.password:
        return SettingProblem(
            "settings.base_url",
            "no credentials in the URL (it is stored): use settings.credential",
        )
    if not operator.url_allowed(url):
        return SettingProblem(
            "settings.base_url",
            f"{shown!r} is not one of the operator's model servers (MODEL_SERVER_ALLOWED_URLS)",
        )
    return None


def _access_problem(
    settings: Mapping[str, Any], url: str, credential: operator.Credential | None
) -> SettingProblem | None:
    """The chosen credential not sent to ``url`` or without its key; no key for a server
    that is not on this machine."""
    if credential is not None and not credential.allows(url):
        return SettingProblem(
            "settings.base_url",
            f"credential {credential.name!r} is only sent to "
            f"{', '.join(public_url(allowed) for allowed in credential.base_urls)}",
        )
    if credential is not None and not credential.read_key():
        return SettingProblem(
            "settings.credential",
            f"credential {credential.name!r} has no key on this server (operator: "
            "set its variable)",
        )
    if not read_key(settings, url) and not is_local(url):
        return SettingProblem("settings.credential", NO_KEY)
    return None
