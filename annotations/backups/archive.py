"""The archive's zip: members written in a fixed order with a fixed date, permissions and
system (so the same rows give the same bytes), and read back with the manifest checked."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from annotations.backups.format import (
    ARCHIVE_FORMAT,
    ARCHIVE_VERSION,
    MANIFEST,
    ArchiveError,
    members,
)

ZIP_DATE = (1980, 1, 1, 0, 0, 0)


def dumps(row: Any) -> str:
    return json.dumps(row, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _info(member: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(member, date_time=ZIP_DATE)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.create_system = 3  # unix, wherever it is written
    info.external_attr = 0o644 << 16
    return info


@dataclass
class ArchiveWriter:
    """Writes members in the order given, streaming each; ``counts`` rows per member."""

    path: Path
    counts: dict[str, int] = field(default_factory=dict)

    def __enter__(self) -> ArchiveWriter:
        self._zip = zipfile.ZipFile(self.path, "w", compression=zipfile.ZIP_DEFLATED)
        return self

    def __exit__(self, *exc: object) -> None:
        self._zip.close()

    def write_rows(self, member: str, rows: Iterable[dict[str, Any]]) -> int:
        count = 0
        with self._zip.open(_info(member), "w", force_zip64=True) as handle:
            for row in rows:
                handle.write(dumps(row).encode("utf-8") + b"\n")
                count += 1
        self.counts[member] = count
        return count

    def write_json(self, member: str, value: Any) -> None:
        text = json.dumps(value, sort_keys=True, ensure_ascii=False, indent=2) + "\n"
        self._zip.writestr(_info(member), text.encode("utf-8"))


class ArchiveReader:
    """Reads an archive: the manifest checked on opening, rows streamed with their lines."""

    def __init__(self, path: Path) -> None:
        self.name = Path(path).name
        try:
            self._zip = zipfile.ZipFile(path)
            names = set(self._zip.namelist())
        except (OSError, zipfile.BadZipFile) as error:
            raise ArchiveError(self.name, None, None, f"not a project archive ({error})") from None
        missing = [member for member in members() if member not in names]
        if missing:
            raise ArchiveError(self.name, None, None, f"members missing: {', '.join(missing)}")
        self.manifest = self._manifest()

    def close(self) -> None:
        self._zip.close()

    def _manifest(self) -> dict[str, Any]:
        try:
            manifest = json.loads(self._zip.read(MANIFEST))
        except (ValueError, zipfile.BadZipFile, OSError) as error:
            raise ArchiveError(MANIFEST, None, None, f"unreadable ({error})") from None
        if not isinstance(manifest, dict) or manifest.get("format") != ARCHIVE_FORMAT:
            raise ArchiveError(MANIFEST, None, "format", f"expected {ARCHIVE_FORMAT!r}")
        if manifest.get("version") != ARCHIVE_VERSION:
            raise ArchiveError(
                MANIFEST,
                None,
                "version",
                f"archive format version {manifest.get('version')!r}; this platform reads "
                f"version {ARCHIVE_VERSION}",
            )
        if not isinstance(manifest.get("counts"), dict):
            raise ArchiveError(MANIFEST, None, "counts", "expected {member: rows}")
        return manifest

    def rows(
        self, member: str, keys: Iterable[str], added: Mapping[str, Any] | None = None
    ) -> Iterator[tuple[int, dict[str, Any]]]:
        """(line, row) of a member; every row must be an object with exactly ``keys``, but
        for the ``added`` ones an older archive lacks (read as their value there)."""
        expected = set(keys)
        added = added or {}
        line = 0
        try:
            with self._zip.open(member) as handle:
                for line, raw in enumerate(handle, start=1):
                    try:
                        row = json.loads(raw)
                    except ValueError as error:
                        raise ArchiveError(member, line, None, f"not JSON ({error})") from None
                    if not isinstance(row, dict):
                        raise ArchiveError(member, line, None, "expected a JSON object")
                    for name in expected.difference(row).intersection(added):
                        row[name] = added[name]
                    if set(row) != expected:
                        extra, missing = set(row) - expected, expected - set(row)
                        name = sorted(missing or extra)[0]
                        problem = "missing" if missing else "unknown field"
                        raise ArchiveError(member, line, name, problem)
                    yield line, row
        except (zipfile.BadZipFile, OSError, EOFError) as error:  # e.g. a bad CRC
            raise ArchiveError(member, line + 1, None, f"damaged ({error})") from None
        counted = self.manifest["counts"].get(member)
        if counted != line:
            raise ArchiveError(
                MANIFEST, None, "counts", f"{member} has {line} rows, the manifest says {counted}"
            )
