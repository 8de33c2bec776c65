"""The operator's model-server credentials and allowed server addresses (plain Python).

- ``MODEL_CREDENTIALS`` (a JSON object, parsed by ``parse_credentials`` in settings.py):
  name -> ``{"key_env": "VARIABLE"}`` or ``{"key": "sk-..."}``, with ``"base_url"`` or
  ``"base_urls"``: the only servers that credential's key is ever sent to. A run chooses a
  credential by name (``settings.credential``); it never names a variable nor carries a key.
  An optional ``"projects"`` list (project ids, or names) limits which projects' runs may
  choose it; without one every project may.
- ``MODEL_SERVER_ALLOWED_URLS``: the servers a run may address, and only those. Empty (the
  default): every credential's servers and ``OPENAI_BASE_URL``; ``*`` allows any server.
- Servers on this machine (127.0.0.1, localhost, ::1) and link-local addresses
  (169.254.0.0/16, fe80::/10: cloud metadata services) are reached only where the list names
  them (``*`` does not), except that without a list ``MODEL_SERVER_ALLOW_LOOPBACK`` (on in
  the embedded default, off in production) allows this machine's servers.

A server matches an allowed address when scheme, host and port are equal and its API path
(``.../v1``) starts with the allowed one, segment by segment. Outside Django (scripts that
use a backend directly) there are no credentials and every address is allowed.
"""

from __future__ import annotations

import ipaddress
import json
import os
import socket
import urllib.parse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
ANY = "*"


class CredentialsError(ValueError):
    """``MODEL_CREDENTIALS`` is malformed (raised when settings load)."""


@dataclass(frozen=True)
class Credential:
    """An operator's key for some servers; the key itself never shows in reprs."""

    name: str
    base_urls: tuple[str, ...]
    key_env: str | None = None
    key: str | None = field(default=None, repr=False)
    #: the projects (ids or names) whose runs may choose it; None: every project
    projects: tuple[int | str, ...] | None = None

    def read_key(self) -> str | None:
        """The key: the literal one, else the operator's variable (read when used)."""
        if self.key:
            return self.key
        return os.environ.get(self.key_env) or None if self.key_env else None

    def allows(self, url: str) -> bool:
        return any(url_matches(url, allowed) for allowed in self.base_urls)

    def allows_project(self, project: Any) -> bool:
        """Whether a run of ``project`` (a ``Project``) may choose this credential."""
        if self.projects is None:
            return True
        return getattr(project, "pk", None) in self.projects or (
            getattr(project, "name", None) in self.projects
        )


def _origin_and_path(url: str) -> tuple[str, str, int | None, list[str]] | None:
    parts = urllib.parse.urlsplit(url.strip())
    try:
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    port = port or (443 if parts.scheme == "https" else 80)
    path = parts.path.rstrip("/")
    if not path.endswith("/v1"):
        path = f"{path}/v1"
    return parts.scheme, parts.hostname.lower(), port, [s for s in path.split("/") if s]


def url_matches(url: str, allowed: str) -> bool:
    """Whether ``url`` is the server ``allowed`` names (same origin, path under its path)."""
    if allowed == ANY:
        return True
    have, want = _origin_and_path(url), _origin_and_path(allowed)
    if have is None or want is None or have[:3] != want[:3]:
        return False
    segments = have[3]
    if any(s in (".", "..") or "%" in s for s in segments):
        return False
    return segments[: len(want[3])] == want[3]


def is_local(url: str) -> bool:
    return (urllib.parse.urlsplit(url.strip()).hostname or "") in LOCAL_HOSTS


def parse_credentials(text: str) -> dict[str, Credential]:
    """``MODEL_CREDENTIALS`` as credentials by name (``CredentialsError`` naming the entry)."""
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except ValueError as error:
        raise CredentialsError(f"MODEL_CREDENTIALS is not JSON: {error}") from None
    if not isinstance(data, dict):
        raise CredentialsError("MODEL_CREDENTIALS: a JSON object of name -> credential")
    return {str(name): _credential(str(name), entry) for name, entry in data.items()}


