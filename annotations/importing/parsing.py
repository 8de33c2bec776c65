"""Uploaded dataset files (every format but ``hf`` and ``xmi``, which have bounded readers of
their own) parsed in the bounded child process (``fallacy_platform.bounded``) before the
web or worker process reads them.

``parse_upload`` hands the file to a child that decodes it completely with the format's
readers (UTF-8, every JSON line or the Label Studio document, every CSV row, the text
blocks) under the memory, CPU and wall-clock limits; past one the parent gets a
``FileLimitError`` naming the limit and imports nothing. What is wrong with a record is not
reported here: the caller's checks list every such error, naming its line. A plain-text
(``.txt``) file's records come back as plain data, so the parent does not read it again.

A file of at most ``IMPORT_INPROCESS_MAX_BYTES`` is not handed to a child: none of these
formats expands (no archive; JSON nesting is bounded by ``formats.storable``), so parsing it
costs at most a small multiple of its size, less than a child's start-up. This module imports
no Django: the child starts quickly.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from fallacy_platform.bounded import ChildFailed, LimitExceeded, limit, run_bounded

from annotations.importing.formats.csv import csv_rows
from annotations.importing.formats.errors import DatasetFormatError, FileLimitError
from annotations.importing.formats.item_columns import is_jsonl
from annotations.importing.formats.jsonl import Source, iter_json_objects
from annotations.importing.formats.label_studio import check_label_studio
from annotations.importing.formats.plaintext import TextRecord, read_text_blocks

#: Formats read here; the others have readers of their own in the bounded child.
JSONL_FORMATS = ("mafalda", "doccano", "flub")
CSV_FORMATS = ("csv", "smartypat")
RAW_RESULTS = "raw-results"  # a span run's raw-results JSONL (``evaluation.runs.imports``)
PARSED_FORMATS = (*JSONL_FORMATS, *CSV_FORMATS, "text", "items", "labelstudio", RAW_RESULTS)


def parse_upload(*, source: Source | bytes, format: str, name: str) -> list[TextRecord] | None:
    """Parse ``source`` (bytes, a path or an open file) in the bounded child when it is
    larger than ``IMPORT_INPROCESS_MAX_BYTES``; a ``.txt`` file's records (None for the other
    formats, for a small file, and for a file with an error the caller will name)."""
    if format not in PARSED_FORMATS:
        return None
    return bounded_parse(f"{__name__}:parse_here", source, format, name, name=name)


def bounded_parse(target: str, source: Source | bytes, *args: Any, name: str) -> Any:
    """``target(content or path, *args)`` in the bounded child, for a file larger than
    ``IMPORT_INPROCESS_MAX_BYTES`` (else None); past a limit (or when the child ended without
    a result, which the operator's log explains) a ``FileLimitError``."""
    given = _given(source)
    if given is None:
        return None
    try:
        return run_bounded(target, given, *args)
    except (LimitExceeded, ChildFailed) as error:
        raise FileLimitError(name, str(error)) from None


def _given(source: Source | bytes) -> bytes | str | None:
    """What the child reads: the bytes, or the path of a file on disk (an upload spooled to
    a temporary file included); None for a file small enough to parse here."""
    most = limit("IMPORT_INPROCESS_MAX_BYTES")
    if isinstance(source, bytes):
        return source if len(source) > most else None
    if isinstance(source, str | Path):
        return str(source) if Path(source).stat().st_size > most else None
    position = source.tell()
    size = source.seek(0, io.SEEK_END) - position
    source.seek(position)
    if size <= most:
        return None
    on_disk = getattr(source, "name", None)
    if isinstance(on_disk, str) and position == 0 and Path(on_disk).is_file():
        return on_disk
    content = source.read()
    source.seek(position)
    return content if isinstance(content, bytes) else content.encode("utf-8")


def content_of(source: bytes | str) -> bytes:
    """In the child: the bytes it was given, or those of the file at the path."""
    return source if isinstance(source, bytes) else Path(source).read_bytes()


# --- the child's side ----------------------------------------------------------------------


def parse_here(source: bytes | str, format: str, name: str) -> list[TextRecord] | None:
    """Every record of the file decoded (see the module docstring)."""
    content = content_of(source)
    try:
        if format == "text" and not name.lower().endswith(".jsonl"):
            return list(read_text_blocks(io.BytesIO(content), name=name))
        if format == "labelstudio":
            for _ in check_label_studio(io.BytesIO(content), name=name):
                pass
        elif format in CSV_FORMATS or (format == "items" and not is_jsonl(name)):
            for _ in csv_rows(io.BytesIO(content), name=name):
                pass
        else:
            json_lines(content, name)
    except DatasetFormatError:
        return None  # the caller's checks name it
    return None


def json_lines(content: bytes, name: str) -> None:
    """Every non-blank line decoded as a JSON object (errors are the caller's to name)."""
    for raw in content.splitlines():
        try:
            for _ in iter_json_objects(io.StringIO(raw.decode("utf-8")), name):
                pass
        except (UnicodeDecodeError, DatasetFormatError):
            continue
