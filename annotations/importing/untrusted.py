"""Uploaded archives read in a bounded child process (``fallacy_platform.bounded``).

The parent calls ``hf_folder_from_archive`` / ``hf_folder_from_path``: a child unpacks the
.zip (members with absolute paths or ``..`` refused; the number of members, their declared
sizes summed and the bytes actually unpacked bounded) into its own temporary folder and
reads the dataset folder (Parquet batch by batch, within the row and size limits), under the
memory, time and disk limits; the parent gets the rows as plain data (``HFFolder``) or a
``HFFormatError`` naming the limit. This module imports no Django: the child starts quickly.
"""

from __future__ import annotations

import io
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import IO, Any

import pyarrow as pa
from fallacy_platform.bounded import (
    UNPACKS_TOO_LARGE,
    LimitExceeded,
    check_archive,
    limit,
    run_bounded,
)

from annotations.importing.formats.hf import (
    CARD,
    PLATFORM_KEY,
    SPAN_SCHEMA,
    HFFolder,
    HFFormatError,
    item_schema,
    read_hf_folder,
)
from annotations.items import ANSWER_KINDS, FormError, parse_form

IGNORED = ("__MACOSX/",)
CHUNK = 64 * 1024


def answer_fields(form: Any) -> list[tuple[str, str]]:
    try:
        parsed = parse_form(form)
    except (FormError, TypeError, ValueError) as error:
        raise HFFormatError(CARD, 0, f"{PLATFORM_KEY}.form", str(error)) from None
    return [(f.name, f.kind) for f in parsed.fields if f.kind in ANSWER_KINDS]


def schema_of(platform: dict[str, Any]) -> pa.Schema:
    if platform["kind"] == "spans":
        return SPAN_SCHEMA
    return item_schema(answer_fields(platform.get("form")))


# --- the parent's side ---------------------------------------------------------------------


def hf_folder_from_archive(*, content: bytes, name: str) -> HFFolder:
    """The dataset folder of the uploaded .zip ``content``, read in a bounded child."""
    return _bounded("read_archive", content, name, name=name)


def hf_folder_from_path(*, path: Path) -> HFFolder:
    """The dataset folder at ``path`` (a folder on this machine), read in a bounded child."""
    return _bounded("read_folder", str(path), name=str(path))


def _bounded(function: str, *args: Any, name: str) -> HFFolder:
    try:
        return run_bounded(f"{__name__}:{function}", *args)
    except LimitExceeded as error:
        raise HFFormatError(name, 0, None, str(error)) from None


# --- the child's side ----------------------------------------------------------------------


def read_folder(path: str) -> HFFolder:
    return read_hf_folder(Path(path), schema_of)


def read_archive(content: bytes, name: str) -> HFFolder:
    try:
        archive = zipfile.ZipFile(io.BytesIO(content))
    except (zipfile.BadZipFile, OSError, EOFError, ValueError):
        raise HFFormatError(
            name, 0, None, "not a .zip archive: upload the dataset folder zipped"
        ) from None
    with archive, tempfile.TemporaryDirectory(prefix="hf-import-") as temporary:
        members = checked_members(archive, name)
        cards = sorted((p for _, p in members if p.name == CARD), key=lambda p: len(p.parts))
        if not cards:
            raise HFFormatError(name, 0, None, "no dataset card (README.md) in the archive")
        root = cards[0].parent
        unpacked = 0
        for info, path in members:
            if root.parts and path.parts[: len(root.parts)] != root.parts:
                continue
            target = Path(temporary, *path.parts[len(root.parts) :])
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                with archive.open(info) as source, target.open("wb") as sink:
                    for chunk in _chunks(source):
                        unpacked += len(chunk)
                        if unpacked > limit("IMPORT_MAX_UNPACKED_BYTES"):
                            raise LimitExceeded("IMPORT_MAX_UNPACKED_BYTES", UNPACKS_TOO_LARGE)
                        sink.write(chunk)
            except (zipfile.BadZipFile, EOFError, ValueError, NotImplementedError) as error:
                raise HFFormatError(name, 0, info.filename, f"unreadable: {error}") from None
            except RuntimeError:  # zipfile: "File ... is encrypted, password required"
                raise HFFormatError(name, 0, info.filename, "encrypted") from None
        return read_hf_folder(Path(temporary), schema_of)


def checked_members(
    archive: zipfile.ZipFile, name: str
) -> list[tuple[zipfile.ZipInfo, PurePosixPath]]:
    """The archive's files, refused before anything is unpacked: too many of them, a path
    outside the folder, declared sizes over the limit."""
    check_archive(archive)
    members = []
    for info in archive.infolist():
        if info.is_dir() or info.filename.startswith(IGNORED):
            continue
        path = PurePosixPath(info.filename)
        if path.is_absolute() or ".." in path.parts:
            raise HFFormatError(name, 0, info.filename, "a path outside the folder")
        members.append((info, path))
    return members


def _chunks(source: IO[bytes]) -> Iterator[bytes]:
    while chunk := source.read(CHUNK):
        yield chunk


def check_backup_here(path: str) -> None:
    """A project archive (``export_project``) streamed once, in the bounded child: its member
    count, and no line (one row) longer than ``IMPORT_MAX_UNPACKED_BYTES``. Its total size is
    not bounded (a large project's archive is large); the restore streams it row by row."""
    longest = limit("IMPORT_MAX_UNPACKED_BYTES")
    try:
        with zipfile.ZipFile(path) as archive:
            infos = archive.infolist()
            if len(infos) > limit("IMPORT_MAX_ZIP_MEMBERS"):
                raise LimitExceeded(
                    "IMPORT_MAX_ZIP_MEMBERS", f"the archive has {len(infos)} members"
                )
            for info in infos:
                with archive.open(info) as member:
                    while line := member.readline(longest + 1):
                        if len(line) > longest:
                            raise LimitExceeded(
                                "IMPORT_MAX_UNPACKED_BYTES", f"{info.filename}: a line is too long"
                            )
    except (zipfile.BadZipFile, OSError, EOFError):
        return  # the restore names what is wrong with it


def check_backup(*, path: Path) -> None:
    """``check_backup_here`` in a bounded child; a ``LimitExceeded`` past a limit."""
    run_bounded(f"{__name__}:check_backup_here", str(path))
