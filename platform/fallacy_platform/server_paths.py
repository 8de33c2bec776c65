"""Server paths out of the texts a tenant reads (an import job's errors, a 400's messages).

A reader's error may quote the file it opened: an uploaded archive is unpacked into a
temporary folder (``/tmp/hf-import-x1y2z3w4/data/test.parquet``), and a library's message
names that path. ``without_server_paths`` keeps the place inside the upload and drops the
server's part: a temporary folder (the system's, and the folders made in it with
``tempfile``'s names, e.g. ``bounded-…/tmp/hf-import-…``) is removed, leaving
``data/test.parquet``; any other path under the checkout, the data folder, the Python
installation or the home folder becomes ``(a server path)``.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from django.conf import settings

#: the characters a path is taken to run over in a message (quotes, colons... end it)
_PATH_CHARS = r"[^\s'\"`:,;()<>\[\]{}]*"
#: a folder ``tempfile`` made (its prefix, then 8 random characters), or a work folder ``tmp``
_TEMPORARY_FOLDER = r"(?:(?:[\w.-]*-|tmp)[a-z0-9_]{8}|tmp)(?=/|$|[\s'\"`:,;()<>\[\]{}])"
SERVER_PATH = "(a server path)"
TEMPORARY_FOLDER = "(a temporary folder)"


def _distinct(paths: Iterable[str | os.PathLike[str] | None]) -> list[str]:
    found = {str(path).rstrip("/") for path in paths if path and len(str(path).rstrip("/")) > 1}
    return sorted(found, key=len, reverse=True)  # the deepest first


@lru_cache(maxsize=1)
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    temporary = _distinct([tempfile.gettempdir(), "/tmp", "/var/tmp", "/dev/shm"])
    server = _distinct(
        [
            settings.BASE_DIR,
            settings.DATA_DIR,
            sys.prefix,
            sys.base_prefix,
            sys.exec_prefix,
            os.environ.get("HOME"),
            Path.home(),
        ]
    )
    end = r"(?![\w.-])"
    server_pattern = re.compile(
        "(?:" + "|".join(map(re.escape, server)) + ")" + end + f"(?:/{_PATH_CHARS})?"
    )
    temporary_pattern = re.compile(
        "(?:"
        + "|".join(map(re.escape, temporary))
        + ")"
        + end
        + f"(?:/{_TEMPORARY_FOLDER})*(?P<inside>/{_PATH_CHARS})?"
    )
    return server_pattern, temporary_pattern


def _inside(match: re.Match[str]) -> str:
    inside = (match.group("inside") or "").strip("/")
    return inside or TEMPORARY_FOLDER


def without_server_paths(text: str) -> str:
    """``text`` without the server's paths (see the module docstring)."""
    if "/" not in text:
        return text
    server, temporary = _patterns()
    return temporary.sub(_inside, server.sub(SERVER_PATH, text))


def entries_without_server_paths(entries: list[dict]) -> list[dict]:
    """Error entries (dicts of texts, numbers...) with ``without_server_paths`` applied to
    each text."""
    return [
        {
            key: without_server_paths(value) if isinstance(value, str) else value
            for key, value in e.items()
        }
        for e in entries
    ]