def _credential(name: str, entry: Any) -> Credential:
    where = f"MODEL_CREDENTIALS[{name!r}]"
    if not isinstance(entry, dict):
        raise CredentialsError(f"{where}: an object with key_env (or key) and base_url(s)")
    urls = entry.get("base_urls", [entry["base_url"]] if "base_url" in entry else [])
    if isinstance(urls, str):
        urls = [urls]
    if not urls or not all(isinstance(u, str) and _origin_and_path(u) for u in urls):
        raise CredentialsError(f"{where}: base_url(s), the http(s) servers the key is sent to")
    key_env, key = entry.get("key_env"), entry.get("key")
    if not (isinstance(key_env, str) and key_env) and not (isinstance(key, str) and key):
        raise CredentialsError(f"{where}: key_env (a variable's name) or key")
    projects = entry.get("projects")
    if projects is not None and (
        not isinstance(projects, list)
        or not all(
            (isinstance(p, int) and not isinstance(p, bool)) or (isinstance(p, str) and p)
            for p in projects
        )
    ):
        raise CredentialsError(f"{where}: projects must be a list of project ids or names")
    return Credential(
        name,
        tuple(u.strip() for u in urls),
        key_env or None,
        key or None,
        tuple(projects) if projects is not None else None,
    )


def _django_setting(name: str, default: Any) -> Any:
    try:
        from django.conf import settings
    except ImportError:  # pragma: no cover - Django is installed with the platform
        return default
    return getattr(settings, name, default) if settings.configured else default


def credentials() -> Mapping[str, Credential]:
    """The operator's credentials by name (none outside Django)."""
    return _django_setting("MODEL_CREDENTIALS", {})


def allowed_urls() -> Sequence[str]:
    """The servers a run may address (``*`` for any), as ``MODEL_SERVER_ALLOWED_URLS`` says."""
    configured = _django_setting("MODEL_SERVER_ALLOWED_URLS", None)
    if configured is None:
        return [ANY]
    if configured:
        return list(configured)
    defaults = [url for credential in credentials().values() for url in credential.base_urls]
    if os.environ.get("OPENAI_BASE_URL"):
        defaults.append(os.environ["OPENAI_BASE_URL"])
    return defaults


def _address(url: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The IP address a URL's host spells, in any form the resolver takes (``127.1``,
    ``2130706433``, ``::ffff:127.0.0.1``); None for a name."""
    host = urllib.parse.urlsplit(url.strip()).hostname or ""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        try:
            address = ipaddress.IPv4Address(socket.inet_aton(host))
        except OSError:
            return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _loopback(url: str) -> bool:
    """A server on this machine: a loopback or unspecified (``0.0.0.0``) address, or
    ``localhost``."""
    host = urllib.parse.urlsplit(url.strip()).hostname or ""
    if host in LOCAL_HOSTS or host.endswith(".localhost"):
        return True
    address = _address(url)
    return address is not None and (address.is_loopback or address.is_unspecified)


def _link_local(url: str) -> bool:
    address = _address(url)
    return address is not None and address.is_link_local


def url_allowed(url: str) -> bool:
    """Whether a run may address ``url``: a server the operator's list names (or any with
    ``*``, except this machine's and link-local ones, which only an entry naming them allows);
    without a list, this machine's servers where ``MODEL_SERVER_ALLOW_LOOPBACK`` says so."""
    configured = _django_setting("MODEL_SERVER_ALLOWED_URLS", None)
    if configured is None:
        return True  # outside Django: a script's own choice
    loopback = _loopback(url)
    if loopback and not configured and _django_setting("MODEL_SERVER_ALLOW_LOOPBACK", False):
        return True
    listed = [allowed for allowed in allowed_urls() if allowed != ANY]
    if any(url_matches(url, allowed) for allowed in listed):
        return True
    return ANY in configured and not loopback and not _link_local(url)
