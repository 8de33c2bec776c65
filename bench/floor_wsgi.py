"""A WSGI app that answers 204 at once: the HTTP floor of bench/read_api.py (gunicorn, the
connection and the client, without Django)."""

from collections.abc import Callable, Iterable
from typing import Any


def application(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    start_response("204 No Content", [])
    return []
